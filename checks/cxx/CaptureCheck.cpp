//===- CaptureCheck.cpp ---------------------------------------------------===//
#include "CaptureCheck.h"
#include "common/Messages.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace tether::cxx;
namespace msg = tether::msg;

void CaptureCheck::registerMatchers(MatchFinder *Finder) {
  registerDefinitionMatchers(Finder);
}

void CaptureCheck::check(const MatchFinder::MatchResult &R) {
  collectDefinition(R);
}

void CaptureCheck::onEndOfTranslationUnit() {
  std::shared_ptr<TUAnalysis> A = leaveAnalysis();
  if (!A)
    return;
  run(Analyses{A->catalog(), A->model(), A->regions(), A->places()});
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
