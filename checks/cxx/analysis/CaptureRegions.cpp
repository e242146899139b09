//===- CaptureRegions.cpp -------------------------------------------------===//
#include "CaptureRegions.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/Builtins.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include <deque>

using namespace clang;
using namespace tether;
using namespace tether::cxx;

const FunctionDecl *tether::cxx::calleeDefinition(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return nullptr;
  const FunctionDecl *Def = FD->getDefinition();
  return Def ? Def : nullptr;
}

namespace {
/// What closes an open region: the end names of its pair and the object or
/// stream it was opened on (null: any).
struct RegionMeta {
  const Decl *Key = nullptr;
  std::shared_ptr<NameSet> Ends; // null for a guard
};

using OpenSet = llvm::SmallVector<unsigned, 2>; // sorted region ids

bool addTo(OpenSet &To, unsigned Id) {
  auto It = llvm::lower_bound(To, Id);
  if (It != To.end() && *It == Id)
    return false;
  To.insert(It, Id);
  return true;
}

/// The declaration an object or stream expression names: a local, a global,
/// a member (by field), or null.
const Decl *keyOf(const Expr *E) {
  E = peel(E);
  if (!E)
    return nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf || U->getOpcode() == UO_Deref)
      return keyOf(U->getSubExpr());
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl()->getCanonicalDecl();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl()->getCanonicalDecl();
  return nullptr;
}

const Decl *callKey(const CallExpr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    return keyOf(MC->getImplicitObjectArgument());
  return Call->getNumArgs() ? keyOf(Call->getArg(0)) : nullptr;
}

std::string qualifiedName(const NamedDecl *D) {
  return D->getIdentifier() || isa<CXXMethodDecl>(D)
             ? D->getQualifiedNameAsString()
             : std::string();
}
} // namespace

/// Whether E (peeled) names a catalog capture predicate: a call of one
/// (`c10_npu::is_current_stream_capturing()`,
/// `at::cuda::currentStreamCaptureStatus()`) or a member (`ctx.capturing`).
static bool isPredicate(const Expr *E, const CompiledCatalog &Catalog) {
  E = peel(E);
  const NamedDecl *D = nullptr;
  if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
    D = Call->getDirectCallee();
  else if (const auto *ME = dyn_cast_or_null<MemberExpr>(E))
    D = ME->getMemberDecl();
  return D && D->getIdentifier() &&
         Catalog.CapturePredicates.matches(D->getQualifiedNameAsString());
}

int CaptureRegions::predicateSense(const Expr *Cond, const FunctionDecl *F,
                                   unsigned Depth) const {
  int Sense = 1;
  for (unsigned Peeled = 0; Cond && Peeled < 8; ++Peeled) {
    Cond = peel(Cond);
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(Cond);
        U && U->getOpcode() == UO_LNot) {
      Sense = -Sense;
      Cond = U->getSubExpr();
      continue;
    }
    if (const auto *Call = dyn_cast_or_null<CallExpr>(Cond);
        Call && Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
        Call->getNumArgs() == 2) {
      Cond = Call->getArg(0);
      continue;
    }
    break;
  }
  if (!Cond)
    return 0;
  // A capture status compared with an enumerator: `!= CaptureStatus::None`
  // and `== CaptureStatus::Active` hold while capturing.
  const Expr *L = nullptr, *R = nullptr;
  bool Eq = false;
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond);
      BO && (BO->getOpcode() == BO_EQ || BO->getOpcode() == BO_NE)) {
    L = BO->getLHS();
    R = BO->getRHS();
    Eq = BO->getOpcode() == BO_EQ;
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond);
             Op && Op->getNumArgs() == 2 &&
             (Op->getOperator() == OO_EqualEqual ||
              Op->getOperator() == OO_ExclaimEqual)) {
    L = Op->getArg(0);
    R = Op->getArg(1);
    Eq = Op->getOperator() == OO_EqualEqual;
  }
  if (L) {
    for (auto [Status, Value] : {std::pair(L, R), std::pair(R, L)}) {
      if (!isPredicate(Status, Catalog))
        continue;
      const auto *DRE = dyn_cast_or_null<DeclRefExpr>(peel(Value));
      const auto *EC =
          DRE ? dyn_cast<EnumConstantDecl>(DRE->getDecl()) : nullptr;
      if (!EC || !EC->getIdentifier())
        return 0;
      if (EC->getName() == "None")
        return Eq ? -Sense : Sense;
      if (EC->getName() == "Active")
        return Eq ? Sense : -Sense;
      return 0;
    }
    return 0;
  }
  if (Cond->getType()->isBooleanType() && isPredicate(Cond, Catalog))
    return Sense;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Cond))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (int Stored = storedPredicateSense(V, F, Depth))
        return Sense * Stored;
  return 0;
}

int CaptureRegions::storedPredicateSense(const VarDecl *V, const FunctionDecl *F,
                                         unsigned Depth) const {
  if (Depth >= 4 || !V->isLocalVarDecl() || !V->getType()->isBooleanType() ||
      !V->getInit() || !F->hasBody() || V->getDeclContext() != F)
    return 0;
  auto [It, New] = StoredSense.try_emplace(V, 0);
  if (!New)
    return It->second;
  int Sense = predicateSense(V->getInit(), F, Depth + 1);
  // Only a local that keeps its initial value stands for the predicate: the
  // (costlier) mutation analysis runs just for locals that hold one.
  if (Sense != 0 && !V->getType().isConstQualified() &&
      ExprMutationAnalyzer(*F->getBody(), F->getASTContext()).isMutated(V))
    Sense = 0;
  StoredSense[V] = Sense;
  return Sense;
}

CaptureRegions::CaptureRegions(const WeakRefModel &Model,
                               const CompiledCatalog &Catalog)
    : Model(Model), Catalog(Catalog) {}
CaptureRegions::~CaptureRegions() = default;

void CaptureRegions::compute(ArrayRef<const FunctionDecl *> Defs) {
  for (const FunctionDecl *F : Defs)
    if (const CFG *G = Model.cfgOf(F)) {
      Functions.push_back(F);
      analyseLocal(F, *G);
    }
  propagate();
}

void CaptureRegions::analyseLocal(const FunctionDecl *F, const CFG &G) {
  std::vector<RegionMeta> Meta;
  llvm::DenseMap<const Stmt *, unsigned> RegionOf; // begin stmt -> id
  llvm::DenseMap<unsigned, CaptureRegion *> RegionById;
  llvm::DenseMap<const CallExpr *, int> Role; // 1 begin, 2 end, 0 none
  llvm::DenseMap<unsigned, const CaptureSite *> SiteById;
  llvm::DenseSet<const CallExpr *> SeenCalls;

  auto RoleOf = [&](const CallExpr *Call) {
    auto [It, New] = Role.try_emplace(Call, 0);
    if (!New)
      return It->second;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return 0;
    std::string Name = qualifiedName(Callee);
    if (Name.empty())
      return 0;
    if (Catalog.CaptureBegins.matches(Name))
      It->second = 1;
    else if (Catalog.CaptureEnds.matches(Name))
      It->second = 2;
    return It->second;
  };
  auto IsGuard = [&](const VarDecl *V) {
    const CXXRecordDecl *RD =
        V->getType().getNonReferenceType()->getAsCXXRecordDecl();
    return RD && !V->getType()->isReferenceType() && RD->getIdentifier() &&
           Catalog.CaptureGuards.matches(RD->getQualifiedNameAsString());
  };
  auto Open = [&](const Stmt *S, SourceLocation Loc, const Decl *Key,
                  std::shared_ptr<NameSet> Ends) -> unsigned {
    auto [It, New] = RegionOf.try_emplace(S, Meta.size());
    if (New) {
      Meta.push_back({Key, std::move(Ends)});
      auto R = std::make_unique<CaptureRegion>();
      R->Fn = F;
      R->Begin = Loc;
      RegionById[It->second] = R.get();
      auto Site = std::make_unique<CaptureSite>();
      Site->Region = R.get();
      SiteById[It->second] = Site.get();
      Regions.push_back(std::move(R));
      Sites.push_back(std::move(Site));
    }
    return It->second;
  };
  auto AddEnd = [&](unsigned Id, SourceLocation Loc) {
    auto &Ends = RegionById[Id]->Ends;
    if (Loc.isValid() && !llvm::is_contained(Ends, Loc))
      Ends.push_back(Loc);
  };

  auto Transfer = [&](const CFGElement &E, OpenSet &St) {
    if (auto CS = E.getAs<CFGStmt>()) {
      const Stmt *S = CS->getStmt();
      if (!St.empty())
        LocalSite.try_emplace(S, SiteById[St.front()]);
      if (const auto *Call = dyn_cast<CallExpr>(S)) {
        if (const FunctionDecl *Def = calleeDefinition(Call))
          if (Model.cfgOf(Def)) {
            if (SeenCalls.insert(Call).second) {
              CallsIn[F].push_back(Call);
              Callers[Def].push_back({F, Call});
            }
          }
        int R = RoleOf(Call);
        if (R == 1) {
          std::string Name = qualifiedName(Call->getDirectCallee());
          std::string End = Catalog.endFor(Name);
          auto Ends = std::make_shared<NameSet>(
              End.empty() ? std::vector<std::string>{}
                          : std::vector<std::string>{End});
          addTo(St, Open(Call, Call->getBeginLoc(), callKey(Call), Ends));
        } else if (R == 2) {
          std::string Name = qualifiedName(Call->getDirectCallee());
          const Decl *Key = callKey(Call);
          for (unsigned I = St.size(); I-- > 0;) {
            const RegionMeta &M = Meta[St[I]];
            if (!M.Ends || !M.Ends->matches(Name))
              continue;
            if (M.Key && Key && M.Key != Key)
              continue;
            AddEnd(St[I], Call->getBeginLoc());
            St.erase(St.begin() + I);
          }
        }
      } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D))
            if (V->hasLocalStorage() && IsGuard(V))
              addTo(St, Open(DS, V->getLocation(), V, nullptr));
      }
      return;
    }
    // A local's lifetime ends: a guard closes its region; any other local
    // dying while a region is open dies inside it.
    const VarDecl *V = nullptr;
    const Stmt *Trigger = nullptr;
    if (auto D = E.getAs<CFGAutomaticObjDtor>()) {
      V = D->getVarDecl();
      Trigger = D->getTriggerStmt();
    } else if (auto L = E.getAs<CFGLifetimeEnds>()) {
      V = L->getVarDecl();
      Trigger = L->getTriggerStmt();
    }
    if (!V)
      return;
    SourceLocation Loc = Trigger ? Trigger->getEndLoc() : V->getEndLoc();
    if (Trigger && isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(Trigger))
      Loc = Trigger->getBeginLoc();
    for (unsigned I = St.size(); I-- > 0;)
      if (!Meta[St[I]].Ends && Meta[St[I]].Key == V) {
        AddEnd(St[I], Loc);
        St.erase(St.begin() + I);
      }
    if (!St.empty())
      Deaths.try_emplace(V, Loc);
  };

  // Forward may-analysis: the union of open regions over the predecessors.
  std::vector<OpenSet> In(G.getNumBlockIDs());
  ForwardWorklist Work(G);
  while (const CFGBlock *B = Work.next()) {
    OpenSet St = In[B->getBlockID()];
    for (const CFGElement &E : *B)
      Transfer(E, St);
    if (const Stmt *T = B->getTerminatorStmt())
      if (!St.empty())
        LocalSite.try_emplace(T, SiteById[St.front()]);
    // A branch on a capture predicate: the edge where it holds enters a
    // capture that lasts to the function's exit (`if (ctx.capturing) {..}`,
    // `if (!is_current_stream_capturing()) return;`).
    const auto *Cond = B->succ_size() == 2
                           ? dyn_cast_or_null<Expr>(B->getTerminatorCondition())
                           : nullptr;
    int Sense = Cond ? predicateSense(Cond, F) : 0;
    unsigned Edge = 0;
    for (const CFGBlock *Succ : B->succs()) {
      bool Capturing = Sense != 0 && (Edge++ == 0) == (Sense > 0);
      if (!Succ)
        continue;
      bool Changed = false;
      if (Capturing)
        Changed |= addTo(In[Succ->getBlockID()],
                         Open(Cond, Cond->getBeginLoc(), nullptr, nullptr));
      for (unsigned Id : St)
        Changed |= addTo(In[Succ->getBlockID()], Id);
      if (Changed)
        Work.revisit(Succ);
    }
  }
  if (!RegionOf.empty())
    HasLocalRegion[F] = true;
}

void CaptureRegions::propagate() {
  // Breadth-first from every in-capture call, so each function keeps the
  // shortest chain; a function is entered once, which also cuts cycles.
  std::deque<const FunctionDecl *> Work;
  auto Enter = [&](const CallExpr *Call, const CaptureSite &From) {
    const FunctionDecl *Callee = calleeDefinition(Call);
    if (!Callee || Context.count(Callee) || From.Chain.size() >= MaxDepth)
      return;
    auto Site = std::make_unique<CaptureSite>(From);
    Site->Chain.push_back(Call);
    Context[Callee] = Site.get();
    Sites.push_back(std::move(Site));
    Work.push_back(Callee);
  };
  for (const FunctionDecl *F : Functions) {
    auto It = CallsIn.find(F);
    if (It == CallsIn.end())
      continue;
    for (const CallExpr *Call : It->second)
      if (const CaptureSite *S = LocalSite.lookup(Call))
        Enter(Call, *S);
  }
  while (!Work.empty()) {
    const FunctionDecl *F = Work.front();
    Work.pop_front();
    const CaptureSite *S = Context.lookup(F);
    auto It = CallsIn.find(F);
    if (It == CallsIn.end())
      continue;
    for (const CallExpr *Call : It->second)
      Enter(Call, *S);
  }
}

const CaptureSite *CaptureRegions::at(const FunctionDecl *F,
                                      const Stmt *S) const {
  if (const CaptureSite *L = LocalSite.lookup(S))
    return L;
  return contextOf(F);
}

const CaptureSite *CaptureRegions::contextOf(const FunctionDecl *F) const {
  if (!F)
    return nullptr;
  if (const FunctionDecl *Def = F->getDefinition())
    F = Def;
  return Context.lookup(F);
}

bool CaptureRegions::touchesCapture(const FunctionDecl *F) const {
  return contextOf(F) || HasLocalRegion.lookup(F);
}

SourceLocation CaptureRegions::deathInRegion(const VarDecl *V) const {
  return Deaths.lookup(V);
}

ArrayRef<CallSite> CaptureRegions::callersOf(const FunctionDecl *F) const {
  if (const FunctionDecl *Def = F ? F->getDefinition() : nullptr)
    F = Def;
  auto It = Callers.find(F);
  return It == Callers.end() ? ArrayRef<CallSite>() : ArrayRef(It->second);
}
