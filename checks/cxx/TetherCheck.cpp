//===- TetherCheck.cpp ----------------------------------------------------===//
#include "TetherCheck.h"

using namespace tether;
using namespace tether::cxx;

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
