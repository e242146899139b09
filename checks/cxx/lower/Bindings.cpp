//===- Bindings.cpp - The functions a translation unit binds into Python --===//
//
// Two ways an extension makes a C++ function callable from Python, found by
// what the code calls rather than by macro spellings (projects wrap the
// macros: vLLM's TORCH_LIBRARY_EXPAND):
//  - torch ops: `m.def(schema, fn)` and `m.impl(name, fn)` on a
//    torch::Library. The op's namespace is the schema's `ns::` prefix, or
//    the one the TorchLibraryInit object that runs the enclosing function
//    was constructed with (what TORCH_LIBRARY(ns, m) expands to). Python
//    calls it as torch.ops.ns.op.
//  - pybind11: `m.def(name, fn)` on a pybind11::module_ inside the function
//    PYBIND11_MODULE(mod, m) defines (pybind11_init_mod), or inside a
//    helper that function hands its module to. Python calls it as mod.name.
// fn may be a function (`&f`, `f`, `TORCH_FN(f)`) or a lambda.
//
//===----------------------------------------------------------------------===//
#include "lower/LowerImpl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
using namespace tether::cxx::lower;

namespace {

enum class Kind { None, Torch, Pybind };

bool isOrDerivesFrom(const CXXRecordDecl *RD, llvm::ArrayRef<StringRef> Names) {
  if (!RD || !RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  if (llvm::is_contained(Names, RD->getQualifiedNameAsString()))
    return true;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (isOrDerivesFrom(B.getType()->getAsCXXRecordDecl(), Names))
      return true;
  return false;
}

Kind kindOf(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = Call->getMethodDecl();
  if (!M || !M->getIdentifier())
    return Kind::None;
  StringRef Name = M->getName();
  const CXXRecordDecl *RD = M->getParent();
  if ((Name == "def" || Name == "impl") &&
      isOrDerivesFrom(RD, {"torch::Library"}))
    return Kind::Torch;
  if (Name == "def" && isOrDerivesFrom(RD, {"pybind11::module_"}))
    return Kind::Pybind;
  return Kind::None;
}

/// The first node under S, depth first (S included, lambda bodies too),
/// for which Match gives a result.
template <typename T>
const T *firstUnder(const Stmt *S,
                    llvm::function_ref<const T *(const Stmt *)> Match) {
  if (!S)
    return nullptr;
  if (const T *Hit = Match(S))
    return Hit;
  if (const auto *L = dyn_cast<LambdaExpr>(S))
    return firstUnder(L->getBody(), Match);
  for (const Stmt *C : S->children())
    if (const T *Hit = firstUnder(C, Match))
      return Hit;
  return nullptr;
}

/// The first string literal in E (`"op(Tensor x) -> Tensor"`, also inside
/// torch::schema(...) or TORCH_SELECTIVE_SCHEMA(...)).
const StringLiteral *firstString(const Stmt *E) {
  return firstUnder<StringLiteral>(
      E, [](const Stmt *S) { return dyn_cast<StringLiteral>(S); });
}

/// The function E names: `&f`, `f`, a lambda, or a function given as a
/// template argument of E's type (TORCH_FN(f) makes a
/// CompileTimeFunctionPointer<..., f>).
const FunctionDecl *boundFunction(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *L = dyn_cast<LambdaExpr>(E))
    return L->getCallOperator();
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    if (const auto *FD = dyn_cast<FunctionDecl>(D->getDecl()))
      return FD;
  if (const auto *RD = E->getType()->getAsCXXRecordDecl())
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Declaration)
          if (const auto *FD = dyn_cast<FunctionDecl>(A.getAsDecl()))
            return FD;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (const FunctionDecl *FD = boundFunction(CE))
        return FD;
  return nullptr;
}

/// The function of a torch::Library that a DeclRefExpr somewhere in E
/// names (TORCH_LIBRARY_IMPL wraps it in a lambda inside if_constexpr).
const FunctionDecl *libraryFunction(const Stmt *E) {
  return firstUnder<FunctionDecl>(E, [](const Stmt *S) -> const FunctionDecl * {
    const auto *D = dyn_cast<DeclRefExpr>(S);
    const auto *FD = D ? dyn_cast<FunctionDecl>(D->getDecl()) : nullptr;
    if (!FD || FD->getNumParams() != 1)
      return nullptr;
    QualType P = FD->getParamDecl(0)->getType().getNonReferenceType();
    return isOrDerivesFrom(P->getAsCXXRecordDecl(), {"torch::Library"}) ? FD
                                                                        : nullptr;
  });
}

struct Registration {
  Kind K;
  std::string Name; ///< the op's schema name or the def's name
  const FunctionDecl *Fn;
  const FunctionDecl *Enclosing;
  SourceLocation Loc;
};

class Finder : public RecursiveASTVisitor<Finder> {
public:
  explicit Finder(TULowering &TU) : TU(TU) {}
  bool shouldVisitLambdaBodies() const { return true; }

  bool TraverseDecl(Decl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() ||
        (Cur && isa<CXXMethodDecl>(FD) &&
         cast<CXXMethodDecl>(FD)->getParent()->isLambda()))
      return RecursiveASTVisitor::TraverseDecl(D);
    // A lambda's body belongs to the function it is written in.
    const FunctionDecl *Outer = Cur;
    Cur = FD;
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Cur = Outer;
    return R;
  }

  /// TORCH_LIBRARY's static initialiser: the namespace of its function.
  bool VisitVarDecl(VarDecl *VD) {
    const CXXRecordDecl *RD = VD->getType()->getAsCXXRecordDecl();
    if (!RD || RD->getQualifiedNameAsString() != "torch::detail::TorchLibraryInit")
      return true;
    const auto *Init = dyn_cast_or_null<CXXConstructExpr>(
        VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr);
    if (!Init || Init->getNumArgs() < 3)
      return true;
    const FunctionDecl *Fn = libraryFunction(Init->getArg(1));
    const StringLiteral *Ns = firstString(Init->getArg(2));
    if (Fn && Ns && Ns->isOrdinary())
      TorchNs[Fn->getCanonicalDecl()] = Ns->getString().str();
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (!Cur || TU.inSystemHeader(C->getBeginLoc()))
      return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(C)) {
      Kind K = kindOf(MC);
      if (K != Kind::None && MC->getNumArgs() >= 2) {
        const StringLiteral *S = firstString(MC->getArg(0));
        const FunctionDecl *Fn = boundFunction(MC->getArg(1));
        if (S && S->isOrdinary() && Fn)
          Found.push_back({K, S->getString().str(), Fn, Cur, MC->getExprLoc()});
        return true;
      }
    }
    // A helper handed the module: `init_ops(m)` in PYBIND11_MODULE.
    if (const FunctionDecl *Callee = C->getDirectCallee())
      for (const Expr *A : C->arguments())
        if (const CXXRecordDecl *RD = A->getType()->getAsCXXRecordDecl();
            RD && isOrDerivesFrom(RD, {"pybind11::module_"}))
          HandsModule.push_back({Cur->getCanonicalDecl(),
                                 Callee->getCanonicalDecl()});
    return true;
  }

  TULowering &TU;
  const FunctionDecl *Cur = nullptr;
  std::vector<Registration> Found;
  llvm::DenseMap<const FunctionDecl *, std::string> TorchNs;
  std::vector<std::pair<const FunctionDecl *, const FunctionDecl *>> HandsModule;
};

/// The module each function that defines into a pybind11 module fills:
/// PYBIND11_MODULE's own function (pybind11_init_<mod>), then the helpers
/// it hands the module to.
llvm::DenseMap<const FunctionDecl *, std::string>
pybindModules(const Finder &F) {
  llvm::DenseMap<const FunctionDecl *, std::string> Mod;
  auto Seed = [&](const FunctionDecl *FD) {
    FD = FD->getCanonicalDecl();
    if (StringRef N = FD->getIdentifier() ? FD->getName() : StringRef();
        N.consume_front("pybind11_init_"))
      Mod.try_emplace(FD, N.str());
  };
  for (const Registration &R : F.Found)
    Seed(R.Enclosing);
  for (const auto &[From, To] : F.HandsModule)
    Seed(From);
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const auto &[From, To] : F.HandsModule)
      if (auto It = Mod.find(From); It != Mod.end() && !Mod.count(To)) {
        std::string M = It->second;
        Mod[To] = std::move(M);
        Grew = true;
      }
  }
  return Mod;
}

/// "ns::op.overload(Tensor x) -> Tensor": {"ns", "op"}.
std::pair<std::string, std::string> opName(StringRef Schema) {
  StringRef Name = Schema.take_until([](char C) { return C == '(' || C == ' '; });
  Name = Name.take_until([](char C) { return C == '.'; });
  auto [Ns, Op] = Name.rsplit("::");
  if (Op.empty())
    return {"", Name.str()};
  return {Ns.str(), Op.str()};
}

} // namespace

std::string TULowering::linkName(const FunctionDecl *FD) {
  if (!FD || FD->isInvalidDecl() || !FD->isExternallyVisible() ||
      FD->isDependentContext() || isa<CXXConstructorDecl>(FD) ||
      isa<CXXDestructorDecl>(FD))
    return {};
  if (!Mangler)
    Mangler = std::make_unique<ASTNameGenerator>(Ctx);
  return Mangler->getName(FD);
}

void TULowering::findBindings() {
  Finder F(*this);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  if (F.Found.empty())
    return;
  auto Modules = pybindModules(F);
  for (const Registration &R : F.Found) {
    engine::Binding B;
    if (R.K == Kind::Torch) {
      auto [Ns, Op] = opName(R.Name);
      if (Ns.empty()) {
        auto It = F.TorchNs.find(R.Enclosing->getCanonicalDecl());
        if (It == F.TorchNs.end())
          continue;
        Ns = It->second;
      }
      if (Ns.empty() || Op.empty())
        continue;
      B.Name = "torch.ops." + Ns + "." + Op;
    } else {
      auto It = Modules.find(R.Enclosing->getCanonicalDecl());
      if (It == Modules.end() || R.Name.empty())
        continue;
      B.Name = It->second + "." + R.Name;
    }
    const FunctionDecl *Def = R.Fn->getDefinition();
    B.Fn = Def ? fnOf(Def) : -1;
    if (B.Fn < 0) {
      B.Link = linkName(R.Fn);
      if (B.Link.empty())
        continue;
    }
    if (const auto *MD = dyn_cast<CXXMethodDecl>(R.Fn); MD && MD->isInstance())
      B.FirstArg = 1; // a lambda's closure
    B.Loc = loc(R.Loc);
    Out.Program.Bindings.push_back(std::move(B));
  }
}
