//===- TUAnalysis.h - The engine's findings for a TU, shared by checks ----===//
//
// The TU is lowered into the engine's IR (lower/Lower.h) and analysed once
// by the shared engine (engine/Engine.h); every tether check of the TU
// reports the findings of its own name. A check
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

#include "catalog/Catalog.h"
#include "common/Finding.h"
#include "clang/AST/ASTContext.h"
#include "engine/Ir.h"
#include <functional>
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

  const CompiledCatalog &catalog() const { return *Catalog; }
  clang::ASTContext &context() const { return Ctx; }
  /// Every finding of every check on the TU, computed on first use (after
  /// all matching: the TU is complete).
  const std::vector<Finding> &findings();

private:
  clang::ASTContext &Ctx;
  std::shared_ptr<const CompiledCatalog> Catalog;
  std::unique_ptr<std::vector<Finding>> Found;
};

/// Told each analysed TU's lowered program when it binds functions into
/// Python or defines functions other TUs may bind (engine/Link.h): the CLI
/// links them with the Python package of the same run. Unset (the default,
/// and in clang-tidy and clangd) nothing is kept. Called from the threads
/// that analyse TUs.
using ProgramSink = std::function<void(engine::Program &&)>;
void setProgramSink(ProgramSink Sink);

} // namespace tether::cxx

#endif
