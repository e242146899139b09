//===- ResultCache.h - What a scan read and found, kept between CLI runs --===//
//
// A run of `tether check` over a few files of a package reads the package
// as context, so that a capture begun elsewhere reaches the named files.
// Run again over the same files with nothing changed (a pre-commit hook
// after another hook failed, a CI shard re-run), it would parse, lower and
// analyse all of it again to say the same thing. The CLI keeps, for each
// scan, the record of what discovery read (every file's text hash, the
// modules its text imports, its module identity, its catalog) and what the
// scan reported. The next run over the same named files repeats discovery
// without parsing (a file's imports are taken from the record while its
// text hash is the recorded one) and, when it reads exactly the files the
// record lists with exactly their texts, identities and catalogs, reports
// the record's findings. Anything else (a changed or new file, a new
// importer of a named file, a new __init__.py, another .tether.yaml, another
// build of tether) is a miss and a full analysis, which replaces the record.
//
// Discovery is the same code in both runs (PythonFrontend.cpp), so a hit
// means the analysis would be given the same inputs; the analysis is
// deterministic, so its result is the recorded one.
//
// Records are files named by a hash of their key, holding the key itself;
// each is written to a private file and renamed into place, so a concurrent
// run sees an old record or a new one, never part of one, and no lock is
// held while analysing. A record that cannot be read back (truncated,
// scrambled, another key, another format) is ignored with one line and
// rewritten by the analysis that follows. The first line of a record is a
// digest of the rest, so that a changed byte that leaves valid JSON is
// caught too. The 256 most recently used records are kept.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_RESULTCACHE_H
#define TETHER_PYTHON_RESULTCACHE_H

#include "PythonFrontend.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tether::python {

struct ModuleId;

/// One scan: what it read, in discovery order, and what it reported.
struct ScanRecord {
  struct Input {
    std::string Path;      ///< As discovery lists it.
    bool Readable = false; ///< Its text could be read.
    uint64_t Hash = 0;     ///< xxh3 of its text, when Readable.
    /// The modules its text imports (importedModules), in order; empty when
    /// it did not parse.
    std::vector<std::string> Imports;
    std::string Module;    ///< Its ModuleId, spelled by ResultCache::spell.
    uint64_t Catalog = 0;  ///< xxh3 of catalogKey of its catalog.
  };
  std::vector<Input> Inputs;
  std::vector<Finding> Findings;
  std::vector<FileProblem> Problems;
  unsigned FilesRead = 0;
  unsigned ContextFilesRead = 0;
};

class ResultCache {
public:
  /// Records under Dir/python-scans/. Salt names the build of tether: a
  /// record another build wrote is never read back.
  ResultCache(std::string Dir, std::string Salt);

  /// The record kept for Key, if there is one that reads back whole. A
  /// damaged one adds a line to Notes.
  std::optional<ScanRecord> lookup(const std::string &Key,
                                   std::vector<std::string> &Notes) const;
  /// Keep Record for Key. A cache that cannot be written adds a line to
  /// Notes; the run goes on.
  void store(const std::string &Key, const ScanRecord &Record,
             std::vector<std::string> &Notes) const;

  /// $XDG_CACHE_HOME/tether, else ~/.cache/tether; empty when neither
  /// can be named.
  static std::string defaultDir();
  /// A ModuleId as one string, for ScanRecord::Input::Module.
  static std::string spell(const ModuleId &Id);

  /// The record's file for Key (for tests that damage it).
  std::string fileFor(const std::string &Key) const;

private:
  std::string Dir;
  std::string Salt;
};

} // namespace tether::python

#endif
