//===- Context.cpp - Program-wide tables ----------------------------------===//
#include "engine/Context.h"

namespace tether::engine {

Context::Context(const Program &P, Options O) : P(P), Opts(std::move(O)) {
  size_t N = P.Functions.size();
  Sums.resize(N);
  Facts.resize(N);
  InstBase.resize(N);
  for (size_t F = 0; F < N; ++F)
    place(FnId(F));
  HasCallers = callers();
}

void Context::place(FnId F) {
  const Function &Fn = P.Functions[F];
  uint32_t Next = uint32_t(SiteOf.size());
  InstBase[F].clear();
  for (const Block &B : Fn.Blocks) {
    InstBase[F].push_back(Next);
    Next += uint32_t(B.Insts.size());
  }
  SiteOf.resize(Next, -1);
  RegionOfInst.resize(Next, -1);
  for (uint32_t B = 0; B < Fn.Blocks.size(); ++B)
    for (uint32_t I = 0; I < Fn.Blocks[B].Insts.size(); ++I) {
      const Inst &In = Fn.Blocks[B].Insts[I];
      uint32_t G = InstBase[F][B] + I;
      if (In.Kind == Op::Alloc || (In.Kind == Op::Call && In.Targets.empty())) {
        SiteOf[G] = int32_t(Allocs.size());
        Allocs.push_back(AllocSite{F, In.Loc,
                                   In.Kind == Op::Alloc ? In.Alloc
                                                        : AllocKind::Tensor,
                                   In.Kind == Op::Alloc && In.SizedByCaller,
                                   In.Kind == Op::Alloc && In.Device,
                                   In.Kind == Op::Alloc ? In.Class : -1,
                                   In.Kind != Op::Alloc,
                                   In.Kind == Op::Alloc && In.Manual});
      }
      if (In.Kind == Op::RegionBegin &&
          (In.Region == RegionKind::Capture ||
           In.Region == RegionKind::TaskUpdate ||
           In.Region == RegionKind::CaptureSession)) {
        RegionOfInst[G] = int32_t(Regions.size());
        Regions.push_back(RegionInfo{F, false, In.Loc, SrcLoc(), In.Region, {}});
      }
    }
}

std::vector<bool> Context::callers() const {
  size_t N = P.Functions.size();
  std::vector<bool> Out(N, false);
  for (const Function &Fn : P.Functions)
    for (const Block &B : Fn.Blocks)
      for (const Inst &In : B.Insts)
        for (const CallTarget &T : In.Targets)
          if (T.Fn >= 0 && size_t(T.Fn) < N)
            Out[T.Fn] = true;
  return Out;
}

std::vector<bool> Context::update(const std::vector<bool> &Unchanged) {
  size_t N = P.Functions.size();
  std::vector<bool> Dirty(N, false);
  for (size_t F = 0; F < N; ++F)
    if (F >= Unchanged.size() || !Unchanged[F]) {
      place(FnId(F));
      Dirty[F] = true;
    }
  std::vector<bool> Now = callers();
  for (size_t F = 0; F < N; ++F)
    if (Now[F] != HasCallers[F])
      Dirty[F] = true;
  HasCallers = std::move(Now);
  return Dirty;
}

void Context::resetRegions(FnId F) {
  for (size_t B = 0; B < InstBase[F].size(); ++B)
    for (uint32_t I = 0; I < P.Functions[F].Blocks[B].Insts.size(); ++I)
      if (int32_t R = RegionOfInst[InstBase[F][B] + I]; R >= 0) {
        Regions[R].End = SrcLoc();
        Regions[R].Graph = Value();
        Regions[R].GraphKept = false;
      }
}

void Context::collectContents() {
  Contents.clear();
  ContentsAll.clear();
  for (const FunctionFacts &FF : Facts)
    for (const auto &[Place, V] : FF.Contents) {
      Contents[Place].join(V);
      ContentsAll[Mem.wildcard(Place)].join(V);
    }
}

uint32_t Context::conv(const ConvSite &S) {
  auto Held = Lock.guard();
  auto Key = std::make_tuple(S.At.File, S.At.Line, S.At.Col, S.Fn, S.Direct,
                             S.Helper, S.HelperAt.File, S.HelperAt.Line,
                             S.HelperAt.Col, S.Address);
  auto [It, New] = ConvIds.try_emplace(Key, uint32_t(Convs.size()));
  if (New)
    Convs.push_back(S);
  return It->second;
}

uint32_t Context::nullSite(SrcLoc At) {
  auto Held = Lock.guard();
  uint64_t Key = (uint64_t(At.File) << 44) ^ (uint64_t(At.Line) << 16) ^ At.Col;
  auto [It, New] = NullIds.try_emplace(Key, uint32_t(NullSites.size()));
  if (New)
    NullSites.push_back(At);
  return It->second;
}

int32_t Context::predicateRegion(FnId F, SrcLoc At, RegionKind K) {
  auto Held = Lock.guard();
  auto [It, New] = PredRegions.try_emplace(
      std::make_tuple(F, At.File, At.Line, At.Col, K), int32_t(Regions.size()));
  if (New)
    Regions.push_back(RegionInfo{F, true, At, SrcLoc(), K});
  return It->second;
}

void Context::joinRegionGraph(int32_t Id, const Value &Graph) {
  auto Held = Lock.guard();
  Regions[Id].Graph.join(Graph);
}

void Context::endRegionByCall(int32_t Id, SrcLoc At) {
  auto Held = Lock.guard();
  RegionInfo &R = Regions[Id];
  if (!R.Predicate && (!R.End.valid() || At < R.End))
    R.End = At;
}

void Context::contentsOf(MemId P, llvm::SmallVectorImpl<const Value *> &Out) {
  MemId W = Mem.wildcard(P);
  const auto &Path = Mem.key(P).Path;
  bool Each = std::find(Path.begin(), Path.end(), MemTable::kEverySlot) !=
              Path.end();
  if (W == P || Each) { // any key: everything stored to any of its slots
    P = W;
    auto It = ContentsAll.find(P);
    if (It != ContentsAll.end())
      Out.push_back(&It->second);
    return;
  }
  // A constant key: its own stores and stores made with a computed key.
  for (MemId X : {P, W}) {
    auto It = Contents.find(X);
    if (It != Contents.end())
      Out.push_back(&It->second);
  }
}

std::string Context::displayName(FnId F) const {
  return P.Functions[F].Name;
}

} // namespace tether::engine
