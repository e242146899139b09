//===- Context.h - The program-wide tables of one engine run --------------===//
#ifndef TETHER_ENGINE_CONTEXT_H
#define TETHER_ENGINE_CONTEXT_H

#include "engine/Facts.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>
#include <map>
#include <tuple>

namespace llvm {
class ThreadPoolInterface;
}

namespace tether::engine {

struct Options {
  /// Whether a place named Name (a field or global, in file File) is a
  /// workspace by the catalog's names.
  std::function<bool(uint32_t File, llvm::StringRef Name)> IsWorkspaceName;
  /// Where independent functions may be interpreted at once (a cold
  /// analyze() only; IsWorkspaceName must then be safe to call from its
  /// threads). Null or one thread: one function after the other.
  llvm::ThreadPoolInterface *Pool = nullptr;
};

class Context {
public:
  Context(const Program &P, Options O);

  /// P's functions changed where Unchanged[F] is false (P is the object
  /// this context was made for, with as many functions): their sites and
  /// regions are made anew, their old ones left unused. Returns the
  /// functions whose summaries must be computed again: the changed ones
  /// and those that gained or lost their last caller.
  std::vector<bool> update(const std::vector<bool> &Unchanged);
  /// Forget what an earlier interpretation of F wrote into its own capture
  /// regions (their ends and graphs), before F is interpreted again.
  void resetRegions(FnId F);
  /// Contents and ContentsAll, from every function's Facts.
  void collectContents();
  /// Instructions placed so far, the changed functions' old ones included.
  size_t placedInsts() const { return SiteOf.size(); }

  const Program &P;
  Options Opts;
  MemTable Mem;

  /// The tables interpreting a function adds to: their elements never move,
  /// and with share(true) every addition takes the context's lock.
  StableVector<ConvSite> Convs;
  StableVector<SrcLoc> NullSites;
  StableVector<RegionInfo> Regions;
  std::vector<AllocSite> Allocs;
  std::vector<Summary> Sums;
  std::vector<FunctionFacts> Facts;
  /// Functions some in-tree call may reach: their parameters are told by
  /// their callers. The others (entry points) close parameters by class.
  std::vector<bool> HasCallers;
  /// What every place may hold, over the whole program (closed terms):
  /// stored exactly there, and stored to any of its slots (by wildcard).
  llvm::DenseMap<MemId, Value> Contents, ContentsAll;
  /// What may be read at P: stores to P and to the slots P stands for.
  void contentsOf(MemId P, llvm::SmallVectorImpl<const Value *> &Out);

  /// Whether functions are interpreted on several threads now: the shared
  /// tables then lock (Mem's too).
  void share(bool On) {
    Lock.share(On);
    Mem.share(On);
  }

  uint32_t conv(const ConvSite &S);
  uint32_t nullSite(SrcLoc At);
  /// What a capture region's closing instruction names as its graph; the
  /// region may be a callee's that the caller closes (`cap.begin()` in a
  /// helper), so two callers may write at once.
  void joinRegionGraph(int32_t Id, const Value &Graph);
  /// A call ends region Id at At (the callee's own capture end): the
  /// earliest such end in source order, so that the note does not depend
  /// on which of the region's callers was interpreted first.
  void endRegionByCall(int32_t Id, SrcLoc At);
  /// The allocation site of instruction I of block B of F (Alloc, and calls
  /// of unknown code, whose result is fresh memory), or -1.
  int32_t allocSite(FnId F, uint32_t B, uint32_t I) const {
    return SiteOf[InstBase[F][B] + I];
  }
  /// The region a capture RegionBegin opens.
  int32_t regionOf(FnId F, uint32_t B, uint32_t I) const {
    return RegionOfInst[InstBase[F][B] + I];
  }
  /// The region a capture (or session) predicate tested at At opens (a
  /// Test, or a call of a function that returns a predicate).
  int32_t predicateRegion(FnId F, SrcLoc At,
                          RegionKind K = RegionKind::Capture);
  Location loc(SrcLoc L) const {
    return Location{L.File < P.Files.size() ? P.Files[L.File] : std::string(),
                    L.Line, L.Col};
  }
  /// "Class.method" or "function", for notes.
  std::string displayName(FnId F) const;

private:
  /// F's instructions' entries in SiteOf and RegionOfInst, at their end.
  void place(FnId F);
  std::vector<bool> callers() const;
  ShareLock Lock;
  std::vector<std::vector<uint32_t>> InstBase;
  std::vector<int32_t> SiteOf, RegionOfInst;
  llvm::DenseMap<uint64_t, uint32_t> NullIds;
  std::map<std::tuple<FnId, uint32_t, uint32_t, uint32_t, RegionKind>, int32_t>
      PredRegions;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, FnId, bool, FnId,
                      uint32_t, uint32_t, uint32_t, bool>,
           uint32_t>
      ConvIds;
};

} // namespace tether::engine

#endif
