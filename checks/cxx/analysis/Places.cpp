//===- Places.cpp ---------------------------------------------------------===//
#include "Places.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;

bool tether::cxx::isReplacingMethod(StringRef Name) {
  return Name == "insert" || Name == "emplace" || Name == "insert_or_assign" ||
         Name == "try_emplace" || Name == "push_back" ||
         Name == "emplace_back" || Name == "assign" || Name == "swap" ||
         Name == "set_" || Name == "emplace_hint";
}

bool tether::cxx::isClearingMethod(StringRef Name) {
  return Name == "clear" || Name == "erase" || Name == "reset" ||
         Name == "pop_back" || Name == "pop_front";
}

bool tether::cxx::isTensorType(QualType T) {
  T = T.getNonReferenceType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         (RD->getName() == "Tensor" || RD->getName() == "TensorBase");
}

static bool isLookupMethod(StringRef Name) {
  return Name == "at" || Name == "operator[]" || Name == "value" ||
         Name == "front" || Name == "back" || Name == "find" ||
         Name == "begin" || Name == "lower_bound" || Name == "get" ||
         Name == "operator*" || Name == "operator->";
}

static bool inSystemHeader(const Decl *D) {
  return D->getASTContext().getSourceManager().isInSystemHeader(
      D->getLocation());
}

Places::Places(const CaptureRegions &Regions) : Regions(Regions) {
  for (const FunctionDecl *F : Regions.functions())
    index(F);
}
Places::~Places() = default;

const ParentMap &Places::parents(const FunctionDecl *F) const {
  auto &PM = ParentMaps[F];
  if (!PM)
    PM = std::make_unique<ParentMap>(const_cast<Stmt *>(F->getBody()));
  return *PM;
}

const Expr *Places::placeBinding(const VarDecl *V) const {
  if (auto It = RangeOf.find(V); It != RangeOf.end())
    return It->second;
  if (V->getType()->isReferenceType() && V->getInit())
    return V->getInit();
  // An iterator into a container denotes its slots.
  if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(
          V->getInit() ? peel(V->getInit()) : nullptr))
    if (MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
        isLookupMethod(MC->getMethodDecl()->getName()))
      return MC;
  return nullptr;
}

Place Places::placeOf(const FunctionDecl *F, const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    E = peel(E);
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() != UO_Deref)
        return {};
      E = U->getSubExpr();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V)
        return {};
      if (!V->hasLocalStorage())
        return inSystemHeader(V) ? Place() : Place{V->getCanonicalDecl()};
      const Expr *Bound = placeBinding(V);
      if (!Bound)
        return {};
      Place P = placeOf(F, Bound);
      if (P && RangeOf.count(V))
        P.Slot = true;
      return P;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (!isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
        if (Place B = placeOf(F, ME->getBase()); B && B.Slot)
          return B;
      const ValueDecl *M = ME->getMemberDecl();
      if (isa<FieldDecl>(M) || (isa<VarDecl>(M) && !cast<VarDecl>(M)->hasLocalStorage()))
        return inSystemHeader(M) ? Place()
                                 : Place{cast<ValueDecl>(M->getCanonicalDecl())};
      return {};
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      OverloadedOperatorKind K = Op->getOperator();
      if (K == OO_Subscript && Op->getNumArgs() == 2) {
        Place B = placeOf(F, Op->getArg(0));
        if (B)
          return {B.Decl, true, Op->getArg(1)};
        return {};
      }
      if ((K == OO_Arrow || K == OO_Star) && Op->getNumArgs() >= 1) {
        E = Op->getArg(0);
        continue;
      }
      return {};
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *M = MC->getMethodDecl();
      if (!M || !M->getIdentifier() || !isLookupMethod(M->getName()))
        return {};
      Place B = placeOf(F, MC->getImplicitObjectArgument());
      if (B)
        return {B.Decl, true, MC->getNumArgs() ? MC->getArg(0) : B.Key};
      return {};
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // A user accessor returning a reference to a place:
      //   std::map<..> &cache() { static std::map<..> c; return c; }
      // Only an accessor the model analysed: its body is whole.
      const FunctionDecl *Def = calleeDefinition(Call);
      if (!Def || !Def->getReturnType()->isReferenceType() ||
          !Regions.model().cfgOf(Def) || inSystemHeader(Def))
        return {};
      const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
      const ReturnStmt *Ret = nullptr;
      if (Body)
        for (const Stmt *S : Body->body())
          if ((Ret = dyn_cast<ReturnStmt>(S)))
            break;
      if (!Ret || !Ret->getRetValue())
        return {};
      F = Def;
      E = Ret->getRetValue();
      continue;
    }
    return {};
  }
  return {};
}

/// Skip the nodes between an expression and the one that uses its value.
static const Stmt *skipUp(const ParentMap &PM, const Stmt *S,
                          const Stmt **Child = nullptr) {
  const Stmt *Par = PM.getParent(S);
  while (Par && (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
                     CXXBindTemporaryExpr, ExprWithCleanups>(Par) ||
                 (isa<CXXConstructExpr>(Par) &&
                  cast<CXXConstructExpr>(Par)->getNumArgs() == 1))) {
    S = Par;
    Par = PM.getParent(S);
  }
  if (Child)
    *Child = S;
  return Par;
}

const Stmt *Places::valueParent(const FunctionDecl *F, const Expr *E) const {
  return skipUp(parents(F), E);
}

void Places::index(const FunctionDecl *F) {
  const CFG *G = Regions.model().cfgOf(F);
  if (!G || !F->getBody())
    return;
  for (const CFGBlock *B : *G)
    if (const auto *FR = dyn_cast_or_null<CXXForRangeStmt>(B->getTerminatorStmt()))
      if (FR->getLoopVariable())
        RangeOf[FR->getLoopVariable()] = FR->getRangeInit();
  const ParentMap &PM = parents(F);
  for (const CFGBlock *B : *G)
    for (const CFGElement &El : *B) {
      auto CS = El.getAs<CFGStmt>();
      if (!CS)
        continue;
      const auto *Leaf = dyn_cast<Expr>(CS->getStmt());
      if (!Leaf)
        continue;
      if (const auto *ME = dyn_cast<MemberExpr>(Leaf)) {
        if (!isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()) &&
            placeOf(F, ME->getBase()))
          continue; // reached from its base
      } else if (!isa<DeclRefExpr>(Leaf)) {
        continue;
      }
      Place P = placeOf(F, Leaf);
      if (!P)
        continue;
      // Climb to the whole place expression (`m[k]`, `it->second`).
      const Expr *Cur = Leaf;
      for (;;) {
        const Stmt *Child = nullptr;
        const Stmt *Par = skipUp(PM, Cur, &Child);
        const Expr *Up = dyn_cast_or_null<Expr>(Par);
        if (const auto *MethodRef = dyn_cast_or_null<MemberExpr>(Up))
          if (isa<CXXMethodDecl>(MethodRef->getMemberDecl()))
            Up = dyn_cast_or_null<CXXMemberCallExpr>(PM.getParent(MethodRef));
        if (!Up)
          break;
        Place Q = placeOf(F, Up);
        if (!Q || Q.Decl != P.Decl)
          break;
        Cur = Up;
        P = Q;
      }
      PlaceAccess A{PlaceAccess::Read, F, Cur, P, nullptr, Cur};
      const Stmt *Child = nullptr;
      const Stmt *Par = skipUp(PM, Cur, &Child);
      if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Par)) {
        if (BO->isAssignmentOp() && BO->getLHS()->IgnoreParenImpCasts() ==
                                        Cur->IgnoreParenImpCasts()) {
          A.Kind = PlaceAccess::Write;
          A.Value = BO->getOpcode() == BO_Assign ? BO->getRHS() : nullptr;
          A.Whole = BO;
        }
      } else if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Par)) {
        if (Op->isAssignmentOp() && Op->getNumArgs() == 2 && Op->getArg(0) == Child) {
          A.Kind = PlaceAccess::Write;
          A.Value = Op->getOperator() == OO_Equal ? Op->getArg(1) : nullptr;
          A.Whole = Op;
        }
      } else if (const auto *ME = dyn_cast_or_null<MemberExpr>(Par)) {
        const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(PM.getParent(ME));
        const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        if (MC && M && M->getIdentifier()) {
          StringRef Name = M->getName();
          if (isReplacingMethod(Name)) {
            A.Kind = PlaceAccess::Write;
            unsigned N = MC->getNumArgs();
            A.Value = N ? MC->getArg(N - 1) : nullptr;
            A.Whole = MC;
          } else if (isClearingMethod(Name)) {
            A.Kind = PlaceAccess::Clear;
            A.Whole = MC;
          }
        }
      }
      auto &List = Accesses[P.Decl];
      if (List.empty())
        Decls.push_back(P.Decl);
      List.push_back(A);
    }
}

ArrayRef<PlaceAccess> Places::accesses(const ValueDecl *D) const {
  auto It = Accesses.find(D);
  return It == Accesses.end() ? ArrayRef<PlaceAccess>() : ArrayRef(It->second);
}

const Expr *Places::opUse(const FunctionDecl *F, const Expr *E,
                          unsigned Depth) const {
  if (Depth > 3)
    return nullptr;
  const ParentMap &PM = parents(F);
  const Stmt *Child = nullptr;
  const Stmt *Par = skipUp(PM, E, &Child);
  if (!Par)
    return nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Par)) {
    if (Op->getOperator() != OO_Call)
      return nullptr;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Par)) {
    if (Call->getCallee() == Child)
      return nullptr;
    if (Regions.model().asConversion(Call))
      return nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *M = MC->getMethodDecl();
      StringRef Name = M && M->getIdentifier() ? M->getName() : "";
      if (MC->getImplicitObjectArgument() == Child ||
          peel(MC->getImplicitObjectArgument()) == peel(cast<Expr>(Child)))
        return Name.ends_with("_") ? cast<Expr>(Child) : nullptr;
      if (isReplacingMethod(Name) || isClearingMethod(Name))
        return nullptr;
    }
    return cast<Expr>(Child);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(Par)) {
    const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
    if (M && M->getIdentifier() && M->getName().ends_with("_"))
      return cast<Expr>(Child);
    return nullptr;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(Par)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->hasLocalStorage())
        continue;
      const CFG *G = Regions.model().cfgOf(F);
      if (!G)
        return nullptr;
      for (const CFGBlock *B : *G)
        for (const CFGElement &El : *B)
          if (auto CS = El.getAs<CFGStmt>())
            if (const auto *DRE = dyn_cast<DeclRefExpr>(CS->getStmt()))
              if (DRE->getDecl() == V)
                if (const Expr *U = opUse(F, DRE, Depth + 1))
                  return U;
    }
    return nullptr;
  }
  if (isa<ReturnStmt>(Par)) {
    for (const CallSite &CS : Regions.callersOf(F))
      if (const Expr *U = opUse(CS.Caller, CS.Call, Depth + 1))
        return U;
  }
  return nullptr;
}

std::string Places::name(const Place &P) {
  std::string N;
  if (const auto *FD = dyn_cast<FieldDecl>(P.Decl))
    N = FD->getParent()->getName().str() + "::" + FD->getName().str();
  else
    N = P.Decl->getName().str();
  return P.Slot ? N + "[]" : N;
}
