//===- TetherCheck.h - Base of the tether clang-tidy checks ---------------===//
//
// Every tether check reads the same catalog. This base maps the clang-tidy
// check options onto catalog fields (appended to the defaults and to the
// .tether.yaml found upward from the main file), resolves the effective
// catalog once per translation unit, joins the TU's shared analysis
// (TUAnalysis: the TU lowered into the engine's IR and analysed once) and
// reports the engine's findings of the check's own name. The reasoning of
// each check is its query in checks/engine/checks/.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_TETHERCHECK_H
#define TETHER_CXX_TETHERCHECK_H

#include "analysis/TUAnalysis.h"
#include "catalog/Catalog.h"
#include "clang-tidy/ClangTidyCheck.h"
#include <memory>

namespace tether::cxx {

class TetherCheck : public clang::tidy::ClangTidyCheck {
public:
  TetherCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context);
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const clang::LangOptions &LO) const override {
    return LO.CPlusPlus;
  }
  /// Drops whatever a previous TU left, so a TU never joins another's
  /// analysis even when its ASTContext reuses the address.
  void onStartOfTranslationUnit() override;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
  /// Reports the findings of this check on the TU that just ended.
  void onEndOfTranslationUnit() override;

protected:
  /// The catalog for the current main file; null (after a configuration
  /// diagnostic) when its .tether.yaml is malformed.
  const CompiledCatalog *catalog();

private:
  /// Leave the TU's shared analysis (null when the catalog is unusable);
  /// the caller's reference is its last use.
  std::shared_ptr<TUAnalysis> leaveAnalysis();
  void report(TUAnalysis &A);

  std::string Name;
  std::shared_ptr<TUAnalysis> Shared;
  const clang::ASTContext *SharedCtx = nullptr;
  // Raw option strings, kept to write them back in storeOptions.
  std::string CapturePairs, TaskUpdatePairs, TaskUpdateCalls, RawAllocators,
      RawFrees, GraphDestroys, GraphLaunches, SessionPairs,
      SessionPredicates,
      CaptureGuards, WeakRefFunctions,
      BlobFunctions, WorkspaceProducers, WorkspaceNames, StreamSwitches,
      StreamSyncs;
  std::string ConfigFile;
  std::unique_ptr<CatalogProvider> Provider;
  std::string CatalogFile;
  bool Resolved = false;
  std::shared_ptr<const CompiledCatalog> Current;
};

} // namespace tether::cxx

#endif
