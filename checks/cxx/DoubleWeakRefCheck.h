//===- DoubleWeakRefCheck.h - tether-double-weak-ref ----------------------===//
#ifndef TETHER_CXX_DOUBLEWEAKREFCHECK_H
#define TETHER_CXX_DOUBLEWEAKREFCHECK_H

#include "TetherCheck.h"

namespace tether::cxx {

class WeakRefModel;

/// Flags a weak-ref conversion applied to a value that is already a weak
/// reference: nested calls, a local whose reaching definition on some path
/// is a weak reference, and a helper that weak-refs its parameter called
/// with a weak reference.
///
/// For the user-facing documentation see docs/checks/tether-double-weak-ref.md
class DoubleWeakRefCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
  void onEndOfTranslationUnit() override;

private:
  void reportIn(const clang::FunctionDecl *FD, const WeakRefModel &Model);
  void reportConversion(const clang::CallExpr *Call, const clang::Expr *Source,
                        const WeakRefModel &Model);
  void reportHelperCall(const clang::CallExpr *Call, const WeakRefModel &Model);
};

} // namespace tether::cxx

#endif
