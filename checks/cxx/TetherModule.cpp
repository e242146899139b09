//===- TetherModule.cpp - Registers the tether checks ---------------------===//
#include "DoubleWeakRefCheck.h"
#include "GraphMemoryDiesBeforeReplayCheck.h"
#include "WeakRefBeforeCaptureEndCheck.h"
#include "WeakRefOfMaybeNullCheck.h"
#include "WorkspaceSharedAcrossLayersCheck.h"
#include "clang-tidy/ClangTidyModule.h"

namespace tether::cxx {

class TetherModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories &F) override {
    F.registerCheck<DoubleWeakRefCheck>("tether-double-weak-ref");
    F.registerCheck<WeakRefBeforeCaptureEndCheck>(
        "tether-weak-ref-before-capture-end");
    F.registerCheck<WorkspaceSharedAcrossLayersCheck>(
        "tether-workspace-shared-across-layers");
    F.registerCheck<WeakRefOfMaybeNullCheck>("tether-weak-ref-of-maybe-null");
    F.registerCheck<GraphMemoryDiesBeforeReplayCheck>(
        "tether-graph-memory-dies-before-replay");
  }
};

} // namespace tether::cxx

static clang::tidy::ClangTidyModuleRegistry::Add<tether::cxx::TetherModule>
    X("tether-module", "Workspace-lifetime checks around graph capture.");

// Referenced by the CLI and tether-clangd so that static linking keeps this
// module's registration.
volatile int TetherModuleAnchorSource = 0;
