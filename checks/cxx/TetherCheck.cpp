//===- TetherCheck.cpp ----------------------------------------------------===//
#include "TetherCheck.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace tether;
using namespace tether::cxx;
using namespace clang::ast_matchers;

TetherCheck::TetherCheck(llvm::StringRef Name,
                         clang::tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      CapturePairs(Options.get("CapturePairs", "")),
      CaptureGuards(Options.get("CaptureGuards", "")),
      WeakRefFunctions(Options.get("WeakRefFunctions", "")),
      BlobFunctions(Options.get("BlobFunctions", "")),
      WorkspaceProducers(Options.get("WorkspaceProducers", "")),
      WorkspaceNames(Options.get("WorkspaceNames", "")),
      StreamSwitches(Options.get("StreamSwitches", "")),
      StreamSyncs(Options.get("StreamSyncs", "")),
      ConfigFile(Options.getLocalOrGlobal("TetherConfig", "")) {
  Catalog Extra;
  Catalog::appendPairs(Extra.CapturePairs, CapturePairs);
  Catalog::appendList(Extra.CaptureGuards, CaptureGuards);
  Catalog::appendList(Extra.WeakRefFunctions, WeakRefFunctions);
  Catalog::appendList(Extra.BlobFunctions, BlobFunctions);
  Catalog::appendList(Extra.WorkspaceProducers, WorkspaceProducers);
  Catalog::appendList(Extra.WorkspaceNames, WorkspaceNames);
  Catalog::appendList(Extra.StreamSwitches, StreamSwitches);
  Catalog::appendList(Extra.StreamSyncs, StreamSyncs);
  Provider = std::make_unique<CatalogProvider>(ConfigFile, std::move(Extra));
}

void TetherCheck::storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "CapturePairs", CapturePairs);
  Options.store(Opts, "CaptureGuards", CaptureGuards);
  Options.store(Opts, "WeakRefFunctions", WeakRefFunctions);
  Options.store(Opts, "BlobFunctions", BlobFunctions);
  Options.store(Opts, "WorkspaceProducers", WorkspaceProducers);
  Options.store(Opts, "WorkspaceNames", WorkspaceNames);
  Options.store(Opts, "StreamSwitches", StreamSwitches);
  Options.store(Opts, "StreamSyncs", StreamSyncs);
}

const CompiledCatalog *TetherCheck::catalog() {
  llvm::StringRef File = getCurrentMainFile();
  if (Resolved && CatalogFile == File)
    return Current.get(); // null again after a reported config error
  Resolved = true;
  CatalogFile = File.str();
  auto C = Provider->forFile(File);
  if (!C) {
    configurationDiag("%0") << llvm::toString(C.takeError());
    Current.reset();
    return nullptr;
  }
  Current = *C;
  return Current.get();
}

void TetherCheck::onStartOfTranslationUnit() {
  Shared.reset();
  SharedCtx = nullptr;
}

void TetherCheck::registerDefinitionMatchers(MatchFinder *Finder) {
  // Torch and the standard library (system headers) are described by the
  // catalog, not analysed.
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()))
          .bind("fn"),
      this);
  // Lambda bodies (binding code: m.def("f", [](...) {...})).
  Finder->addMatcher(
      lambdaExpr(unless(isExpansionInSystemHeader())).bind("lambda"), this);
}

void TetherCheck::collectDefinition(const MatchFinder::MatchResult &R) {
  if (!Shared || SharedCtx != R.Context) {
    // The first match of a TU: join the analysis the TU's other checks
    // share (under the same catalog).
    Shared.reset();
    SharedCtx = nullptr;
    const CompiledCatalog *C = catalog();
    if (!C)
      return;
    Shared = TUAnalysis::acquire(*R.Context, Current);
    SharedCtx = R.Context;
  }
  if (const auto *FD = R.Nodes.getNodeAs<clang::FunctionDecl>("fn"))
    Shared->addDefinition(FD);
  if (const auto *L = R.Nodes.getNodeAs<clang::LambdaExpr>("lambda"))
    if (const clang::FunctionDecl *Op = L->getCallOperator())
      if (Op->hasBody())
        Shared->addDefinition(Op);
}

std::shared_ptr<TUAnalysis> TetherCheck::leaveAnalysis() {
  // Resolve the catalog even for a TU with no definitions, so that a
  // malformed .tether.yaml is reported for every file.
  const CompiledCatalog *C = catalog();
  std::shared_ptr<TUAnalysis> A = std::move(Shared);
  Shared.reset();
  SharedCtx = nullptr;
  return C ? A : nullptr;
}
