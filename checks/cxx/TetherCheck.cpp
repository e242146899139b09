//===- TetherCheck.cpp ----------------------------------------------------===//
#include "TetherCheck.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"
#include <algorithm>

using namespace tether;
using namespace tether::cxx;
using namespace clang;
using namespace clang::ast_matchers;

TetherCheck::TetherCheck(llvm::StringRef Name,
                         clang::tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), Name(Name.str()),
      CapturePairs(Options.get("CapturePairs", "")),
      TaskUpdatePairs(Options.get("TaskUpdatePairs", "")),
      TaskUpdateCalls(Options.get("TaskUpdateCalls", "")),
      RawAllocators(Options.get("RawAllocators", "")),
      RawFrees(Options.get("RawFrees", "")),
      GraphDestroys(Options.get("GraphDestroys", "")),
      GraphLaunches(Options.get("GraphLaunches", "")),
      SessionPairs(Options.get("SessionPairs", "")),
      SessionPredicates(Options.get("SessionPredicates", "")),
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
  Catalog::appendPairs(Extra.TaskUpdatePairs, TaskUpdatePairs);
  Catalog::appendList(Extra.TaskUpdateCalls, TaskUpdateCalls);
  Catalog::appendList(Extra.RawAllocators, RawAllocators);
  Catalog::appendList(Extra.RawFrees, RawFrees);
  Catalog::appendList(Extra.GraphDestroys, GraphDestroys);
  Catalog::appendList(Extra.GraphLaunches, GraphLaunches);
  Catalog::appendPairs(Extra.SessionPairs, SessionPairs);
  Catalog::appendList(Extra.SessionPredicates, SessionPredicates);
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
  Options.store(Opts, "TaskUpdatePairs", TaskUpdatePairs);
  Options.store(Opts, "TaskUpdateCalls", TaskUpdateCalls);
  Options.store(Opts, "RawAllocators", RawAllocators);
  Options.store(Opts, "RawFrees", RawFrees);
  Options.store(Opts, "GraphDestroys", GraphDestroys);
  Options.store(Opts, "GraphLaunches", GraphLaunches);
  Options.store(Opts, "SessionPairs", SessionPairs);
  Options.store(Opts, "SessionPredicates", SessionPredicates);
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

void TetherCheck::registerMatchers(MatchFinder *Finder) {
  // One match per TU: the check joins the TU's analysis while matching and
  // reports at its end, when the TU is complete.
  Finder->addMatcher(translationUnitDecl().bind("tu"), this);
}

void TetherCheck::check(const MatchFinder::MatchResult &R) {
  if (Shared && SharedCtx == R.Context)
    return;
  Shared.reset();
  SharedCtx = nullptr;
  if (!catalog())
    return;
  Shared = TUAnalysis::acquire(*R.Context, Current);
  SharedCtx = R.Context;
}

void TetherCheck::onEndOfTranslationUnit() {
  if (std::shared_ptr<TUAnalysis> A = leaveAnalysis())
    report(*A);
}

namespace {

/// Where a finding's file:line:col is in this TU's source manager.
SourceLocation toLocation(SourceManager &SM, const Location &L) {
  auto FE = SM.getFileManager().getOptionalFileRef(L.File);
  if (!FE || L.Line == 0)
    return {};
  return SM.translateFileLineCol(*FE, L.Line, L.Column ? L.Column : 1);
}

std::optional<FixItHint> toFixIt(SourceManager &SM, const FixIt &F) {
  auto FE = SM.getFileManager().getOptionalFileRef(F.File);
  if (!FE)
    return std::nullopt;
  FileID FID = SM.translateFile(*FE);
  if (FID.isInvalid())
    return std::nullopt;
  SourceLocation B = SM.getLocForStartOfFile(FID).getLocWithOffset(F.Offset);
  return FixItHint::CreateReplacement(
      CharSourceRange::getCharRange(B, B.getLocWithOffset(F.Length)), F.Text);
}

} // namespace

void TetherCheck::report(TUAnalysis &A) {
  SourceManager &SM = A.context().getSourceManager();
  std::vector<const Finding *> Mine;
  for (const Finding &F : A.findings())
    if (F.Check == Name)
      Mine.push_back(&F);
  // The stable order of the output contract.
  std::sort(Mine.begin(), Mine.end(),
            [](const Finding *X, const Finding *Y) { return *X < *Y; });
  for (const Finding *F : Mine) {
    SourceLocation Loc = toLocation(SM, F->Loc);
    if (Loc.isInvalid())
      continue;
    {
      auto D = diag(Loc, "%0") << F->Message;
      for (const FixIt &Fix : F->Fixes)
        if (auto H = toFixIt(SM, Fix))
          D << *H;
    }
    for (const Note &N : F->Notes) {
      SourceLocation NL = toLocation(SM, N.Loc);
      if (NL.isValid())
        diag(NL, "%0", DiagnosticIDs::Note) << N.Message;
    }
  }
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
