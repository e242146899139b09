//===- ClangdMain.cpp - clangd with the tether checks linked in -----------===//
//
// Everything but the resource directory is stock clangd: the tether module
// registers itself with clang-tidy's registry, and clangd runs it like any
// other check once `.clangd` enables it (with FastCheckFilter: Loose, since
// clangd only runs checks it knows to be fast by default).
//
//===----------------------------------------------------------------------===//
#include "ResourceDir.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>
#include "tether/version.h"

namespace clang::clangd {
// Defined in Debian's libclangdMain.a (clangd/tool/ClangdMain.cpp); its
// header is not installed.
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

extern volatile int TetherModuleAnchorSource;
// Keeps the statically linked module (and its registration) in the binary.
[[maybe_unused]] static int TetherModuleAnchor = TetherModuleAnchorSource;

int main(int argc, char *argv[]) {
  std::vector<char *> Args(argv, argv + argc);
  bool UserSet = false;
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A(argv[I]);
    if (A.consume_front("--") || A.consume_front("-")) {
      UserSet |= A.starts_with("resource-dir");
      // clangd's own printer replaces llvm::cl's (and its extra printers),
      // so tether's line goes first and clangd prints its version after.
      if (A == "version")
        llvm::outs() << "tether-clangd: tether version " << TETHER_VERSION
                     << ", built with LLVM " << LLVM_VERSION_STRING << "\n";
    }
  }
  llvm::outs().flush();
  std::string Flag = "--resource-dir=" + tether::clangResourceDir();
  if (!UserSet)
    Args.insert(Args.begin() + 1, Flag.data());
  Args.push_back(nullptr);
  return clang::clangd::clangdMain(int(Args.size()) - 1, Args.data());
}
