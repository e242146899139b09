//===- catalog_to_python.cpp - The default catalog as a Python module -----===//
//
// Build-time generator of tether_verify/_catalog.py, so the runtime hooks
// wrap what the static checks treat as weak-ref helpers, capture contexts
// and stream switches, from the one embedded catalog (checks/catalog).
//
//   tether-catalog-to-python OUTPUT.py
//
//===----------------------------------------------------------------------===//
#include "catalog/Catalog.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

using namespace tether;

static void writeList(llvm::raw_ostream &OS, const char *Name,
                      const std::vector<std::string> &Items) {
  llvm::json::Array A;
  for (const std::string &I : Items)
    A.push_back(I);
  // A JSON array of strings is a Python list literal.
  OS << Name << " = " << llvm::formatv("{0}", llvm::json::Value(std::move(A)))
     << "\n";
}

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: tether-catalog-to-python OUTPUT.py\n";
    return 2;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(argv[1], EC);
  if (EC) {
    llvm::errs() << "tether-catalog-to-python: " << argv[1] << ": "
                 << EC.message() << "\n";
    return 2;
  }
  const Catalog &C = Catalog::defaults();
  std::vector<std::string> Begins, Ends;
  for (const CapturePair &P : C.CapturePairs) {
    Begins.push_back(P.Begin);
    Ends.push_back(P.End);
  }
  OS << "# Generated at build time from tether's embedded default catalog\n"
        "# (checks/catalog/Defaults.cpp) by tether-catalog-to-python.\n";
  writeList(OS, "WEAK_REF_FUNCTIONS", C.WeakRefFunctions);
  writeList(OS, "CAPTURE_CONTEXTS", C.CaptureContexts);
  writeList(OS, "CAPTURE_BEGINS", Begins);
  writeList(OS, "CAPTURE_ENDS", Ends);
  writeList(OS, "STREAM_SWITCHES", C.StreamSwitches);
  return OS.has_error() ? 2 : 0;
}
