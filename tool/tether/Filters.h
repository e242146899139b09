//===- Filters.h - CI selections: changed lines, baselines, shards --------===//
//
// What a CI lint stage needs on top of a plain run: report only findings on
// lines a change touched (as clang-tidy-diff does), accept the findings a
// baseline file records, and split a large tree across jobs.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_TOOL_FILTERS_H
#define TETHER_TOOL_FILTERS_H

#include "common/Finding.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <string>
#include <utility>
#include <vector>

namespace tether {

/// A path made absolute and normalised, the key all filters compare by.
std::string canonicalPath(llvm::StringRef Path);

/// Lines added or changed per file, read from a unified diff (`git diff
/// -U0`). Paths in the diff ("+++ b/dir/f.cpp") are relative to Root.
class ChangedLines {
public:
  static llvm::Expected<ChangedLines> parseDiff(llvm::StringRef Diff,
                                                llvm::StringRef Root);
  /// Runs `git diff -U0 REV` in the repository that holds the working
  /// directory.
  static llvm::Expected<ChangedLines> fromGit(llvm::StringRef Rev);
  static llvm::Expected<ChangedLines> fromFile(llvm::StringRef DiffFile);

  bool contains(const Location &L) const;

private:
  /// Per canonical path: sorted, inclusive [first, last] line ranges.
  llvm::StringMap<std::vector<std::pair<unsigned, unsigned>>> Ranges;
};

/// A stable identity of a finding that survives unrelated edits: the check,
/// the file, the message, the text of the flagged line (whitespace-trimmed)
/// and the occurrence among identical ones. Not the line number, so code
/// added above a finding keeps it baselined. Findings must be sorted.
std::vector<std::string> fingerprints(const std::vector<Finding> &Findings);

/// Accepted findings, by fingerprint (a multiset).
class Baseline {
public:
  static llvm::Expected<Baseline> load(llvm::StringRef File);
  static llvm::Error write(llvm::StringRef File,
                           const std::vector<Finding> &Findings,
                           const std::vector<std::string> &Fingerprints);
  /// Consumes one accepted occurrence of Fingerprint if there is one.
  bool accept(const std::string &Fingerprint);

private:
  llvm::StringMap<unsigned> Counts;
};

/// --shard=I/N: 0 <= I < N.
struct Shard {
  unsigned Index = 0;
  unsigned Count = 1;
  static llvm::Expected<Shard> parse(llvm::StringRef Spec);
  /// Whether Path (as displayed, relative to the working directory) belongs
  /// to this shard: a stable hash of the path, so adding a file never moves
  /// the others between jobs.
  bool owns(llvm::StringRef Path) const;
};

} // namespace tether

#endif
