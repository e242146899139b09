//===- PackageCache.h - What a long-lived caller keeps between analyses ---===//
//
// The language server analyses the same package again after every edit.
// Reading, parsing and lowering every module each time is most of the cost,
// and most modules did not change. A PackageCache, handed to analyze() in
// Options, keeps:
//  - each file's text and tree, keyed by path and validated by the file's
//    modification time and size at every analysis (or replaced by the text
//    of an open document: an overlay);
//  - per analysis (named files), the lowered program, whose functions are
//    reused for every module whose text and catalog are unchanged, as long
//    as no module's interface (what other modules' lowering reads of it)
//    changed.
// The engine's session then interprets again only the functions of the
// modules lowered again and the callers whose callees' summaries changed.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_PACKAGECACHE_H
#define TETHER_PYTHON_PACKAGECACHE_H

#include "Imports.h"
#include "Model.h"
#include "engine/Engine.h"
#include "engine/Ir.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Chrono.h"
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tether::python {

struct PackageTypes;

class PackageCache {
public:
  PackageCache() = default;
  PackageCache(const PackageCache &) = delete;
  PackageCache &operator=(const PackageCache &) = delete;

  /// An open document's text: used instead of Path's file until dropped.
  void setOverlay(const std::string &Path, std::string Text);
  void dropOverlay(const std::string &Path);
  /// Path changed on disk (a watched-file event): read it again at the next
  /// analysis even when its time and size look unchanged.
  void forget(const std::string &Path);
  bool hasOverlay(const std::string &Path);

  /// What the last analysis did, for the server's log.
  struct Stats {
    unsigned Modules = 0;        ///< In the package analysed.
    unsigned Parsed = 0;         ///< Texts not seen before: parsed.
    unsigned ModulesLowered = 0; ///< Modules whose functions were lowered.
    bool InterfaceChanged = false; ///< Every module was lowered again.
    /// Interpretations of a function's body the engine ran (a function of
    /// a recursive component once per round).
    size_t FunctionsInterpreted = 0;
  };
  Stats Last;

  //===--- For analyze() (PythonFrontend.cpp) ---------------------------===//

  /// One text and what parsing it gave.
  struct Source {
    std::string Text;
    SourceLayout Layout;
    std::string Problem; ///< Unreadable, or not analysable Python.
    SyntaxTree *Tree = nullptr; ///< Owned here; analyses only read it.
    bool Parsed = false;
    bool Readable = true; ///< False: Problem says why the file was not read.
    uint64_t Hash = 0; ///< Of Text.
    uint64_t TypedText = 0; ///< typedTextDigest of the tree.
    /// tooDeepScopes of the tree (its keys hold for the tree's copies:
    /// Nesting.h's TopLevelScope).
    std::shared_ptr<const std::unordered_set<const void *>> TooDeep;
    ~Source();
    /// The modules the text imports, as importedModules finds them for the
    /// module Key (name and kind): computed once per text and key, since
    /// following the imports walks every tree of the package at every
    /// analysis. Thread-safe.
    std::vector<std::string>
    imports(const std::string &Key,
            llvm::function_ref<std::vector<std::string>()> Compute) const;

    /// What indexModule finds in the tree for the module Key (its index,
    /// name and kind in the package), computed once per text and key:
    /// indexing every module again at every edit was a fifth of an edit's
    /// time. Its nodes are Tree's, which an analysis shares (Module's
    /// TreeOwner) instead of copying. Thread-safe.
    std::shared_ptr<const Package::IndexOut>
    index(const std::string &Key,
          llvm::function_ref<Package::IndexOut()> Compute) const;
    /// What importersOf asks of the text, collected at the first question.
    /// Thread-safe.
    const ImportWords &words() const;

  private:
    mutable std::mutex IndexMu;
    mutable std::string IndexKey;
    mutable std::shared_ptr<const Package::IndexOut> Index;
    mutable std::once_flag WordsOnce;
    mutable std::unique_ptr<ImportWords> Words;
    mutable std::mutex ImportsMu;
    mutable std::string ImportsKey;
    mutable std::vector<std::string> Imports;
    mutable bool HaveImports = false;
  };
  using Parser = llvm::function_ref<void(Source &)>;
  /// Path's source (the overlay, else the file), parsed by Parse when its
  /// text was not parsed before. Thread-safe.
  std::shared_ptr<const Source> source(const std::string &Path, Parser Parse);
  /// Path's words for importersOf (kept alive by the pointer); null when it
  /// cannot be read.
  std::shared_ptr<const ImportWords> words(const std::string &Path);

  /// The program an earlier analysis of the same named files lowered.
  struct Lowered {
    uint64_t Interface = 0; ///< packageInterface() it was lowered under.
    std::vector<uint64_t> ModuleKeys; ///< moduleKey() of each module.
    engine::Program Prog;
    /// What the lowering of Prog read of the package's types: valid for
    /// another lowering under the same Interface.
    std::shared_ptr<PackageTypes> Types;
    /// The engine's last run over Prog: the summaries of functions whose
    /// module was not lowered again are reused.
    engine::Session Engine;
  };
  Lowered &lowered(const std::string &Analysis);
  /// The key of an analysis of Paths (its scan Scan) for lowered().
  static std::string analysisKey(const std::vector<std::string> &Paths,
                                 size_t Scan);
  /// Forget what analyses of Paths lowered (a document was closed).
  void dropAnalyses(const std::vector<std::string> &Paths);

private:
  struct Entry {
    std::shared_ptr<const Source> Src;
    llvm::sys::TimePoint<> Modified;
    uint64_t Size = 0;
  };
  std::shared_ptr<const Source> read(const std::string &Path);
  std::mutex Mu;
  std::map<std::string, std::shared_ptr<const Source>> Overlays;
  std::map<std::string, Entry> Files;
  std::map<std::string, Lowered> Programs;
};

/// The parts of a module's text that TypeTable and the resolution of other
/// modules' names read, hashed: module-level statements, class bodies,
/// signatures and decorators, assignments to attributes. A superset, so
/// that a change there is never missed; other function bodies are left out,
/// and so are positions (a module's lowering records only its own). Kept
/// with each parsed text: walking every tree at every edit costs as much
/// as lowering a module.
uint64_t typedTextDigest(const SyntaxTree *Tree, std::string_view Src);
/// What the lowering of one module may read of the others in an indexed
/// package, hashed: every module's path, names, definitions (and so the
/// numbering of functions and classes), and Typed[i], the typedTextDigest
/// of module i.
uint64_t packageInterface(const Package &P, const std::vector<uint64_t> &Typed);
/// What a module's own lowering reads besides the interfaces: its text and
/// its catalog.
uint64_t moduleKey(const Module &M, uint64_t TextHash);

} // namespace tether::python

#endif
