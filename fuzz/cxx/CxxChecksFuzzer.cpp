//===- CxxChecksFuzzer.cpp - All tether-* checks on mutated C++ sources ---===//
//
// Input: one byte that picks clang's -ferror-limit (0, unlimited, or 1..31),
// then the text of one C++ file. The file is compiled in-process with every
// tether check enabled, through clang-tidy's library as the CLI does, so the
// checks meet every broken, cut-off or abandoned AST clang can hand them.
// The file and the stub header (test/checks/cxx/Inputs/torch_npu_stub.h) live
// in an in-memory file system laid over the real one (which still provides
// the standard headers); -fsyntax-only is implied by clang-tidy.
//
//===----------------------------------------------------------------------===//
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

using namespace clang;
using namespace clang::tidy;

extern volatile int TetherModuleAnchorSource;
// Keeps the statically linked module (and its registration) in the binary.
[[maybe_unused]] static int TetherModuleAnchor = TetherModuleAnchorSource;

namespace {
constexpr const char *Dir = "/tether-fuzz";
constexpr const char *MainFile = "/tether-fuzz/input.cpp";

/// The stub header, read once: every input includes it by name.
std::unique_ptr<llvm::MemoryBuffer> &stub() {
  static std::unique_ptr<llvm::MemoryBuffer> S;
  return S;
}

std::unique_ptr<ClangTidyOptionsProvider> allTetherChecks() {
  ClangTidyOptions Opts = ClangTidyOptions::getDefaults();
  Opts.Checks = "-*,tether-*";
  return std::make_unique<DefaultOptionsProvider>(ClangTidyGlobalOptions(),
                                                  std::move(Opts));
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  auto Buf = llvm::MemoryBuffer::getFile(TETHER_FUZZ_STUB_HEADER);
  if (!Buf) {
    llvm::errs() << "fuzz-cxx-checks: cannot read " TETHER_FUZZ_STUB_HEADER
                    "\n";
    std::exit(2);
  }
  stub() = std::move(*Buf);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1 || Size > 64 * 1024)
    return -1;
  unsigned Limit = Data[0] % 32;
  llvm::StringRef Source(reinterpret_cast<const char *>(Data) + 1, Size - 1);

  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Memory->addFile(MainFile, 0, llvm::MemoryBuffer::getMemBufferCopy(Source));
  Memory->addFile(std::string(Dir) + "/Inputs/torch_npu_stub.h", 0,
                  llvm::MemoryBuffer::getMemBuffer(stub()->getBuffer()));
  // A physical file system of its own: ClangTool moves its working
  // directory to the command's, which on the real one is a process chdir.
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::createPhysicalFileSystem());
  FS->pushOverlay(Memory);

  // The command's directory must exist on every layer: the root does.
  tooling::FixedCompilationDatabase DB(
      "/", {"-std=c++17", "-isystem", std::string(Dir) + "/Inputs",
            "-ferror-limit=" + std::to_string(Limit),
            "-resource-dir=" TETHER_CLANG_RESOURCE_DIR, "-w"});
  ClangTidyContext Context(allTetherChecks(), false, false, false);
  runClangTidy(Context, DB, {MainFile}, FS, /*ApplyAnyFix=*/false,
               /*EnableCheckProfile=*/false, "", /*Quiet=*/true);
  return 0;
}
