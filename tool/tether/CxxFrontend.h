//===- CxxFrontend.h - Run the tether clang-tidy checks over C++ files ----===//
#ifndef TETHER_TOOL_CXXFRONTEND_H
#define TETHER_TOOL_CXXFRONTEND_H

#include "common/Finding.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace tether {

struct CxxOptions {
  std::string Checks = "tether-*"; ///< clang-tidy glob
  std::string ConfigFile;          ///< --config, handed to the checks
  std::string BuildPath;           ///< -p
  bool HaveFixedArgs = false;      ///< "--" was given
  std::vector<std::string> FixedArgs;
  unsigned Jobs = 1;
  bool Fix = false;
};

struct CxxResult {
  std::vector<Finding> Findings;
  /// Compiler errors and files that could not be analysed, one line each.
  std::vector<std::string> Errors;
};

/// Whether a compile command can be found for File (the "--" arguments, -p,
/// or a database above it).
bool hasCompileCommands(const std::string &File, const CxxOptions &Opts);

/// Checks that every file has a compile command before any work starts, so
/// a missing database is a usage error, not a partial run.
llvm::Error checkCompileCommands(const std::vector<std::string> &Files,
                                 const CxxOptions &Opts);

CxxResult runCxx(const std::vector<std::string> &Files, const CxxOptions &Opts);

/// Names of the checks the linked tether module provides, filtered by Glob.
std::vector<std::string> listCxxChecks(const std::string &Glob);

} // namespace tether

#endif
