//===- WholeDefinition.cpp ------------------------------------------------===//
#include "WholeDefinition.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

/// An object of type T would be constructed or destroyed by code the CFG
/// models, but its class was never completed (a template left
/// uninstantiated once clang stopped at the error limit) or is itself
/// broken. A type that is still dependent outside a template only comes
/// from an expression clang could not build.
static bool unusableObjectType(const ASTContext &Ctx, QualType T) {
  if (T.isNull() || T->isDependentType())
    return true;
  if (T->isReferenceType())
    return false;
  const CXXRecordDecl *RD = Ctx.getBaseElementType(T)->getAsCXXRecordDecl();
  return RD && (!RD->hasDefinition() || RD->isInvalidDecl());
}

/// The bases and members a constructor builds and a destructor destroys:
/// clang's CFG asks each one's class about its destructor.
static bool hasUnusableSubobject(const CXXRecordDecl *RD) {
  const ASTContext &Ctx = RD->getASTContext();
  if (!RD->hasDefinition())
    return true;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (unusableObjectType(Ctx, B.getType()))
      return true;
  for (const CXXBaseSpecifier &B : RD->vbases())
    if (unusableObjectType(Ctx, B.getType()))
      return true;
  for (const FieldDecl *F : RD->fields())
    if (F->isInvalidDecl() || unusableObjectType(Ctx, F->getType()))
      return true;
  return false;
}

/// A block the parser closed because the file ended (a body cut off while
/// it is being typed): its closing location is not a `}` token. Blocks
/// Sema makes up (the body of a defaulted function) have no such token and
/// are not asked.
static bool cutOff(const CompoundStmt *CS, const SourceManager &SM) {
  SourceLocation R = CS->getRBracLoc();
  if (R.isInvalid())
    return false;
  bool Invalid = false;
  const char *C = SM.getCharacterData(SM.getSpellingLoc(R), &Invalid);
  if (Invalid || !C)
    return true;
  return !(C[0] == '}' || (C[0] == '%' && C[1] == '>')); // `%>` digraph
}

/// Whether the body holds anything clang could not build: an expression
/// with errors (RecoveryExpr and whatever contains one), an invalid local,
/// lambda or handler, a local whose class was never completed, or a block
/// the end of the file cut off.
static bool bodyHasErrors(const Stmt *Body, bool Synthesized,
                          const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  // An explicit stack: bodies can nest deeper than the call stack allows.
  llvm::SmallVector<const Stmt *, 64> Work{Body};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue; // an optional part that is absent (an if's init, ...)
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      if (!(Synthesized && S == Body) && cutOff(CS, SM))
        return true;
    } else if (const auto *E = dyn_cast<Expr>(S)) {
      if (E->containsErrors())
        return true;
      // Default arguments and member initialisers are not children of the
      // expression that uses them.
      if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E);
          DA && (!DA->getExpr() || DA->getExpr()->containsErrors()))
        return true;
      if (const auto *DI = dyn_cast<CXXDefaultInitExpr>(E);
          DI && (!DI->getExpr() || DI->getExpr()->containsErrors()))
        return true;
      if (const auto *L = dyn_cast<LambdaExpr>(E))
        if (L->getLambdaClass()->isInvalidDecl() ||
            L->getCallOperator()->isInvalidDecl())
          return true;
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        if (D->isInvalidDecl())
          return true;
        if (const auto *V = dyn_cast<VarDecl>(D);
            V && !V->hasExternalStorage() &&
            unusableObjectType(Ctx, V->getType()))
          return true;
      }
    } else if (const auto *Catch = dyn_cast<CXXCatchStmt>(S)) {
      if (Catch->getExceptionDecl() &&
          Catch->getExceptionDecl()->isInvalidDecl())
        return true;
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return false;
}

bool tether::cxx::isWholeDefinition(const FunctionDecl *FD) {
  if (!FD || FD->isInvalidDecl() || FD->willHaveBody() ||
      FD->isLateTemplateParsed() || !FD->getBody())
    return false;
  for (const ParmVarDecl *P : FD->parameters())
    if (P->isInvalidDecl())
      return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *RD = MD->getParent();
    if (RD->isInvalidDecl())
      return false;
    if ((isa<CXXConstructorDecl>(MD) || isa<CXXDestructorDecl>(MD)) &&
        hasUnusableSubobject(RD))
      return false;
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(MD))
      for (const CXXCtorInitializer *I : Ctor->inits())
        if (!I->getInit() || I->getInit()->containsErrors())
          return false;
  }
  return !bodyHasErrors(FD->getBody(), FD->isDefaulted(), FD->getASTContext());
}
