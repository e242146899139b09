//===- Lower.cpp - Which definitions a TU lowers, and their names ---------===//
#include "analysis/WholeDefinition.h"
#include "lower/LowerImpl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
using namespace tether::cxx::lower;

engine::FnId LoweredTU::idOf(const FunctionDecl *FD) const {
  if (!FD)
    return -1;
  if (const FunctionDecl *Def = FD->getDefinition())
    FD = Def;
  auto It = Ids.find(FD);
  return It == Ids.end() ? -1 : It->second;
}

std::string lower::qualifiedName(const NamedDecl *D) {
  return D->getIdentifier() || isa<CXXMethodDecl>(D)
             ? D->getQualifiedNameAsString()
             : std::string();
}

namespace {
/// The definitions of the TU in source order: functions (template
/// instantiations included, patterns excluded) and lambda bodies.
class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(std::vector<const FunctionDecl *> &Out) : Out(Out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    add(FD);
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    add(L->getCallOperator());
    return true;
  }

private:
  void add(const FunctionDecl *FD) {
    if (FD && FD->doesThisDeclarationHaveABody() && Seen.insert(FD).second)
      Out.push_back(FD);
  }
  std::vector<const FunctionDecl *> &Out;
  llvm::DenseSet<const FunctionDecl *> Seen;
};
} // namespace

bool TULowering::inSystemHeader(SourceLocation L) const {
  const SourceManager &SM = Ctx.getSourceManager();
  return L.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(L));
}

engine::SrcLoc TULowering::loc(SourceLocation L) {
  engine::SrcLoc R;
  if (L.isInvalid())
    return R;
  // Where clang's own diagnostics put it (`#line` honoured), so notes land
  // where the findings of the checks do.
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (P.isInvalid())
    return R;
  auto [It, New] =
      FileIds.try_emplace(P.getFilename(), Out.Program.Files.size());
  if (New)
    Out.Program.Files.push_back(P.getFilename());
  R.File = It->second;
  R.Line = P.getLine();
  R.Col = P.getColumn();
  return R;
}

engine::ClassId TULowering::classOf(QualType T) {
  if (T.isNull())
    return -1;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  return classOf(T->getAsCXXRecordDecl());
}

/// The first template argument of a class template of namespace std
/// named one of Names, or a null type.
static QualType stdArgument(QualType T, std::initializer_list<StringRef> Names) {
  const auto *S = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!S || !S->isInStdNamespace() || !S->getIdentifier() ||
      llvm::find(Names, S->getName()) == Names.end())
    return QualType();
  const TemplateArgumentList &Args = S->getTemplateArgs();
  if (Args.size() == 0 || Args[0].getKind() != TemplateArgument::Type)
    return QualType();
  return Args[0].getAsType();
}

engine::ClassId TULowering::elementClassOf(QualType T) {
  QualType E = stdArgument(T, {"vector", "array", "deque", "list", "span"});
  if (E.isNull())
    return -1;
  if (QualType P = stdArgument(E, {"shared_ptr", "unique_ptr"}); !P.isNull())
    E = P;
  return classOf(E);
}

engine::ClassId TULowering::classOf(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return -1;
  RD = RD->getDefinition();
  if (auto It = Out.ClassIds.find(RD); It != Out.ClassIds.end())
    return It->second;
  if (RD->isLambda() || RD->isDependentContext() || RD->isInvalidDecl() ||
      inSystemHeader(RD->getLocation()))
    return -1;
  engine::ClassId Id = Out.Program.Classes.size();
  Out.ClassIds[RD] = Id;
  Out.Program.Classes.emplace_back();
  Out.Program.Classes[Id].Name = RD->getQualifiedNameAsString();
  Out.Program.Classes[Id].Local = !RD->isExternallyVisible();
  std::vector<engine::ClassId> Bases;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (engine::ClassId B = classOf(Base.getType()); B >= 0)
      Bases.push_back(B);
  Out.Program.Classes[Id].Bases = std::move(Bases); // Classes may have grown
  return Id;
}

engine::FnId TULowering::fnOf(const FunctionDecl *FD) const {
  return Out.idOf(FD);
}

std::vector<engine::FnId> TULowering::targetsOf(const FunctionDecl *M,
                                                bool Virtual) const {
  std::vector<engine::FnId> R;
  if (engine::FnId Own = fnOf(M); Own >= 0)
    R.push_back(Own);
  const auto *MD = dyn_cast<CXXMethodDecl>(M);
  if (!Virtual || !MD)
    return R;
  auto It = Overriders.find(MD->getCanonicalDecl());
  if (It != Overriders.end())
    for (engine::FnId O : It->second)
      if (!llvm::is_contained(R, O))
        R.push_back(O);
  return R;
}

/// Implicit members are lowered only where they run code the user wrote:
/// a default constructor runs the in-class member initialisers. A lambda's
/// conversion to a function pointer and the copies of its closure do not.
static bool wanted(const FunctionDecl *FD) {
  if (!FD->isImplicit())
    return true;
  const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD);
  return Ctor && Ctor->isDefaultConstructor() && !Ctor->getParent()->isLambda();
}

void TULowering::collect() {
  std::vector<const FunctionDecl *> All;
  Collector(All).TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const FunctionDecl *FD : All) {
    // Torch and the standard library are the catalog's business; template
    // patterns are lowered through their instantiations; a definition
    // clang could not build without errors is treated as a declaration.
    if (FD->isDependentContext() || inSystemHeader(FD->getLocation()) ||
        !isWholeDefinition(FD) || !wanted(FD))
      continue;
    CFG::BuildOptions Opts; // as checks/cxx/analysis builds it, and:
    Opts.setAllAlwaysAdd();
    Opts.AddImplicitDtors = true;
    Opts.AddTemporaryDtors = true;
    Opts.AddLifetime = true;
    Opts.AddScopes = true;
    // Beyond what the older analyses ask for: constructors' member
    // initialisers (in-class ones too) are stores to the new object, and a
    // static local's initialiser runs only on the first call.
    Opts.AddInitializers = true;
    Opts.AddCXXDefaultInitExprInCtors = true;
    Opts.AddStaticInitBranches = true;
    std::unique_ptr<CFG> G = CFG::buildCFG(FD, FD->getBody(), &Ctx, Opts);
    if (!G)
      continue;
    Out.Ids[FD] = engine::FnId(Out.Decls.size());
    Out.Decls.push_back(FD);
    Cfgs.push_back(std::move(G));
  }
  Out.Program.Functions.resize(Out.Decls.size());
}

void TULowering::nameFunctions() {
  llvm::StringMap<unsigned> Count;
  std::vector<std::string> Names;
  for (const FunctionDecl *FD : Out.Decls) {
    std::string N;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && MD->getParent()->isLambda())
      N = "lambda@" + std::to_string(loc(FD->getLocation()).Line);
    else
      N = FD->getQualifiedNameAsString();
    ++Count[N];
    Names.push_back(std::move(N));
  }
  llvm::StringMap<unsigned> Seen;
  for (size_t I = 0; I < Out.Decls.size(); ++I) {
    const FunctionDecl *FD = Out.Decls[I];
    engine::Function &F = Out.Program.Functions[I];
    // Notes name a function as it is written where it is called: a free
    // function by its name, a method with its class (as Python's do).
    F.Name = Names[I];
    if (!StringRef(Names[I]).starts_with("lambda@")) {
      F.Name = FD->getNameAsString();
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
        F.Name = MD->getParent()->getNameAsString() + "::" + F.Name;
    }
    F.QualName = Names[I];
    // Overloads (and lambdas on one line) get their signature, then a
    // counter if even that repeats.
    if (Count[Names[I]] > 1) {
      F.QualName += "(";
      for (unsigned P = 0; P < FD->getNumParams(); ++P)
        F.QualName +=
            (P ? "," : "") + FD->getParamDecl(P)->getType().getAsString();
      F.QualName += ")";
      if (unsigned N = Seen[F.QualName]++)
        F.QualName += "#" + std::to_string(N);
    }
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
      F.Class = classOf(MD->getParent());
    F.Loc = loc(FD->getLocation());
    F.Link = linkName(FD);
    const Stmt *Body = FD->getBody();
    F.EndLoc = loc(Body ? Body->getEndLoc() : FD->getEndLoc());
  }
}

void TULowering::indexOverrides() {
  for (size_t I = 0; I < Out.Decls.size(); ++I) {
    const auto *MD = dyn_cast<CXXMethodDecl>(Out.Decls[I]);
    if (!MD || !MD->isVirtual())
      continue;
    llvm::SmallVector<const CXXMethodDecl *, 4> Work{MD};
    llvm::DenseSet<const CXXMethodDecl *> Done;
    while (!Work.empty()) {
      const CXXMethodDecl *Cur = Work.pop_back_val();
      for (const CXXMethodDecl *Up : Cur->overridden_methods())
        if (Done.insert(Up->getCanonicalDecl()).second) {
          Overriders[Up->getCanonicalDecl()].push_back(engine::FnId(I));
          Work.push_back(Up);
        }
    }
  }
}

void TULowering::run() {
  collect();
  nameFunctions();
  indexOverrides();
  findBindings();
  for (size_t I = 0; I < Out.Decls.size(); ++I)
    FunctionLowering(*this, Out.Decls[I], *Cfgs[I], Out.Program.Functions[I])
        .run();
}

LoweredTU tether::cxx::lowerTranslationUnit(ASTContext &Ctx,
                                            const CompiledCatalog &Cat) {
  LoweredTU Out;
  TULowering(Ctx, Cat, Out).run();
  return Out;
}

//===--- members that hold what their object was handed
//--------------------===//

/// The record a member's type refers to: `C &`, `C *`, `std::shared_ptr<C>`
/// (const or not). Null for anything the object owns (`C`, a unique_ptr).
static const CXXRecordDecl *referredRecord(QualType T, bool &IsReference) {
  IsReference = T->isReferenceType();
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return T->getPointeeType()->getAsCXXRecordDecl();
  if (IsReference)
    return T->getAsCXXRecordDecl();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || Spec->getName() != "shared_ptr" ||
      Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
}

/// Whether E is a parameter's value as written (`ctx`, `std::move(ctx)`,
/// `&ctx`, a copy or conversion of it).
static bool fromParameter(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      return isa<ParmVarDecl>(D->getDecl());
    if (const auto *C = dyn_cast<CXXConstructExpr>(E))
      E = C->getNumArgs() == 1 ? C->getArg(0) : nullptr;
    else if (const auto *C = dyn_cast<CallExpr>(E))
      E = C->isCallToStdMove() || (C->getDirectCallee() &&
                                   C->getDirectCallee()->isInStdNamespace() &&
                                   C->getDirectCallee()->getName() == "forward")
              ? C->getArg(0)
              : nullptr;
    else if (const auto *U = dyn_cast<UnaryOperator>(E))
      E = U->getOpcode() == UO_AddrOf ? U->getSubExpr() : nullptr;
    else
      return false;
  }
  return false;
}

namespace {
/// An assignment `Fld = parameter` in a method body.
class AssignsFromParameter : public RecursiveASTVisitor<AssignsFromParameter> {
public:
  explicit AssignsFromParameter(const FieldDecl *Fld) : Fld(Fld) {}
  bool Found = false;
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Assign)
      check(B->getLHS(), B->getRHS());
    return !Found;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->getOperator() == OO_Equal && C->getNumArgs() == 2)
      check(C->getArg(0), C->getArg(1));
    return !Found;
  }

private:
  void check(const Expr *L, const Expr *R) {
    const auto *M = dyn_cast<MemberExpr>(L->IgnoreImplicit()->IgnoreParens());
    Found |= M && M->getMemberDecl() == Fld && fromParameter(R);
  }
  const FieldDecl *Fld;
};
} // namespace

engine::ClassId TULowering::handedInClass(const FieldDecl *Fld) {
  if (auto It = Handed.find(Fld); It != Handed.end())
    return It->second;
  engine::ClassId &Out = Handed[Fld];
  Out = -1;
  bool IsReference = false;
  const CXXRecordDecl *To = referredRecord(Fld->getType(), IsReference);
  const auto *Holder = dyn_cast<CXXRecordDecl>(Fld->getParent());
  if (!To || !Holder)
    return -1;
  bool HandedIn = IsReference; // a reference member is bound to what it is given
  for (const CXXConstructorDecl *Ctor : Holder->ctors()) {
    const FunctionDecl *Def = nullptr;
    if (HandedIn || !Ctor->hasBody(Def))
      continue;
    for (const CXXCtorInitializer *Init :
         cast<CXXConstructorDecl>(Def)->inits())
      HandedIn |= Init->getMember() == Fld && fromParameter(Init->getInit());
  }
  for (const CXXMethodDecl *M : Holder->methods()) {
    const FunctionDecl *Def = nullptr;
    if (HandedIn || !M->hasBody(Def))
      continue;
    AssignsFromParameter V(Fld);
    V.TraverseStmt(Def->getBody());
    HandedIn = V.Found;
  }
  if (HandedIn)
    Out = classOf(To);
  return Out;
}
