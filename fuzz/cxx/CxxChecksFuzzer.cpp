//===- CxxChecksFuzzer.cpp - All tether-* checks on mutated C++ sources ---===//
//
// Input: one byte whose low five bits pick clang's -ferror-limit (0,
// unlimited, or 1..31) and whose sixth bit turns typo correction off (half
// the inputs: its ASTs are worth meeting, but it is the costliest part of
// Sema on broken text), then the text of one C++ file. The file is compiled in-process with every
// tether check enabled, through clang-tidy's library as the CLI does, so the
// checks meet every broken, cut-off or abandoned AST clang can hand them.
// The file lives in an in-memory file system laid over the real one, which
// provides the checks' stand-in headers (test/checks/cxx/Inputs) and small
// stand-ins for the standard headers (fuzz/cxx/std, with -nostdinc): parsing
// libstdc++ cost about 1.5 s of CPU per execution under ASan, these cost
// milliseconds, and the checks see the same shapes (see std/README.md).
// -fsyntax-only is implied by clang-tidy.
//
//===----------------------------------------------------------------------===//
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace clang;
using namespace clang::tidy;

extern volatile int TetherModuleAnchorSource;
// Keeps the statically linked module (and its registration) in the binary.
[[maybe_unused]] static int TetherModuleAnchor = TetherModuleAnchorSource;

namespace {
constexpr const char *MainFile = "/tether-fuzz/input.cpp";

std::unique_ptr<ClangTidyOptionsProvider> allTetherChecks() {
  ClangTidyOptions Opts = ClangTidyOptions::getDefaults();
  Opts.Checks = "-*,tether-*";
  return std::make_unique<DefaultOptionsProvider>(ClangTidyGlobalOptions(),
                                                  std::move(Opts));
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  for (const char *Dir : {TETHER_FUZZ_STD_DIR, TETHER_FUZZ_STUB_DIR})
    if (!llvm::sys::fs::is_directory(Dir)) {
      llvm::errs() << "fuzz-cxx-checks: no folder " << Dir << "\n";
      std::exit(2);
    }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1 || Size > 64 * 1024)
    return -1;
  unsigned Limit = Data[0] % 32;
  bool SpellCheck = !(Data[0] & 0x20);
  llvm::StringRef Source(reinterpret_cast<const char *>(Data) + 1, Size - 1);

  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Memory->addFile(MainFile, 0, llvm::MemoryBuffer::getMemBufferCopy(Source));
  // A physical file system of its own: ClangTool moves its working
  // directory to the command's, which on the real one is a process chdir.
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::createPhysicalFileSystem());
  FS->pushOverlay(Memory);

  // The command's directory must exist on every layer: the root does.
  std::vector<std::string> Args = {
      "-std=c++17", "-nostdinc", "-isystem", TETHER_FUZZ_STD_DIR,
      "-isystem", TETHER_FUZZ_STUB_DIR,
      "-ferror-limit=" + std::to_string(Limit),
      "-resource-dir=" TETHER_CLANG_RESOURCE_DIR, "-w"};
  if (!SpellCheck)
    Args.push_back("-fno-spell-checking");
  tooling::FixedCompilationDatabase DB("/", Args);
  ClangTidyContext Context(allTetherChecks(), false, false, false);
  runClangTidy(Context, DB, {MainFile}, FS, /*ApplyAnyFix=*/false,
               /*EnableCheckProfile=*/false, "", /*Quiet=*/true);
  return 0;
}
