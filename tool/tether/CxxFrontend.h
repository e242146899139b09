//===- CxxFrontend.h - Run the tether clang-tidy checks over C++ files ----===//
#ifndef TETHER_TOOL_CXXFRONTEND_H
#define TETHER_TOOL_CXXFRONTEND_H

#include "common/Finding.h"
#include "engine/Ir.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace tether {
class Progress;

/// Compilation databases loaded during one run, shared by its files.
struct DatabaseCache;

struct CxxOptions {
  std::string Checks = "tether-*"; ///< clang-tidy glob
  std::string ConfigFile;          ///< --config, handed to the checks
  std::string BuildPath;           ///< -p
  bool HaveFixedArgs = false;      ///< "--" was given
  std::vector<std::string> FixedArgs;
  unsigned Jobs = 1;
  bool Fix = false;
  /// When set, each database is loaded once for the whole run (a
  /// long-lived server leaves it unset, so edits to a database are seen).
  std::shared_ptr<DatabaseCache> Databases;
  /// Told when each translation unit starts (may be null).
  Progress *Steps = nullptr;
  /// Keep the lowered programs of the TUs that bind functions into Python
  /// or define functions other TUs may bind (CxxResult::Programs), for a
  /// Python package of the same run (engine/Link.h).
  bool KeepPrograms = false;
};

std::shared_ptr<DatabaseCache> makeDatabaseCache();

struct CxxResult {
  std::vector<Finding> Findings;
  /// Compiler errors and files that could not be analysed, one line each.
  std::vector<std::string> Errors;
  /// With KeepPrograms: the TUs' programs, in an order that does not
  /// depend on which thread finished first.
  std::vector<engine::Program> Programs;
};

/// Checks that every file has a compile command before any work starts, so
/// a missing database is a usage error, not a partial run. A file without
/// one for which MayLeaveOut says so goes to *LeftOut instead.
llvm::Error checkCompileCommands(
    const std::vector<std::string> &Files, const CxxOptions &Opts,
    llvm::function_ref<bool(const std::string &)> MayLeaveOut = nullptr,
    std::vector<std::string> *LeftOut = nullptr);

CxxResult runCxx(const std::vector<std::string> &Files, const CxxOptions &Opts);

/// Names of the checks the linked tether module provides, filtered by Glob.
std::vector<std::string> listCxxChecks(const std::string &Glob);

} // namespace tether

#endif
