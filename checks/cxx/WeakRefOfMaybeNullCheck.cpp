//===- WeakRefOfMaybeNullCheck.cpp ----------------------------------------===//
//
// A forward may-analysis on each function's CFG of which handles may be
// empty, keyed by access path (a local, or one member of a local such as
// `kv.second`), with the reason kept for the note. Branch conditions refine
// it per edge: on the edge where `t.defined()` / `opt` / `opt.has_value()`
// holds, the handle is known to be non-empty (so `if`, early `continue` or
// `return`, and TORCH_CHECK's no-return failure path all guard).
//
//===----------------------------------------------------------------------===//
#include "WeakRefOfMaybeNullCheck.h"
#include "common/Messages.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/PostOrderIterator.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
namespace msg = tether::msg;

namespace {

using Key = std::pair<const ValueDecl *, const ValueDecl *>; // (var, member)
using State = llvm::SmallDenseMap<Key, SourceLocation, 4>;

bool isOptionalType(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || RD->getName() != "optional")
    return false;
  const auto *TS = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  return TS && TS->getTemplateArgs().size() == 1 &&
         isTensorType(TS->getTemplateArgs()[0].getAsType());
}

const Expr *strip(const Expr *E) {
  for (;;) {
    E = peel(E);
    if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
      if (Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
          Call->getNumArgs() == 2) {
        E = Call->getArg(0);
        continue;
      }
    return E;
  }
}

/// The access path an expression denotes: a local (or parameter, binding),
/// or a member of one (`kv.second`, `it->second`).
std::optional<Key> keyOf(const Expr *E) {
  E = strip(E);
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (isa<BindingDecl>(D) ||
        (isa<VarDecl>(D) && cast<VarDecl>(D)->hasLocalStorage()))
      return Key{D, nullptr};
    return std::nullopt;
  }
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(E)) {
    if (!isa<FieldDecl>(ME->getMemberDecl()))
      return std::nullopt;
    const Expr *Base = strip(ME->getBase());
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Base))
      if (Op->getOperator() == OO_Arrow)
        Base = strip(Op->getArg(0));
    if (auto K = keyOf(Base); K && !K->second)
      return Key{K->first, ME->getMemberDecl()};
  }
  return std::nullopt;
}

/// Whether E is an empty value: a default-constructed tensor, `{}`,
/// std::nullopt, an empty optional.
bool isEmptyValue(const Expr *E) {
  E = strip(E);
  if (!E)
    return false;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return CE->getNumArgs() == 0 ||
           (CE->getNumArgs() >= 1 && isa<CXXDefaultArgExpr>(CE->getArg(0)));
  if (const auto *IL = dyn_cast<InitListExpr>(E))
    return IL->getNumInits() == 0;
  if (isa<CXXScalarValueInitExpr>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl()->getName() == "nullopt";
  return false;
}

class MaybeEmpty {
public:
  MaybeEmpty(const WeakRefModel &Model, const Places &Where)
      : Model(Model), Where(Where) {
    // Places some write fills with an empty value.
    for (const ValueDecl *D : Where.declarations())
      for (const PlaceAccess &A : Where.accesses(D))
        if (A.Kind == PlaceAccess::Write && A.P.Slot && A.Value &&
            isEmptyValue(A.Value))
          EmptySlots.try_emplace(D, A.Whole->getBeginLoc());
  }

  /// Why E (in F, under state St) may be empty; invalid when it may not.
  SourceLocation reason(const FunctionDecl *F, const Expr *E,
                        const State &St) const;
  void analyse(const FunctionDecl *F,
               llvm::function_ref<void(const CallExpr *, SourceLocation)> Report);

private:
  void assign(const FunctionDecl *F, Key K, QualType T, const Expr *Init,
              SourceLocation DeclLoc, State &St) const;
  void transfer(const FunctionDecl *F, const Stmt *S, State &St,
                llvm::DenseMap<const VarDecl *, const Expr *> &RangeOf) const;

  const WeakRefModel &Model;
  const Places &Where;
  llvm::DenseMap<const ValueDecl *, SourceLocation> EmptySlots;
};

SourceLocation MaybeEmpty::reason(const FunctionDecl *F, const Expr *E,
                                  const State &St) const {
  E = strip(E);
  if (!E)
    return {};
  if (isEmptyValue(E))
    return E->getBeginLoc();
  // *opt, opt.value_or({}).
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Star && Op->getNumArgs() == 1 &&
        isOptionalType(Op->getArg(0)->getType()))
      if (auto K = keyOf(Op->getArg(0)))
        if (auto It = St.find(*K); It != St.end())
          return It->second;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (M && M->getIdentifier() && M->getName() == "value_or" &&
        MC->getNumArgs() == 1 && isEmptyValue(MC->getArg(0)))
      return MC->getBeginLoc();
  }
  // A local (or a member of one) is tracked by the flow, which knows the
  // guards on the path.
  if (auto K = keyOf(E)) {
    auto It = St.find(*K);
    return It != St.end() && isTensorType(E->getType()) ? It->second
                                                        : SourceLocation();
  }
  // A slot of a container that holds empty tensors.
  if (Place P = Where.placeOf(F, E); P && P.Slot && isTensorType(E->getType()))
    if (auto It = EmptySlots.find(P.Decl); It != EmptySlots.end())
      return It->second;
  return {};
}

void MaybeEmpty::assign(const FunctionDecl *F, Key K, QualType T,
                        const Expr *Init, SourceLocation DeclLoc,
                        State &St) const {
  if (isOptionalType(T)) {
    // An optional is empty until proven otherwise only when built empty.
    if (!Init || isEmptyValue(Init))
      St[K] = Init ? Init->getBeginLoc() : DeclLoc;
    else if (auto From = keyOf(Init); From && St.count(*From))
      St[K] = St.lookup(*From);
    else
      St.erase(K);
    return;
  }
  if (!isTensorType(T) || (T->isReferenceType() && !Init))
    return;
  SourceLocation Why = Init ? reason(F, Init, St) : DeclLoc;
  if (Why.isValid())
    St[K] = Why;
  else
    St.erase(K);
}

void MaybeEmpty::transfer(
    const FunctionDecl *F, const Stmt *S, State &St,
    llvm::DenseMap<const VarDecl *, const Expr *> &RangeOf) const {
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->hasLocalStorage())
        continue;
      // A loop variable over a container's entries.
      if (auto It = RangeOf.find(V); It != RangeOf.end()) {
        Place P = Where.placeOf(F, It->second);
        auto E = P ? EmptySlots.find(P.Decl) : EmptySlots.end();
        SourceLocation Why = E == EmptySlots.end() ? SourceLocation() : E->second;
        llvm::SmallVector<Key, 2> Keys;
        if (const auto *DD = dyn_cast<DecompositionDecl>(V)) {
          for (const BindingDecl *B : DD->bindings())
            if (isTensorType(B->getType()))
              Keys.push_back({B, nullptr});
        } else if (const CXXRecordDecl *RD =
                       V->getType().getNonReferenceType()->getAsCXXRecordDecl()) {
          for (const FieldDecl *FD : RD->fields())
            if (isTensorType(FD->getType()))
              Keys.push_back({V, FD});
          if (isTensorType(V->getType()))
            Keys.push_back({V, nullptr});
        }
        for (Key K : Keys) {
          if (Why.isValid())
            St[K] = Why;
          else
            St.erase(K);
        }
        continue;
      }
      if (V->getType()->isReferenceType() && !V->getInit())
        continue;
      if (!V->getInit() && isTensorType(V->getType()))
        St[{V, nullptr}] = V->getLocation();
      else
        assign(F, {V, nullptr}, V->getType(), V->getInit(), V->getLocation(),
               St);
    }
    return;
  }
  const Expr *LHS = nullptr, *RHS = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->getOpcode() == BO_Assign) {
      LHS = BO->getLHS();
      RHS = BO->getRHS();
    }
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      LHS = Op->getArg(0);
      RHS = Op->getArg(1);
    }
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    // t.reset() empties a tensor or an optional; opt.emplace(x) fills it.
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (M && M->getIdentifier())
      if (auto K = keyOf(MC->getImplicitObjectArgument())) {
        if (M->getName() == "reset")
          St[*K] = MC->getBeginLoc();
        else if (M->getName() == "emplace")
          St.erase(*K);
      }
    return;
  }
  if (LHS)
    if (auto K = keyOf(LHS))
      assign(F, *K, LHS->getType(), RHS, LHS->getBeginLoc(), St);
}

/// The handle a branch condition tests, and whether "true" means non-empty.
std::optional<std::pair<Key, bool>> testOf(const Expr *Cond) {
  bool Positive = true;
  for (;;) {
    Cond = strip(Cond);
    if (!Cond)
      return std::nullopt;
    if (const auto *U = dyn_cast<UnaryOperator>(Cond); U && U->getOpcode() == UO_LNot) {
      Positive = !Positive;
      Cond = U->getSubExpr();
      continue;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Cond)) {
      const CXXMethodDecl *M = MC->getMethodDecl();
      if (!M)
        return std::nullopt;
      bool Conv = isa<CXXConversionDecl>(M);
      if (Conv || (M->getIdentifier() &&
                   (M->getName() == "defined" || M->getName() == "has_value")))
        if (auto K = keyOf(MC->getImplicitObjectArgument()))
          return std::make_pair(*K, Positive);
      return std::nullopt;
    }
    // opt != std::nullopt, opt == std::nullopt
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond)) {
      if ((Op->getOperator() == OO_EqualEqual ||
           Op->getOperator() == OO_ExclaimEqual) &&
          Op->getNumArgs() == 2) {
        const Expr *Other = nullptr;
        std::optional<Key> K;
        if ((K = keyOf(Op->getArg(0))))
          Other = Op->getArg(1);
        else if ((K = keyOf(Op->getArg(1))))
          Other = Op->getArg(0);
        if (K && isEmptyValue(Other))
          return std::make_pair(
              *K, Op->getOperator() == OO_ExclaimEqual ? Positive : !Positive);
      }
      return std::nullopt;
    }
    return std::nullopt;
  }
}

void MaybeEmpty::analyse(
    const FunctionDecl *F,
    llvm::function_ref<void(const CallExpr *, SourceLocation)> Report) {
  const CFG *G = Model.cfgOf(F);
  if (!G)
    return;
  llvm::DenseMap<const VarDecl *, const Expr *> RangeOf;
  for (const CFGBlock *B : *G)
    if (const auto *FR = dyn_cast_or_null<CXXForRangeStmt>(B->getTerminatorStmt()))
      if (const VarDecl *V = FR->getLoopVariable())
        RangeOf[V] = FR->getRangeInit();

  std::vector<State> In(G->getNumBlockIDs());
  // Optional parameters may be empty on entry.
  for (const ParmVarDecl *P : F->parameters())
    if (isOptionalType(P->getType()))
      In[G->getEntry().getBlockID()][{P, nullptr}] = P->getLocation();
  ForwardWorklist Work(*G);
  auto Flow = [&](const CFGBlock *To, const State &St) {
    State &Dst = In[To->getBlockID()];
    bool Changed = false;
    for (const auto &[K, L] : St)
      Changed |= Dst.try_emplace(K, L).second;
    if (Changed)
      Work.revisit(To);
  };
  while (const CFGBlock *B = Work.next()) {
    State St = In[B->getBlockID()];
    for (const CFGElement &E : *B)
      if (auto CS = E.getAs<CFGStmt>())
        transfer(F, CS->getStmt(), St, RangeOf);
    std::optional<std::pair<Key, bool>> Test;
    if (const auto *Cond = dyn_cast_or_null<Expr>(B->getTerminatorCondition()))
      if (B->succ_size() == 2)
        Test = testOf(Cond);
    unsigned I = 0;
    for (const CFGBlock *Succ : B->succs()) {
      bool TrueEdge = I++ == 0;
      if (!Succ)
        continue;
      if (Test && Test->second == TrueEdge && St.count(Test->first)) {
        State Refined = St;
        Refined.erase(Test->first);
        Flow(Succ, Refined);
      } else {
        Flow(Succ, St);
      }
    }
  }
  // Report with the settled states.
  for (const CFGBlock *B : *G) {
    State St = In[B->getBlockID()];
    for (const CFGElement &E : *B) {
      auto CS = E.getAs<CFGStmt>();
      if (!CS)
        continue;
      if (const auto *Call = dyn_cast<CallExpr>(CS->getStmt()))
        if (auto Conv = Model.asConversion(Call))
          if (Conv->Source)
            if (SourceLocation Why = reason(F, Conv->Source, St); Why.isValid())
              Report(Call, Why);
      transfer(F, CS->getStmt(), St, RangeOf);
    }
  }
}

} // namespace

void WeakRefOfMaybeNullCheck::run(const Analyses &A) {
  MaybeEmpty Analysis(A.Model, A.Where);
  for (const FunctionDecl *F : A.Regions.functions())
    Analysis.analyse(F, [&](const CallExpr *Call, SourceLocation Why) {
      diag(Call->getBeginLoc(), msg::WeakRefOfMaybeNullWarning)
          << Call->getSourceRange();
      diag(Why, msg::MaybeNullSource, DiagnosticIDs::Note);
    });
}
