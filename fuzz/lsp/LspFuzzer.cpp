//===- LspFuzzer.cpp - Bytes -> the `tether lsp` reader and dispatcher ----===//
//
// An input is what a client writes to the server's stdin: frames of
// "Content-Length: N" headers and JSON-RPC bodies (seeds/ holds sessions
// made by make_seeds.py). It is read by the server's own LspReader from a
// memory stream and answered by its LspServer into a string, in-process.
// Python documents (didOpen/didChange text) are analysed by the Python
// frontend as `tether lsp` analyses them, through one PackageCache kept
// across inputs (the text an overlay of a file in an empty tmpfs folder,
// never written); other documents get no analysis (the server's C++
// analysis runs clang on files on disk and is fuzzed by the cxx target
// instead).
//
// Checked beyond "no crash, leak, UB or hang": everything the server writes
// is well-framed JSON-RPC 2.0.
//
//===----------------------------------------------------------------------===//
#include "Filters.h"
#include "Lsp.h"
#include "catalog/Catalog.h"
#include "python/PackageCache.h"
#include "python/PythonFrontend.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tether;
using llvm::StringRef;

namespace {
/// A tmpfs directory for the document under analysis, removed at exit.
struct Scratch {
  std::string Dir, Doc;
  Scratch() {
    llvm::SmallString<128> D("/dev/shm/tether-fuzz-lsp-XXXXXX");
    if (!::mkdtemp(D.data())) {
      std::perror("fuzz-lsp: mkdtemp");
      std::abort();
    }
    Dir = D.str().str();
    Doc = Dir + "/doc.py";
  }
  ~Scratch() { llvm::sys::fs::remove(Dir); }
};

std::vector<Finding> analyzeDocument(python::PackageCache &Cache,
                                     const Scratch &S, StringRef Path,
                                     StringRef Text, bool /*Saved*/) {
  if (llvm::sys::path::extension(Path) != ".py")
    return {};
  Cache.setOverlay(S.Doc, Text.str());
  CatalogProvider Catalogs;
  python::Options Opts;
  Opts.Jobs = 1;
  Opts.Cache = &Cache;
  python::Result R = python::analyze({S.Doc}, Catalogs, Opts);
  std::string Copy = canonicalPath(S.Doc);
  auto Back = [&](Location &L) {
    if (canonicalPath(L.File) == Copy)
      L.File = Path.str();
  };
  for (Finding &F : R.Findings) {
    Back(F.Loc);
    for (Note &N : F.Notes)
      Back(N.Loc);
  }
  return std::move(R.Findings);
}

[[noreturn]] void fail(const char *What, StringRef Output) {
  llvm::errs() << "fuzz-lsp: " << What << " in the server's output:\n"
               << Output.take_front(2000) << "\n";
  std::abort();
}

/// Every frame the server wrote: a Content-Length that matches, a JSON
/// object of JSON-RPC 2.0.
void checkOutput(StringRef Output) {
  StringRef Rest = Output;
  while (!Rest.empty()) {
    size_t Length;
    if (!Rest.consume_front("Content-Length: ") ||
        Rest.consumeInteger(10, Length) || !Rest.consume_front("\r\n\r\n") ||
        Rest.size() < Length)
      fail("a malformed frame", Rest);
    auto Msg = llvm::json::parse(Rest.take_front(Length));
    if (!Msg) {
      llvm::consumeError(Msg.takeError());
      fail("a body that is not JSON", Rest);
    }
    const llvm::json::Object *O = Msg->getAsObject();
    if (!O || O->getString("jsonrpc") != StringRef("2.0"))
      fail("a message that is not JSON-RPC 2.0", Rest);
    Rest = Rest.drop_front(Length);
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static Scratch S;
  static python::PackageCache Cache;
  if (Size == 0)
    return 0; // fmemopen wants at least one byte
  std::FILE *In = ::fmemopen(const_cast<uint8_t *>(Data), Size, "r");
  if (!In) {
    std::perror("fuzz-lsp: fmemopen");
    std::abort();
  }
  std::string Output;
  {
    llvm::raw_string_ostream Out(Output);
    DocumentAnalyzer Analyze = [&](StringRef Path, StringRef Text, bool Saved) {
      return analyzeDocument(Cache, S, Path, Text, Saved);
    };
    DocumentEvents Events;
    Events.DependsOnOthers = [](StringRef Path) {
      return llvm::sys::path::extension(Path) == ".py";
    };
    Events.FileChanged = [&](StringRef) { Cache.forget(S.Doc); };
    LspReader Reader(In);
    LspServer Server(Out, llvm::nulls(), Analyze, std::move(Events));
    while (!Server.exitCode())
      if (std::optional<LspFrame> Frame = Reader.next())
        Server.handle(*Frame);
      else
        break;
  }
  std::fclose(In);
  checkOutput(Output);
  return 0;
}
