//===- CaptureCheck.cpp ---------------------------------------------------===//
#include "CaptureCheck.h"
#include "common/Messages.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include <algorithm>

using namespace clang;
using namespace clang::ast_matchers;
using namespace tether::cxx;
namespace msg = tether::msg;

void CaptureCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()))
          .bind("fn"),
      this);
  // Lambda bodies (binding code: m.def("f", [](...) {...})).
  Finder->addMatcher(
      lambdaExpr(unless(isExpansionInSystemHeader())).bind("lambda"), this);
}

void CaptureCheck::check(const MatchFinder::MatchResult &R) {
  Ctx = R.Context;
  if (const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("fn"))
    Definitions.push_back(FD);
  if (const auto *L = R.Nodes.getNodeAs<LambdaExpr>("lambda"))
    if (const FunctionDecl *Op = L->getCallOperator())
      if (Op->hasBody() &&
          std::find(Definitions.begin(), Definitions.end(), Op) ==
              Definitions.end())
        Definitions.push_back(Op);
}

void CaptureCheck::onEndOfTranslationUnit() {
  std::vector<const FunctionDecl *> Defs = std::move(Definitions);
  Definitions.clear();
  const CompiledCatalog *Cat = catalog();
  ASTContext *C = Ctx;
  Ctx = nullptr;
  if (!C || !Cat)
    return;
  WeakRefModel Model(*C, *Cat);
  Model.summarize(Defs);
  CaptureRegions Regions(Model, *Cat);
  Regions.compute(Defs);
  Places Where(Regions);
  run(Analyses{*Cat, Model, Regions, Where});
}

void CaptureCheck::noteCapture(const CaptureSite &Site, bool WithEnd) {
  diag(Site.Region->Begin, msg::CaptureBeginsHere, DiagnosticIDs::Note);
  for (const CallExpr *Call : Site.Chain) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    diag(Call->getBeginLoc(), msg::InCaptureThroughCall, DiagnosticIDs::Note)
        << (Callee ? Callee->getNameAsString() : std::string("?"));
  }
  if (WithEnd)
    noteCaptureEnd(Site);
}

void CaptureCheck::noteCaptureEnd(const CaptureSite &Site) {
  if (!Site.Region->Ends.empty())
    diag(Site.Region->Ends.front(), msg::CaptureEndsHere, DiagnosticIDs::Note);
}
