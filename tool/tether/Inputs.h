//===- Inputs.h - Sort command-line paths between the frontends -----------===//
#ifndef TETHER_TOOL_INPUTS_H
#define TETHER_TOOL_INPUTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace tether {

struct InputSet {
  /// C and C++ translation units (and headers named explicitly).
  std::vector<std::string> Cxx;
  /// .py files and directories, as given: the Python frontend walks
  /// directories itself, as one package.
  std::vector<std::string> Python;
  /// The C/C++ sources found inside a directory argument, by that argument
  /// (named files are not here).
  std::map<std::string, std::string> CxxFoundIn;
};

/// Directories contribute their C/C++ sources (recursively, hidden folders
/// skipped, symlinks not followed) and go to the Python frontend as a whole
/// when they contain any .py file. A missing path or a file of another
/// language is an error.
llvm::Expected<InputSet> collectInputs(llvm::ArrayRef<std::string> Paths);

bool isCxxSource(llvm::StringRef Path);
bool isCxxHeader(llvm::StringRef Path);

} // namespace tether

#endif
