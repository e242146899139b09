//===- DoubleWeakRefCheck.cpp - tether-double-weak-ref --------------------===//
#include "DoubleWeakRefCheck.h"
#include "analysis/WeakRefModel.h"
#include "common/Messages.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace tether::cxx;
namespace msg = tether::msg;

void DoubleWeakRefCheck::registerMatchers(MatchFinder *Finder) {
  // Every user function with a body: the summaries are computed over all of
  // them at the end of the TU, by the analysis the tether checks share.
  registerDefinitionMatchers(Finder);
}

void DoubleWeakRefCheck::check(const MatchFinder::MatchResult &R) {
  collectDefinition(R);
}

void DoubleWeakRefCheck::onEndOfTranslationUnit() {
  std::shared_ptr<TUAnalysis> A = leaveAnalysis();
  if (!A)
    return;
  const WeakRefModel &Model = A->model();
  for (const FunctionDecl *FD : A->definitions())
    reportIn(FD, Model);
}

void DoubleWeakRefCheck::reportIn(const FunctionDecl *FD,
                                  const WeakRefModel &Model) {
  const CFG *G = Model.cfgOf(FD);
  if (!G)
    return;
  for (const CFGBlock *B : *G)
    for (const CFGElement &E : *B) {
      auto CS = E.getAs<CFGStmt>();
      const auto *Call = CS ? dyn_cast<CallExpr>(CS->getStmt()) : nullptr;
      if (!Call)
        continue;
      if (auto Conv = Model.asConversion(Call)) {
        if (Conv->Source)
          reportConversion(Call, Conv->Source, Model);
      } else {
        reportHelperCall(Call, Model);
      }
    }
}

/// The fix for a directly nested conversion: replace the inner call by its
/// own argument, e.g. weak_ref_tensor(weak_ref_tensor(x)) -> ..(x).
static std::optional<FixItHint> dropInnerConversion(const Expr *Arg,
                                                    const WeakRefModel &Model) {
  const auto *Inner = dyn_cast_or_null<CallExpr>(peel(Arg));
  if (!Inner)
    return std::nullopt;
  auto Conv = Model.asConversion(Inner);
  if (!Conv || !Conv->Source || Conv->Kind == Conversion::Blob)
    return std::nullopt;
  const SourceManager &SM = Model.context().getSourceManager();
  const LangOptions &LO = Model.context().getLangOpts();
  CharSourceRange Whole = CharSourceRange::getTokenRange(Inner->getSourceRange());
  CharSourceRange Src =
      CharSourceRange::getTokenRange(Conv->Source->getSourceRange());
  if (Whole.getBegin().isMacroID() || Whole.getEnd().isMacroID() ||
      Src.getBegin().isMacroID() || Src.getEnd().isMacroID())
    return std::nullopt;
  bool Invalid = false;
  StringRef Text = Lexer::getSourceText(Src, SM, LO, &Invalid);
  if (Invalid || Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(Whole, Text);
}

void DoubleWeakRefCheck::reportConversion(const CallExpr *Call,
                                          const Expr *Source,
                                          const WeakRefModel &Model) {
  const CallExpr *Origin = Model.weakOrigin(Source);
  if (!Origin)
    return;
  // A second conversion hides where ownership was given up when the two are
  // not both written in this function: nested in one expression (never
  // meant), or one of them inside a helper. A local converted again in the
  // function that made it weak is a visible no-op -- vLLM's wrappers weaken
  // the output inside the capture and store a weak ref of it after.
  auto Outer = Model.asConversion(Call), First = Model.asConversion(Origin);
  const bool Nested = peel(Source) == Origin;
  const bool ViaHelper = (Outer && Outer->Kind == Conversion::Helper) ||
                         (First && First->Kind == Conversion::Helper);
  if (!Nested && !ViaHelper)
    return;
  {
    auto D = diag(Call->getBeginLoc(), msg::DoubleWeakRefWarning)
             << Call->getSourceRange();
    if (auto Fix = dropInnerConversion(Source, Model))
      D << *Fix;
  }
  diag(Origin->getBeginLoc(), msg::DoubleWeakRefFirst, DiagnosticIDs::Note);
}

void DoubleWeakRefCheck::reportHelperCall(const CallExpr *Call,
                                          const WeakRefModel &Model) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isa<CXXOperatorCallExpr>(Call))
    return;
  const auto *Params = Model.convertedParams(Callee);
  if (!Params)
    return;
  const FunctionDecl *Def = Callee->getDefinition();
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    auto It = Params->find(I);
    if (It == Params->end())
      continue;
    const Expr *Arg = Call->getArg(I);
    const CallExpr *Origin = Model.weakOrigin(Arg);
    if (!Origin)
      continue;
    {
      // Reported at the call: the helper's conversion is the second one.
      auto D = diag(Call->getBeginLoc(), msg::DoubleWeakRefWarning)
               << Arg->getSourceRange();
      if (auto Fix = dropInnerConversion(Arg, Model))
        D << *Fix;
    }
    diag(Origin->getBeginLoc(), msg::DoubleWeakRefFirst, DiagnosticIDs::Note);
    // Follow the chain of helpers down to the conversion itself.
    const FunctionDecl *F = Def ? Def : Callee;
    unsigned Index = I;
    for (unsigned Depth = 0; F && Depth < 8; ++Depth) {
      const auto *P = Model.convertedParams(F);
      auto PIt = P ? P->find(Index) : decltype(P->end())();
      if (!P || PIt == P->end())
        break;
      diag(PIt->second.Loc, msg::DoubleWeakRefHelperParam, DiagnosticIDs::Note)
          << F->getName() << F->getParamDecl(Index)->getName();
      const FunctionDecl *Via = PIt->second.Via;
      if (!Via || !Model.convertedParams(Via))
        break;
      // Which parameter of Via receives ours.
      const FunctionDecl *Next = Via->getDefinition() ? Via->getDefinition() : Via;
      bool Found = false;
      for (const auto &[J, PC] : *Model.convertedParams(Next)) {
        (void)PC;
        Index = J;
        Found = true;
        break;
      }
      if (!Found)
        break;
      F = Next;
    }
  }
}
