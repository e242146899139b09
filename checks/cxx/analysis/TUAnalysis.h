//===- TUAnalysis.h - The per-TU analyses, built once, shared by checks ---===//
//
// WeakRefModel, CaptureRegions and Places depend only on the TU and the
// catalog, so every tether check of a TU uses the same instance. A check
// joins while matching (acquire, then addDefinition for what it matched) and
// leaves at its end of TU (release): the analyses are built by the first
// check that asks for them, after all matching, and freed when the last
// check leaves. The registry is keyed by the ASTContext and the catalog's
// contents; an entry lives only while some check of that TU holds it, so a
// later TU whose ASTContext reuses the address (clangd) never sees it.
// Thread-safe: the CLI's -j runs one TU per thread, each with its own
// ASTContext; one TU's checks run on one thread.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_ANALYSIS_TUANALYSIS_H
#define TETHER_CXX_ANALYSIS_TUANALYSIS_H

#include "CaptureRegions.h"
#include "Places.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <string>
#include <vector>

namespace tether::cxx {

class TUAnalysis {
public:
  /// The analysis of the TU of Ctx under Catalog: the one another check of
  /// this TU already holds, or a new one.
  static std::shared_ptr<TUAnalysis>
  acquire(clang::ASTContext &Ctx,
          std::shared_ptr<const CompiledCatalog> Catalog);

  TUAnalysis(clang::ASTContext &Ctx,
             std::shared_ptr<const CompiledCatalog> Catalog);
  ~TUAnalysis();

  /// A user definition to analyse (duplicates are ignored; TU order kept).
  /// Only before the first analysis is requested.
  void addDefinition(const clang::FunctionDecl *FD);

  const CompiledCatalog &catalog() const { return *Catalog; }
  /// The definitions added, in TU order.
  llvm::ArrayRef<const clang::FunctionDecl *> definitions() const {
    return Definitions;
  }
  /// Built on first use, over every definition added.
  const WeakRefModel &model();
  const CaptureRegions &regions();
  const Places &places();

private:
  clang::ASTContext &Ctx;
  std::shared_ptr<const CompiledCatalog> Catalog;
  std::vector<const clang::FunctionDecl *> Definitions;
  llvm::DenseSet<const clang::FunctionDecl *> Seen;
  std::unique_ptr<WeakRefModel> Model;
  std::unique_ptr<CaptureRegions> Regions;
  std::unique_ptr<Places> Where;
};

/// A catalog's contents as a key: equal for catalogs that say the same.
std::string catalogKey(const Catalog &C);

} // namespace tether::cxx

#endif
