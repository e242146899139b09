//===- CaptureCheck.h - Base of the checks that reason about capture ------===//
//
// Collects the TU's user function definitions into the TU's shared analysis
// (TUAnalysis: weak-ref summaries, capture regions, places, built once per
// TU for all tether checks). Derived checks report from run().
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_CAPTURECHECK_H
#define TETHER_CXX_CAPTURECHECK_H

#include "TetherCheck.h"
#include "analysis/CaptureRegions.h"
#include "analysis/Places.h"

namespace tether::cxx {

class CaptureCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
  void onEndOfTranslationUnit() override;

protected:
  /// The analyses of the TU, valid during run().
  struct Analyses {
    const CompiledCatalog &Catalog;
    const WeakRefModel &Model;
    const CaptureRegions &Regions;
    const Places &Where;
  };
  virtual void run(const Analyses &A) = 0;

  /// The notes that put a statement in capture: where it begins, the calls
  /// that lead into it; and where it ends when WithEnd.
  void noteCapture(const CaptureSite &Site, bool WithEnd);
  void noteCaptureEnd(const CaptureSite &Site);
};

} // namespace tether::cxx

#endif
