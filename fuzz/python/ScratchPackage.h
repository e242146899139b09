//===- ScratchPackage.h - Fuzz inputs as files the Python frontend reads --===//
//
// The frontend's entry point takes paths (it discovers, reads and names
// modules by where they sit), so the harnesses write each input into a
// per-process folder on tmpfs and analyse it with the embedded default
// catalog, as `tether check` does when no .tether.yaml is found.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_FUZZ_SCRATCHPACKAGE_H
#define TETHER_FUZZ_SCRATCHPACKAGE_H

#include "PythonFrontend.h"
#include "catalog/Catalog.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace tether::fuzz {

/// A folder of this process under /dev/shm (tmpfs: no disk traffic),
/// removed when the process exits normally.
class ScratchDir {
public:
  explicit ScratchDir(const char *Name)
      : Path("/dev/shm/tether-fuzz-" +
             std::to_string(llvm::sys::Process::getProcessId()) + "/" + Name) {
    if (llvm::sys::fs::create_directories(Path)) {
      std::fprintf(stderr, "cannot create %s\n", Path.c_str());
      std::abort();
    }
  }
  ~ScratchDir() {
    (void)llvm::sys::fs::remove_directories(llvm::sys::path::parent_path(Path));
  }
  std::string file(const char *Name) const { return Path + "/" + Name; }

private:
  std::string Path;
};

inline void writeFile(const std::string &Path, std::string_view Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC) {
    std::fprintf(stderr, "cannot write %s\n", Path.c_str());
    std::abort();
  }
  OS << Text;
}

/// Analyse Files as one scan, on one thread (deterministic, and no more
/// threads than a fuzzer needs), with the default catalog.
inline python::Result analyzeFiles(const std::vector<std::string> &Files) {
  static CatalogProvider Catalogs; // its per-folder cache is reused
  python::Options Opts;
  Opts.Jobs = 1;
  return python::analyze(Files, Catalogs, Opts);
}

} // namespace tether::fuzz

#endif
