//===- CaptureRegions.h - Where a graph capture is active, per TU ---------===//
//
// "In capture" at a program point means that a capture begin reaches it on
// some path of clang's CFG without a matching end. Regions are opened by the
// catalog's begin/end pairs (free functions keyed by their stream argument,
// methods keyed by their receiver) and by RAII capture guards (closed at the
// guard's scope exit). Loops, early returns and goto are the CFG's business.
//
// A branch on a catalog capture predicate (`ctx.capturing`,
// `is_current_stream_capturing()`, `currentStreamCaptureStatus() != None`,
// or a local bool initialised from one and never modified) opens a region on
// the edge where it holds, to the function's exit; so an early return when
// not capturing puts the rest of the function in capture.
//
// Capture is interprocedural within the TU: a user function called at an
// in-capture point runs (entirely) in capture, reached through a chain of
// calls that is kept for the notes. Each function keeps one witness chain,
// the shortest (breadth-first), depth-limited; cycles stop at the first visit.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_ANALYSIS_CAPTUREREGIONS_H
#define TETHER_CXX_ANALYSIS_CAPTUREREGIONS_H

#include "WeakRefModel.h"
#include "llvm/ADT/SmallVector.h"

namespace tether::cxx {

/// One capture region, opened in the function Fn.
struct CaptureRegion {
  const clang::FunctionDecl *Fn = nullptr;
  clang::SourceLocation Begin;
  /// Where the region is closed (end calls, the guard's scope exits); empty
  /// when the function leaves it open.
  llvm::SmallVector<clang::SourceLocation, 2> Ends;
};

/// Why a statement runs in capture: the region, and the calls that lead from
/// the region's function to the statement's function (empty when the
/// statement is inside the region's own function).
struct CaptureSite {
  const CaptureRegion *Region = nullptr;
  llvm::SmallVector<const clang::CallExpr *, 4> Chain;
};

/// A call of a user function, from a user function.
struct CallSite {
  const clang::FunctionDecl *Caller;
  const clang::CallExpr *Call;
};

class CaptureRegions {
public:
  CaptureRegions(const WeakRefModel &Model, const CompiledCatalog &Catalog);
  ~CaptureRegions();

  /// Find the regions of these (summarised) definitions and propagate
  /// capture membership through their calls.
  void compute(llvm::ArrayRef<const clang::FunctionDecl *> Definitions);

  /// Why S (an element of F's CFG) runs in capture, or null when it does not
  /// on any path.
  const CaptureSite *at(const clang::FunctionDecl *F, const clang::Stmt *S) const;
  /// Why the whole of F runs in capture (it is called from a capture), or
  /// null.
  const CaptureSite *contextOf(const clang::FunctionDecl *F) const;
  /// Whether F runs in capture at all (some statement of it, or all of it).
  bool touchesCapture(const clang::FunctionDecl *F) const;

  /// Where the local V's lifetime ends inside a capture region of its own
  /// function (invalid when it never does).
  clang::SourceLocation deathInRegion(const clang::VarDecl *V) const;

  /// The calls of a user function from user functions.
  llvm::ArrayRef<CallSite> callersOf(const clang::FunctionDecl *F) const;

  /// Definitions analysed, in TU order.
  llvm::ArrayRef<const clang::FunctionDecl *> functions() const {
    return Functions;
  }
  const WeakRefModel &model() const { return Model; }

  static constexpr unsigned MaxDepth = 8;

private:
  void analyseLocal(const clang::FunctionDecl *F, const clang::CFG &G);
  /// +1 when the branch condition holds exactly while capturing, -1 when it
  /// holds exactly while not, 0 when it tests no capture predicate. A local
  /// bool initialised from a predicate and never modified in F stands for
  /// it (`bool capturing = is_current_stream_capturing(); if (capturing)`).
  int predicateSense(const clang::Expr *Cond, const clang::FunctionDecl *F,
                     unsigned Depth = 0) const;
  int storedPredicateSense(const clang::VarDecl *V, const clang::FunctionDecl *F,
                           unsigned Depth) const;
  void propagate();

  const WeakRefModel &Model;
  const CompiledCatalog &Catalog;
  std::vector<const clang::FunctionDecl *> Functions;
  std::vector<std::unique_ptr<CaptureRegion>> Regions;
  std::vector<std::unique_ptr<CaptureSite>> Sites;
  llvm::DenseMap<const clang::Stmt *, const CaptureSite *> LocalSite;
  llvm::DenseMap<const clang::FunctionDecl *, const CaptureSite *> Context;
  llvm::DenseMap<const clang::FunctionDecl *, bool> HasLocalRegion;
  llvm::DenseMap<const clang::VarDecl *, clang::SourceLocation> Deaths;
  /// predicateSense of a stored predicate's initialiser, 0 when the local
  /// is modified; filled lazily.
  mutable llvm::DenseMap<const clang::VarDecl *, int> StoredSense;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<CallSite>> Callers;
  llvm::DenseMap<const clang::FunctionDecl *,
                 std::vector<const clang::CallExpr *>>
      CallsIn;
};

/// The user definition a call reaches, or null.
const clang::FunctionDecl *calleeDefinition(const clang::CallExpr *Call);

} // namespace tether::cxx

#endif
