//===- TetherModule.cpp - Registers the tether checks ---------------------===//
#include "DoubleWeakRefCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace tether::cxx {

class TetherModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories &F) override {
    F.registerCheck<DoubleWeakRefCheck>("tether-double-weak-ref");
  }
};

} // namespace tether::cxx

static clang::tidy::ClangTidyModuleRegistry::Add<tether::cxx::TetherModule>
    X("tether-module", "Workspace-lifetime checks around graph capture.");

// Referenced by the CLI and tether-clangd so that static linking keeps this
// module's registration.
volatile int TetherModuleAnchorSource = 0;
