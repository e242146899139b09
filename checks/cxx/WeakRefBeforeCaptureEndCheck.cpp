//===- WeakRefBeforeCaptureEndCheck.cpp -----------------------------------===//
//
// For each weak-ref conversion at an in-capture point:
//  1. where can the last strong reference to its memory die? (a temporary at
//     the end of its full-expression; a local that does not flow out, at its
//     scope exit inside the region or anywhere in a function that runs in
//     capture; a parameter, at whatever kills the argument of an in-capture
//     caller; a global or member, where it is reassigned or reset after the
//     conversion inside the capture);
//  2. which later operation of the capture uses the weak reference? (a read
//     of the shared place it is stored in, from in-capture code, whose value
//     reaches an op; or an op on the local holding it after the owner died).
// Both must exist.
//
//===----------------------------------------------------------------------===//
#include "WeakRefBeforeCaptureEndCheck.h"
#include "common/Messages.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
namespace msg = tether::msg;

namespace {

using Point = CFGPoint;

/// Where the last strong reference dies.
struct Death {
  SourceLocation Loc;
  const FunctionDecl *Fn = nullptr;
  /// Positions (in Fn) after which the memory is dead.
  llvm::SmallVector<Point, 2> After;
};

/// The later in-capture use of the weak reference.
struct LaterUse {
  SourceLocation Store; ///< invalid for a direct use
  std::string PlaceName;
  SourceLocation Use;
};

bool isFactoryName(StringRef N) {
  return N == "empty" || N == "empty_like" || N == "empty_strided" ||
         N == "zeros" || N == "zeros_like" || N == "ones" || N == "ones_like" ||
         N == "full" || N == "full_like" || N == "rand" || N == "randn" ||
         N == "arange" || N == "clone" || N == "contiguous_clone";
}

class Lifetimes {
public:
  Lifetimes(const WeakRefModel &Model, const CaptureRegions &Regions,
            const Places &Where)
      : Model(Model), Regions(Regions), Where(Where) {}

  std::optional<Death> ownerDeath(const FunctionDecl *F, const Expr *Src,
                                  const Stmt *At, unsigned Depth);
  std::optional<LaterUse> laterUse(const FunctionDecl *F, const CallExpr *Conv,
                                   const Death &D);

private:
  bool isFresh(const Expr *E, unsigned Depth = 0) const;
  bool allDefinitionsFresh(const FunctionDecl *F, const VarDecl *V);
  std::optional<Death> killedAfter(const FunctionDecl *F, const Stmt *At,
                                   llvm::function_ref<bool(const Stmt *)> IsKill,
                                   llvm::SmallVectorImpl<const Stmt *> &Kills);
  bool escapesBefore(const FunctionDecl *F, const VarDecl *V,
                     llvm::ArrayRef<const Stmt *> Kills);
  std::optional<Death> placeDeath(const FunctionDecl *F, const Expr *Src,
                                  const Stmt *At);
  bool flowsOut(const FunctionDecl *F, const Expr *E, unsigned Depth);
  bool escapes(const FunctionDecl *F, const VarDecl *V, unsigned Depth);
  bool storesParam(const FunctionDecl *F, unsigned I, Place &P,
                   SourceLocation &Loc, unsigned Depth);
  std::optional<Place> storeTarget(const FunctionDecl *F, const Expr *E,
                                   SourceLocation &Loc, unsigned Depth);
  llvm::ArrayRef<const DeclRefExpr *> uses(const FunctionDecl *F,
                                           const VarDecl *V);
  std::optional<Point> pointOf(const FunctionDecl *F, const Stmt *S) {
    return Model.pointOf(F, S);
  }
  llvm::SmallVector<Point, 2> lifetimeEnds(const FunctionDecl *F,
                                           const VarDecl *V, SourceLocation &Loc);
  /// Visit every element reachable after the given points.
  template <typename Fn>
  bool anyAfter(llvm::ArrayRef<Point> From, Fn &&Visit);

  const WeakRefModel &Model;
  const CaptureRegions &Regions;
  const Places &Where;
  llvm::DenseMap<const FunctionDecl *,
                 llvm::DenseMap<const VarDecl *,
                                llvm::SmallVector<const DeclRefExpr *, 4>>>
      Uses;
};

llvm::ArrayRef<const DeclRefExpr *> Lifetimes::uses(const FunctionDecl *F,
                                                    const VarDecl *V) {
  auto [It, New] = Uses.try_emplace(F);
  if (New)
    if (const CFG *G = Model.cfgOf(F))
      for (const CFGBlock *B : *G)
        for (const CFGElement &E : *B)
          if (auto CS = E.getAs<CFGStmt>())
            if (const auto *DRE = dyn_cast<DeclRefExpr>(CS->getStmt()))
              if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
                if (VD->hasLocalStorage())
                  It->second[VD].push_back(DRE);
  auto VIt = It->second.find(V);
  return VIt == It->second.end() ? llvm::ArrayRef<const DeclRefExpr *>()
                                 : llvm::ArrayRef(VIt->second);
}

llvm::SmallVector<Point, 2> Lifetimes::lifetimeEnds(const FunctionDecl *F,
                                                    const VarDecl *V,
                                                    SourceLocation &Loc) {
  llvm::SmallVector<Point, 2> Out;
  const CFG *G = Model.cfgOf(F);
  if (!G)
    return Out;
  for (const CFGBlock *B : *G) {
    unsigned I = 0;
    for (const CFGElement &E : *B) {
      const Stmt *Trigger = nullptr;
      const VarDecl *D = nullptr;
      if (auto Dt = E.getAs<CFGAutomaticObjDtor>()) {
        D = Dt->getVarDecl();
        Trigger = Dt->getTriggerStmt();
      } else if (auto L = E.getAs<CFGLifetimeEnds>()) {
        D = L->getVarDecl();
        Trigger = L->getTriggerStmt();
      }
      if (D == V) {
        Out.push_back({B, I});
        if (Loc.isInvalid() && Trigger)
          Loc = isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(Trigger)
                    ? Trigger->getBeginLoc()
                    : Trigger->getEndLoc();
      }
      ++I;
    }
  }
  return Out;
}

template <typename Fn>
bool Lifetimes::anyAfter(llvm::ArrayRef<Point> From, Fn &&Visit) {
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  for (const Point &P : From) {
    unsigned I = 0;
    for (const CFGElement &E : *P.Block)
      if (I++ > P.Index)
        if (Visit(E))
          return true;
    for (const CFGBlock *S : P.Block->succs())
      if (S && Seen.insert(S).second)
        Work.push_back(S);
  }
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    for (const CFGElement &E : *B)
      if (Visit(E))
        return true;
    for (const CFGBlock *S : B->succs())
      if (S && Seen.insert(S).second)
        Work.push_back(S);
  }
  return false;
}

/// Whether E evaluates to a tensor handle that is the only owner of its
/// memory: a new allocation (a factory, a function of no tensor that returns
/// by value), a view of one, or an empty handle. Copies and views of other
/// handles, and weak references, are not.
bool Lifetimes::isFresh(const Expr *E, unsigned Depth) const {
  E = peel(E);
  if (!E || Depth > 4)
    return false;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return CE->getNumArgs() == 0; // at::Tensor(): holds nothing
  if (const auto *IL = dyn_cast<InitListExpr>(E))
    return IL->getNumInits() == 0;
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || isa<CXXOperatorCallExpr>(Call) || Model.asConversion(Call) ||
      Call->getType()->isReferenceType() || !isTensorType(Call->getType()))
    return false;
  const FunctionDecl *Callee = Call->getDirectCallee();
  StringRef Name =
      Callee && Callee->getIdentifier() ? Callee->getName() : StringRef();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    return isFactoryName(Name) ||
           isFresh(MC->getImplicitObjectArgument(), Depth + 1);
  if (isFactoryName(Name))
    return true;
  if (!Callee || Callee->getReturnType()->isReferenceType())
    return false;
  for (const Expr *Arg : Call->arguments())
    if (isTensorType(Arg->getType()))
      return false; // may be a view of its argument
  return true;
}

/// `V = <fresh>` or `V.reset()`: the statement drops V's memory.
static bool dropsLocal(const Stmt *S, const VarDecl *V,
                       llvm::function_ref<bool(const Expr *)> Fresh) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    return BO->getOpcode() == BO_Assign && referencedVar(BO->getLHS()) == V &&
           Fresh(BO->getRHS());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
    return Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
           referencedVar(Op->getArg(0)) == V && Fresh(Op->getArg(1));
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    return M && M->getIdentifier() && M->getName() == "reset" &&
           referencedVar(MC->getImplicitObjectArgument()) == V;
  }
  return false;
}

/// Every value V is given (its initialiser, each assignment) owns its memory
/// alone; otherwise another handle may keep the memory alive.
bool Lifetimes::allDefinitionsFresh(const FunctionDecl *F, const VarDecl *V) {
  if (V->getInit() && !isFresh(V->getInit()))
    return false;
  const CFG *G = Model.cfgOf(F);
  if (!G)
    return false;
  for (const CFGBlock *B : *G)
    for (const CFGElement &E : *B) {
      auto CS = E.getAs<CFGStmt>();
      if (!CS)
        continue;
      const Stmt *S = CS->getStmt();
      const Expr *LHS = nullptr, *RHS = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(S);
          BO && BO->isAssignmentOp()) {
        LHS = BO->getLHS();
        RHS = BO->getOpcode() == BO_Assign ? BO->getRHS() : nullptr;
      } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
                 Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
        LHS = Op->getArg(0);
        RHS = Op->getOperator() == OO_Equal ? Op->getArg(1) : nullptr;
      }
      if (LHS && referencedVar(LHS) == V && (!RHS || !isFresh(RHS)))
        return false;
    }
  return true;
}

/// The first statements after At (on some path) that IsKill accepts, inside
/// the capture; the death is at the first one found.
std::optional<Death>
Lifetimes::killedAfter(const FunctionDecl *F, const Stmt *At,
                       llvm::function_ref<bool(const Stmt *)> IsKill,
                       llvm::SmallVectorImpl<const Stmt *> &Kills) {
  auto From = pointOf(F, At);
  if (!From)
    return std::nullopt;
  Death D;
  D.Fn = F;
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<std::pair<const CFGBlock *, unsigned>, 16> Work;
  Work.push_back({From->Block, From->Index + 1});
  while (!Work.empty()) {
    auto [B, Start] = Work.pop_back_val();
    bool Stopped = false;
    unsigned I = 0;
    for (const CFGElement &E : *B) {
      unsigned Here = I++;
      if (Here < Start)
        continue;
      auto CS = E.getAs<CFGStmt>();
      if (!CS || !IsKill(CS->getStmt()) || !Regions.at(F, CS->getStmt()))
        continue;
      if (!llvm::is_contained(Kills, CS->getStmt())) {
        Kills.push_back(CS->getStmt());
        D.After.push_back({B, Here});
        if (D.Loc.isInvalid())
          D.Loc = CS->getStmt()->getBeginLoc();
      }
      Stopped = true; // the memory is gone past this point on this path
      break;
    }
    if (Stopped)
      continue;
    for (const CFGBlock *S : B->succs())
      if (S && Seen.insert(S).second)
        Work.push_back({S, 0});
  }
  if (Kills.empty())
    return std::nullopt;
  return D;
}

/// Whether a use of V that can still see its old value (one reachable from
/// the entry without passing a kill) lets the value flow out.
bool Lifetimes::escapesBefore(const FunctionDecl *F, const VarDecl *V,
                              llvm::ArrayRef<const Stmt *> Kills) {
  const CFG *G = Model.cfgOf(F);
  if (!G)
    return true;
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work{&G->getEntry()};
  Seen.insert(&G->getEntry());
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    bool Stopped = false;
    for (const CFGElement &E : *B) {
      if (auto CS = E.getAs<CFGStmt>()) {
        if (llvm::is_contained(Kills, CS->getStmt())) {
          Stopped = true;
          break;
        }
        if (const auto *DRE = dyn_cast<DeclRefExpr>(CS->getStmt()))
          if (DRE->getDecl() == V && flowsOut(F, DRE, 0))
            return true;
        if (const auto *L = dyn_cast<LambdaExpr>(CS->getStmt()))
          for (const LambdaCapture &C : L->captures())
            if (C.capturesVariable() && C.getCapturedVar() == V)
              return true;
      }
    }
    if (Stopped)
      continue;
    for (const CFGBlock *S : B->succs())
      if (S && Seen.insert(S).second)
        Work.push_back(S);
  }
  return false;
}

/// Whether two member accesses name the same object's member: both on
/// `this`, or on the same variable.
static bool sameObject(const Expr *A, const Expr *B) {
  const auto *MA = dyn_cast_or_null<MemberExpr>(peel(A));
  const auto *MB = dyn_cast_or_null<MemberExpr>(peel(B));
  if (!MA || !MB)
    return !MA && !MB;
  const Expr *BA = MA->getBase()->IgnoreParenImpCasts();
  const Expr *BB = MB->getBase()->IgnoreParenImpCasts();
  if (isa<CXXThisExpr>(BA) && isa<CXXThisExpr>(BB))
    return true;
  const auto *DA = dyn_cast<DeclRefExpr>(BA);
  const auto *DB = dyn_cast<DeclRefExpr>(BB);
  return DA && DB && DA->getDecl() == DB->getDecl();
}

/// A global or member that is the only strong holder of its memory, and
/// that the same function reassigns or resets after the conversion, inside
/// the capture: the memory dies there.
std::optional<Death> Lifetimes::placeDeath(const FunctionDecl *F,
                                           const Expr *Src, const Stmt *At) {
  Place P = Where.placeOf(F, Src);
  if (!P || P.Slot || !isTensorType(P.Decl->getType()))
    return std::nullopt;
  if (const auto *V = dyn_cast<VarDecl>(P.Decl))
    if (V->getInit() && !isFresh(V->getInit()))
      return std::nullopt;
  llvm::SmallPtrSet<const Stmt *, 4> KillStmts;
  for (const PlaceAccess &A : Where.accesses(P.Decl)) {
    if (A.P.Slot)
      return std::nullopt; // also used as a container: not one handle
    switch (A.Kind) {
    case PlaceAccess::Write:
      // Every value it ever holds must be its own allocation.
      if (!A.Value || !isFresh(A.Value))
        return std::nullopt;
      break;
    case PlaceAccess::Clear:
      break;
    case PlaceAccess::Read:
      // A copy kept elsewhere (returned, stored, pushed) outlives the slot.
      if (flowsOut(A.Fn, A.E, 0))
        return std::nullopt;
      continue;
    }
    if (A.Fn == F && sameObject(A.E, Src))
      KillStmts.insert(A.Whole);
  }
  if (KillStmts.empty())
    return std::nullopt;
  llvm::SmallVector<const Stmt *, 2> Kills;
  return killedAfter(
      F, At, [&](const Stmt *S) { return KillStmts.count(S) != 0; }, Kills);
}

/// Whether the value E (holding some tensor's storage) can outlive F:
/// returned, stored in a place, kept by a container or a callee, captured.
bool Lifetimes::flowsOut(const FunctionDecl *F, const Expr *E, unsigned Depth) {
  if (Depth > 4)
    return true;
  const Stmt *Child = nullptr;
  const Stmt *Par = Where.valueParent(F, E);
  (void)Child;
  if (!Par)
    return false;
  if (isa<ReturnStmt, InitListExpr, LambdaExpr, CXXNewExpr>(Par))
    return true;
  auto IsE = [&](const Expr *X) {
    return X && peel(X) == peel(E);
  };
  auto StoredTo = [&](const Expr *LHS) {
    if (Where.placeOf(F, LHS))
      return true;
    const VarDecl *W = referencedVar(LHS);
    if (!W || !W->hasLocalStorage() || W->getType()->isReferenceType())
      return true;
    return escapes(F, W, Depth + 1);
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(Par))
    return BO->isAssignmentOp() && IsE(BO->getRHS()) && StoredTo(BO->getLHS());
  if (const auto *DS = dyn_cast<DeclStmt>(Par)) {
    for (const Decl *D : DS->decls())
      if (const auto *W = dyn_cast<VarDecl>(D))
        if (W->getInit() && IsE(W->getInit()))
          return !W->hasLocalStorage() || escapes(F, W, Depth + 1);
    return false;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Par)) {
    if (Model.asConversion(Call))
      return false;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2 && IsE(Op->getArg(1)))
        return StoredTo(Op->getArg(0));
      return false;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *M = MC->getMethodDecl();
      if (IsE(MC->getImplicitObjectArgument())) {
        // A method of the tensor itself: a view (or a copy) whose handle
        // may keep the storage; clone() makes new storage.
        if (!M || !isTensorType(MC->getType()) ||
            (M->getIdentifier() && isFactoryName(M->getName())))
          return false;
        return flowsOut(F, MC, Depth + 1);
      }
      if (M && M->getIdentifier() && isReplacingMethod(M->getName()))
        return true;
    }
    const FunctionDecl *Def = calleeDefinition(Call);
    if (!Def)
      return false; // an op: reads it, keeps nothing
    unsigned Shift = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I)
      if (IsE(Call->getArg(I))) {
        if (I < Shift || I - Shift >= Def->getNumParams())
          return true;
        if (escapes(Def, Def->getParamDecl(I - Shift), Depth + 1))
          return true;
      }
    return false;
  }
  if (isa<CXXConstructExpr>(Par) || isa<CXXFunctionalCastExpr>(Par))
    return true; // an aggregate or object holding it
  return false;
}

bool Lifetimes::escapes(const FunctionDecl *F, const VarDecl *V,
                        unsigned Depth) {
  if (Depth > 4)
    return true;
  for (const DeclRefExpr *U : uses(F, V))
    if (flowsOut(F, U, Depth))
      return true;
  // Captured by a lambda: its closure may outlive the call.
  if (const CFG *G = Model.cfgOf(F))
    for (const CFGBlock *B : *G)
      for (const CFGElement &E : *B)
        if (auto CS = E.getAs<CFGStmt>())
          if (const auto *L = dyn_cast<LambdaExpr>(CS->getStmt()))
            for (const LambdaCapture &C : L->captures())
              if (C.capturesVariable() && C.getCapturedVar() == V)
                return true;
  return false;
}

std::optional<Death> Lifetimes::ownerDeath(const FunctionDecl *F,
                                           const Expr *Src, const Stmt *At,
                                           unsigned Depth) {
  if (Depth > CaptureRegions::MaxDepth)
    return std::nullopt;
  const Expr *E = peel(Src);
  if (!E)
    return std::nullopt;
  // A fresh temporary: dies at the end of its full-expression.
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (Model.asConversion(Call) || Call->getType()->isReferenceType() ||
        !isTensorType(Call->getType()))
      return std::nullopt;
    const FunctionDecl *Callee = Call->getDirectCallee();
    StringRef Name =
        Callee && Callee->getIdentifier() ? Callee->getName() : StringRef();
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (!isFactoryName(Name)) // a view of the object: its owner's fate
        return ownerDeath(F, MC->getImplicitObjectArgument(), At, Depth + 1);
    } else if (isa<CXXOperatorCallExpr>(Call)) {
      return std::nullopt;
    } else if (!isFactoryName(Name)) {
      for (const Expr *Arg : Call->arguments())
        if (isTensorType(Arg->getType()))
          return std::nullopt; // may be a view of its argument
      if (!Callee || Callee->getReturnType()->isReferenceType())
        return std::nullopt;
    }
    Death D{Call->getBeginLoc(), F, {}};
    if (auto P = pointOf(F, At))
      D.After.push_back(*P);
    return D;
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage())
    // A global or member holds it past the capture, unless it is its only
    // holder and is reassigned or reset in the capture.
    return placeDeath(F, E, At);
  if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
    // The caller's argument is the strong reference that matters.
    unsigned Index = P->getFunctionScopeIndex();
    for (const CallSite &CS : Regions.callersOf(F)) {
      if (isa<CXXOperatorCallExpr>(CS.Call) || Index >= CS.Call->getNumArgs())
        continue;
      if (!Regions.at(CS.Caller, CS.Call))
        continue;
      if (auto D = ownerDeath(CS.Caller, CS.Call->getArg(Index), CS.Call,
                              Depth + 1))
        return D;
    }
    return std::nullopt;
  }
  if (V->getType()->isReferenceType() || V->isStaticLocal())
    return std::nullopt;
  if (!isTensorType(V->getType()) || !allDefinitionsFresh(F, V))
    return std::nullopt;
  // Reassigned from a new allocation or reset after the conversion, inside
  // the capture: the memory dies there, whatever V holds afterwards.
  llvm::SmallVector<const Stmt *, 2> Kills;
  if (auto K = killedAfter(
          F, At,
          [&](const Stmt *S) {
            return dropsLocal(S, V,
                              [&](const Expr *X) { return isFresh(X); });
          },
          Kills))
    return escapesBefore(F, V, Kills) ? std::nullopt : K;
  if (escapes(F, V, 0))
    return std::nullopt;
  SourceLocation Loc;
  auto Ends = lifetimeEnds(F, V, Loc);
  if (SourceLocation InRegion = Regions.deathInRegion(V); InRegion.isValid())
    return Death{InRegion, F, Ends};
  if (Regions.contextOf(F) && Loc.isValid())
    return Death{Loc, F, Ends};
  return std::nullopt;
}

bool Lifetimes::storesParam(const FunctionDecl *F, unsigned I, Place &P,
                            SourceLocation &Loc, unsigned Depth) {
  if (I >= F->getNumParams() || Depth > 4)
    return false;
  for (const DeclRefExpr *U : uses(F, F->getParamDecl(I)))
    if (auto Q = storeTarget(F, U, Loc, Depth + 1)) {
      P = *Q;
      return true;
    }
  return false;
}

/// The shared place the value E ends up in, if it is stored in one:
/// directly, through a local, or by a helper it is passed to.
std::optional<Place> Lifetimes::storeTarget(const FunctionDecl *F,
                                            const Expr *E, SourceLocation &Loc,
                                            unsigned Depth) {
  if (Depth > 4)
    return std::nullopt;
  const Stmt *Par = Where.valueParent(F, E);
  auto IsE = [&](const Expr *X) { return X && peel(X) == peel(E); };
  auto Into = [&](const Expr *LHS,
                  const Stmt *Whole) -> std::optional<Place> {
    if (Place P = Where.placeOf(F, LHS)) {
      Loc = Whole->getBeginLoc();
      return P;
    }
    if (const VarDecl *W = referencedVar(LHS))
      if (W->hasLocalStorage())
        for (const DeclRefExpr *U : uses(F, W))
          if (U != peel(LHS))
            if (auto P = storeTarget(F, U, Loc, Depth + 1))
              return P;
    return std::nullopt;
  };
  if (!Par)
    return std::nullopt;
  if (const auto *BO = dyn_cast<BinaryOperator>(Par)) {
    if (BO->getOpcode() == BO_Assign && IsE(BO->getRHS()))
      return Into(BO->getLHS(), BO);
    return std::nullopt;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(Par)) {
    for (const Decl *D : DS->decls())
      if (const auto *W = dyn_cast<VarDecl>(D))
        if (W->getInit() && IsE(W->getInit()) && W->hasLocalStorage())
          for (const DeclRefExpr *U : uses(F, W))
            if (auto P = storeTarget(F, U, Loc, Depth + 1))
              return P;
    return std::nullopt;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Par)) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        IsE(Op->getArg(1)))
      return Into(Op->getArg(0), Op);
    return std::nullopt;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Par)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (M && M->getIdentifier() && isReplacingMethod(M->getName()))
      if (Place P = Where.placeOf(F, MC->getImplicitObjectArgument())) {
        Loc = MC->getBeginLoc();
        return P;
      }
  }
  if (const auto *Call = dyn_cast<CallExpr>(Par)) {
    if (Model.asConversion(Call))
      return std::nullopt;
    const FunctionDecl *Def = calleeDefinition(Call);
    if (!Def || isa<CXXOperatorCallExpr>(Call))
      return std::nullopt;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I)
      if (IsE(Call->getArg(I))) {
        Place P;
        if (storesParam(Def, I, P, Loc, Depth + 1))
          return P;
      }
  }
  return std::nullopt;
}

std::optional<LaterUse> Lifetimes::laterUse(const FunctionDecl *F,
                                            const CallExpr *Conv,
                                            const Death &D) {
  SourceLocation StoreLoc;
  if (auto P = storeTarget(F, Conv, StoreLoc, 0)) {
    for (const PlaceAccess &A : Where.accesses(P->Decl)) {
      if (A.Kind != PlaceAccess::Read || !Regions.at(A.Fn, A.E))
        continue;
      if (const Expr *U = Where.opUse(A.Fn, A.E))
        return LaterUse{StoreLoc, Places::name(*P), U->getBeginLoc()};
    }
    return std::nullopt;
  }
  // Held in a local of F and used by an op after the owner died.
  if (D.Fn != F || D.After.empty())
    return std::nullopt;
  const VarDecl *W = nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(Where.valueParent(F, Conv)))
    for (const Decl *X : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(X))
        if (V->getInit() && peel(V->getInit()) == Conv)
          W = V;
  if (const auto *BO =
          dyn_cast_or_null<BinaryOperator>(Where.valueParent(F, Conv)))
    if (BO->getOpcode() == BO_Assign)
      W = referencedVar(BO->getLHS());
  if (const auto *Op =
          dyn_cast_or_null<CXXOperatorCallExpr>(Where.valueParent(F, Conv)))
    if (Op->getOperator() == OO_Equal)
      W = referencedVar(Op->getArg(0));
  if (!W || !W->hasLocalStorage())
    return std::nullopt;
  SourceLocation UseLoc;
  anyAfter(D.After, [&](const CFGElement &E) {
    auto CS = E.getAs<CFGStmt>();
    const auto *DRE = CS ? dyn_cast<DeclRefExpr>(CS->getStmt()) : nullptr;
    if (!DRE || DRE->getDecl() != W || !Regions.at(F, DRE))
      return false;
    if (const Expr *U = Where.opUse(F, DRE)) {
      UseLoc = U->getBeginLoc();
      return true;
    }
    return false;
  });
  if (UseLoc.isInvalid())
    return std::nullopt;
  return LaterUse{SourceLocation(), "", UseLoc};
}

} // namespace

void WeakRefBeforeCaptureEndCheck::run(const Analyses &A) {
  Lifetimes L(A.Model, A.Regions, A.Where);
  for (const FunctionDecl *F : A.Regions.functions()) {
    if (!A.Regions.touchesCapture(F))
      continue;
    const CFG *G = A.Model.cfgOf(F);
    for (const CFGBlock *B : *G)
      for (const CFGElement &E : *B) {
        auto CS = E.getAs<CFGStmt>();
        const auto *Call = CS ? dyn_cast<CallExpr>(CS->getStmt()) : nullptr;
        if (!Call)
          continue;
        const CaptureSite *Site = A.Regions.at(F, Call);
        if (!Site)
          continue;
        auto Conv = A.Model.asConversion(Call);
        if (!Conv || !Conv->Source)
          continue;
        auto D = L.ownerDeath(F, Conv->Source, Call, 0);
        if (!D)
          continue;
        auto U = L.laterUse(F, Call, *D);
        if (!U)
          continue;
        diag(Call->getBeginLoc(), msg::WeakRefBeforeCaptureEndWarning)
            << Call->getSourceRange();
        noteCapture(*Site, /*WithEnd=*/false);
        diag(D->Loc, msg::LastStrongRefDies, DiagnosticIDs::Note);
        if (U->Store.isValid())
          diag(U->Store, msg::StoredInSharedPlace, DiagnosticIDs::Note)
              << U->PlaceName;
        diag(U->Use, msg::LaterUseInCapture, DiagnosticIDs::Note);
        noteCaptureEnd(*Site);
      }
  }
}
