//===- Imports.h - The modules a file imports, found on disk ---------------===//
//
// When only some files of a package are named (a pre-commit hook passes the
// staged ones), the helpers they call live in files that were not named. The
// frontend reads those as context: their summaries and capture effects count,
// their own findings are not reported. These helpers say which modules a
// file imports (at any depth: vLLM-style code imports inside functions to
// break cycles) and where a dotted module name lives under an import root.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_IMPORTS_H
#define TETHER_PYTHON_IMPORTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "SyntaxTree.h"
#include <functional>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

namespace tether::python {

/// The absolute module a `from M import ...` statement names: M, or for a
/// relative import M resolved against Module (a package when IsPackage).
std::string importFromModule(SyntaxNode ImportFrom, std::string_view Src,
                             const std::string &Module, bool IsPackage);

/// Dotted names of the modules the tree may import, absolute: for
/// `import a.b` a and a.b; for `from a.b import c` a, a.b and a.b.c (c may be
/// a submodule); relative imports resolved against Module (a package when
/// IsPackage).
std::vector<std::string> importedModules(SyntaxNode Root, std::string_view Src,
                                         const std::string &Module,
                                         bool IsPackage);

/// A text as importersOf asks about it: whether it says `import`, and
/// whether it names a word (as a maximal run of identifier characters). The
/// words are collected once: a language server keeps one ImportWords with
/// each cached text, since looking for the wanted names in every text of a
/// 150k-line package at every edit took an eighth of the edit's time, and
/// most texts had not changed. Text must outlive it.
class ImportWords {
public:
  explicit ImportWords(std::string_view Text);
  bool saysImport() const { return SaysImport; }
  bool names(llvm::StringRef Word) const;

private:
  std::string_view Text;
  bool SaysImport = false;
  llvm::StringSet<> Words; ///< Left empty when the text does not say import.
};

/// The .py files under Roots (hidden folders and __pycache__ skipped,
/// symlinks not followed), other than those in Skip (absolute paths), that
/// may import one of Modules, directly or through each other: a file counts
/// when its text names the last part of a wanted module as a word and says
/// `import`. A change to a helper shows at its callers, so they are context
/// too. Text only, no parse; at most Max files. ReadWords, when given,
/// supplies a file's ImportWords (a language server's open documents and
/// cached files) instead of reading the disk; it returns null for a file to
/// leave out.
using WordsReader = std::function<std::shared_ptr<const ImportWords>(
    const std::string &Path)>;
std::vector<std::string> importersOf(const std::set<std::string> &Roots,
                                     std::vector<std::string> Modules,
                                     const std::set<std::string> &Skip,
                                     size_t Max,
                                     const WordsReader &ReadWords = nullptr);

/// Folder listings, each read once per scan and shared by its threads.
/// Resolving imports asks every import root about every imported name; a
/// tree of scripts has one root per folder, and a stat per question made
/// such a tree of 1,600 files cost 14 million failed stat calls.
class DirectoryCache {
public:
  enum Kind : uint8_t { Missing, File, Folder, Other };
  /// What Dir/Name is (links followed).
  Kind kind(const std::string &Dir, const std::string &Name);
  /// How many folders were listed: each at most once.
  size_t foldersListed();

private:
  using Listing = std::unordered_map<std::string, Kind>;
  const Listing &listing(const std::string &Dir);
  std::mutex Mu;
  std::unordered_map<std::string, std::unique_ptr<Listing>> Folders;
};

/// The file that holds module Name under the import root Root
/// (Root/a/b.py or Root/a/b/__init__.py), or empty.
std::string modulePath(DirectoryCache &Dirs, const std::string &Root,
                       const std::string &Name);

} // namespace tether::python

#endif
