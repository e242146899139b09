//===- TetherCheck.h - Base of the tether clang-tidy checks ---------------===//
//
// Every tether check reads the same catalog. This base maps the clang-tidy
// check options onto catalog fields (appended to the defaults and to the
// .tether.yaml found upward from the main file), resolves the effective
// catalog once per translation unit, and joins the TU's shared analysis
// (TUAnalysis) for the checks that reason about weak references and capture.
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

protected:
  /// The catalog for the current main file; null (after a configuration
  /// diagnostic) when its .tether.yaml is malformed.
  const CompiledCatalog *catalog();

  /// Match the TU's user definitions (functions and lambda bodies outside
  /// system headers) and hand them to the shared analysis of the TU.
  void registerDefinitionMatchers(clang::ast_matchers::MatchFinder *Finder);
  void collectDefinition(
      const clang::ast_matchers::MatchFinder::MatchResult &R);
  /// Leave the TU's shared analysis (null when this check matched nothing
  /// or the catalog is unusable); the caller's reference is its last use.
  std::shared_ptr<TUAnalysis> leaveAnalysis();

private:
  std::shared_ptr<TUAnalysis> Shared;
  const clang::ASTContext *SharedCtx = nullptr;
  // Raw option strings, kept to write them back in storeOptions.
  std::string CapturePairs, CaptureGuards, WeakRefFunctions, BlobFunctions,
      WorkspaceProducers, WorkspaceNames, StreamSwitches, StreamSyncs;
  std::string ConfigFile;
  std::unique_ptr<CatalogProvider> Provider;
  std::string CatalogFile;
  bool Resolved = false;
  std::shared_ptr<const CompiledCatalog> Current;
};

} // namespace tether::cxx

#endif
