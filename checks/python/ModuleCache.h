//===- ModuleCache.h - Each module's index and lowering, kept between runs ===//
//
// ResultCache answers a run whose inputs did not change at all. A
// pre-commit hook runs right after an edit, so its named files have always
// changed; what did not change is the rest of the package it reads as
// context. The ModuleCache keeps, per module text, what parsing it gave the
// analysis: the modules it imports (for discovery), what indexModule found
// (Model.h's IndexOut, without tree nodes), its typedTextDigest, and its
// lowered functions together with the package interface they were lowered
// under (packageInterface, PackageCache.h). The package's types
// (PackageTypes) are kept per interface.
//
// A run then parses only the modules without an entry. When every other
// module's lowering was made under the interface the run computes, those
// lowerings and the interface's types are used as they are, and only the
// new texts are lowered; the engine then runs over the whole program. When
// the interface changed (a signature, a class, a module-level name), the
// kept modules are parsed after all and everything is lowered again, as a
// cold run does. Invalidation follows the dependencies the lowering has:
// a module's own text, catalog and identity, and the interface of the rest.
//
// Entries are files named by a hash of their key, holding the key itself
// and a digest of their contents, written to a private file and renamed
// into place (a concurrent run sees an old entry or a new one), and read
// back only when whole: a damaged entry is ignored with one line, and
// rewritten by the run.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_MODULECACHE_H
#define TETHER_PYTHON_MODULECACHE_H

#include "Model.h"
#include "engine/Ir.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tether::python {

struct PackageTypes;

class ModuleCache {
public:
  /// Entries under Dir/python-modules/. Salt names the build of tether.
  ModuleCache(std::string Dir, std::string Salt);

  struct Entry {
    std::vector<std::string> Imports; ///< importedModules of the text.
    uint64_t Typed = 0;               ///< typedTextDigest of its tree.
    /// indexModule's result for the module at index 0 (the user moves it
    /// to its own index: rebase()); no nodes, no TooDeep scopes.
    Package::IndexOut Index;
    /// The package interface Lowered was made under; 0: none kept.
    uint64_t Interface = 0;
    std::string Lowered; ///< Its functions, in order (writeLowered).
  };

  /// The key of a module's entry: its path, identity, text and catalog.
  static std::string keyFor(const std::string &Path, const std::string &Id,
                            uint64_t TextHash, uint64_t CatalogHash);
  /// The entry kept for Key, or null. A damaged one adds a line to Notes.
  std::shared_ptr<const Entry> lookup(const std::string &Key,
                                      std::vector<std::string> &Notes) const;
  /// Keep an entry for Key: Entry's fields, the index as writeIndex wrote
  /// it. A cache that cannot be written adds a line to Notes.
  void store(const std::string &Key, const std::vector<std::string> &Imports,
             uint64_t Typed, llvm::StringRef Index, uint64_t Interface,
             llvm::StringRef Lowered, std::vector<std::string> &Notes) const;
  /// The types kept for Interface, read into Out for a package of Classes
  /// classes and Functions functions; false when none are kept whole.
  bool lookupTypes(uint64_t Interface, size_t Classes, size_t Functions,
                   PackageTypes &Out, std::vector<std::string> &Notes) const;
  void storeTypes(uint64_t Interface, const PackageTypes &T,
                  std::vector<std::string> &Notes) const;
  /// Drop the least recently used entries beyond what is kept; once a run.
  void trim() const;
  /// The file of Key's entry (for tests that damage it).
  std::string fileFor(const std::string &Key) const;

  /// An IndexOut as kept: the nodes and TooDeep scopes are left out.
  static void writeIndex(const Package::IndexOut &O, std::string &Out);
  /// Index read back for module Mod; false on bytes writeIndex did not make.
  static bool readIndex(llvm::StringRef In, int Mod, Package::IndexOut &O);
  /// Make O, read for another module index, module Mod's.
  static void rebase(Package::IndexOut &O, int Mod);
  /// Functions [First, First + Count) of Prog as kept.
  static std::string writeLowered(const engine::Program &Prog, size_t First,
                                  size_t Count);
  /// Count functions read back for a program of Shape's size; false on
  /// bytes writeLowered did not make.
  static bool readLowered(llvm::StringRef In, size_t Count, size_t Functions,
                          size_t Classes, size_t Files,
                          std::vector<engine::Function> &Out);

private:
  bool readFile(const std::string &File, const std::string &Key,
                std::string &Body, std::vector<std::string> &Notes) const;
  void writeFile(const std::string &File, const std::string &Key,
                 llvm::StringRef Body, std::vector<std::string> &Notes) const;
  std::string Dir;
  std::string Salt;
};

} // namespace tether::python

#endif
