//===- PythonFrontend.h - The four tether checks over Python packages -----===//
//
// Entry point of the Python frontend. The CLI hands it every .py file (and
// directory) named on the command line; it builds one package model over all
// of them (imports resolved within the scanned tree), computes function
// summaries once, and reports findings with the same check names and
// messages as the C++ checks.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_PYTHONFRONTEND_H
#define TETHER_PYTHON_PYTHONFRONTEND_H

#include "catalog/Catalog.h"
#include "common/Finding.h"
#include "engine/Link.h"
#include <string>
#include <vector>

namespace tether::python {

class PackageCache;
class ResultCache;
class ModuleCache;

/// A file that could not be analysed (unreadable, not Python 3, binary...).
/// The scan goes on without it.
struct FileProblem {
  std::string File;
  std::string Message;
};

struct Result {
  std::vector<Finding> Findings; ///< Unsorted; NOLINT/noqa already applied.
  std::vector<FileProblem> Problems;
  unsigned FilesRead = 0;        ///< Of the files named (or found in named directories).
  unsigned ContextFilesRead = 0; ///< Imported files read as context.
  /// Folders listed to resolve imports: each at most once per run, however
  /// many import roots and imports ask about it.
  unsigned FoldersListed = 0;
  /// Set when the scan cannot proceed at all (a malformed .tether.yaml):
  /// the CLI prints it and exits 2.
  std::string FatalError;
  /// What the ResultCache had to say (a damaged record, a cache that
  /// cannot be written), a line each, for stderr.
  std::vector<std::string> Notes;
  unsigned Scans = 0;          ///< Package scans of the run.
  unsigned ScansFromCache = 0; ///< Of them, answered by the ResultCache.
  unsigned Modules = 0; ///< Modules of the scans analysed (not answered).
  /// Of them, read from the ModuleCache instead of parsed.
  unsigned ModulesFromCache = 0;
};

struct Options {
  unsigned Jobs = 0; ///< 0: all cores.
  /// Also read, as context, the modules the named files import (at any
  /// depth) that live under the files' import roots: their summaries count,
  /// their findings are not reported.
  bool FollowImports = true;
  /// C++ functions bound into Python by the extensions analysed in the same
  /// run (engine/Link.h): calls of their Python names reach their bodies.
  const engine::Library *Foreign = nullptr;
  /// Texts, trees and lowered functions kept from earlier analyses by a
  /// long-lived caller (the language server; PackageCache.h), and the open
  /// documents' texts to use instead of their files. Null: read everything.
  PackageCache *Cache = nullptr;
  /// Where the CLI keeps what each scan read and found between runs
  /// (ResultCache.h). Null: every scan is analysed.
  const ResultCache *Records = nullptr;
  /// Where the CLI keeps each module's index and lowering between runs
  /// (ModuleCache.h), so that a run after an edit parses only what changed.
  /// Null: every module is parsed.
  const ModuleCache *Modules = nullptr;
  /// The caller exits soon after (a `tether check` run): each scan's texts,
  /// package model and IR are left to the process's exit instead of being
  /// freed piece by piece (llvm::BuryPointer, as clang's -disable-free).
  bool LeaveToExit = false;
};

/// Analyse the given .py files and directories (searched recursively for
/// *.py, symlink loops detected) as one package.
Result analyze(const std::vector<std::string> &Paths,
               CatalogProvider &Catalogs, const Options &Opts);

} // namespace tether::python

#endif
