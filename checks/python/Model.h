//===- Model.h - The package model the lowering reads ---------------------===//
//
// The scanned modules, their imports, classes, functions and globals, and
// name resolution across them. Places, summaries and facts are the
// engine's (checks/engine/): this model only says what names mean.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_MODEL_H
#define TETHER_PYTHON_MODEL_H

#include "catalog/Catalog.h"
#include "common/Finding.h"
#include "engine/Link.h"
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "SyntaxTree.h"

namespace tether::python {

/// A source position: module index, 0-based row and byte column.
struct Pos {
  int32_t Mod = -1;
  uint32_t Row = 0, Col = 0;
  bool valid() const { return Mod >= 0; }
  bool operator==(const Pos &O) const {
    return Mod == O.Mod && Row == O.Row && Col == O.Col;
  }
};

/// How the analysed text of a module maps to its file's bytes.
struct SourceLayout {
  unsigned BomBytes = 0; ///< A UTF-8 byte order mark dropped from the text.
  bool Latin1 = false;   ///< A PEP 263 latin-1 file, converted to UTF-8.
  /// The file offset of Text's byte Offset.
  unsigned fileOffset(std::string_view Text, unsigned Offset) const {
    unsigned Out = Offset;
    if (Latin1) // each non-ASCII character took two bytes in Text
      for (unsigned I = 0; I < Offset && I < Text.size(); ++I)
        if ((static_cast<unsigned char>(Text[I]) & 0xC0) == 0x80)
          --Out;
    return BomBytes + Out;
  }
  /// Text as the file spells it.
  std::string fileText(std::string_view Text) const {
    if (!Latin1)
      return std::string(Text);
    std::string Out;
    for (size_t I = 0; I < Text.size(); ++I) {
      unsigned char C = static_cast<unsigned char>(Text[I]);
      if (C >= 0xC0 && I + 1 < Text.size())
        Out.push_back(static_cast<char>(((C & 0x03) << 6) |
                                        (static_cast<unsigned char>(Text[++I]) & 0x3F)));
      else
        Out.push_back(static_cast<char>(C));
    }
    return Out;
  }
};

struct Function {
  std::string QualName, Name;
  int Mod = -1, Class = -1;
  SyntaxNode Node{};
  bool ModuleBody = false;
  bool BoundMethod = false; ///< First parameter is the instance.
  /// Nested deeper than the lowering may recurse (Nesting.h): lowered empty, its
  /// summary and facts stay empty.
  bool TooDeep = false;
  std::vector<std::string> Params;
  std::unordered_map<std::string, int> Nested; ///< Local def name -> fn.
};

struct Class {
  std::string QualName, Name;
  int Mod = -1;
  SyntaxNode Node{};
  std::vector<std::string> BaseNames;
  std::vector<int> Bases;
  bool BasesResolved = false;
  std::unordered_map<std::string, int> Methods;
  std::vector<std::string> Fields; ///< Annotated class-level names, in order.
};

/// What a dotted name stands for.
struct Resolved {
  enum KindT : uint8_t { External, Function, Class, Global, Module } Kind =
      External;
  int Index = -1;
  std::string Qual;
};

struct Module {
  std::string Name, Path;
  bool IsPackage = false;
  bool Loose = false; ///< In a folder without __init__.py (ModuleId::Loose).
  std::string Source;
  SourceLayout Layout;
  SyntaxTree *Tree = nullptr;
  /// When set, Tree is a kept text's own (PackageCache.h), shared read-only
  /// with later analyses and their indexes: it is not the module's to
  /// delete.
  std::shared_ptr<const void> TreeOwner;
  std::shared_ptr<const CompiledCatalog> Cat;
  std::unordered_map<std::string, std::string> Imports;
  std::unordered_map<std::string, int> Functions, Classes;
  std::unordered_map<std::string, Pos> Globals;
  std::unordered_map<std::string, Pos> NoneGlobals;
  std::vector<std::string> StarImports;
  int Body = -1;
  /// tooDeepScopes of Tree when already known (a tree kept between
  /// analyses, PackageCache.h): indexModule then does not walk it again.
  std::shared_ptr<const std::unordered_set<const void *>> TooDeep;
  /// What of this module could not be analysed (a function too deeply
  /// nested), one line each, for the file's problems.
  std::vector<std::string> Problems;
  /// Package::resolve's answers for names written in this module.
  std::unordered_map<std::string, Resolved> ResolveCache;
  std::mutex ResolveMu;
};

struct Package {
  std::vector<std::unique_ptr<Module>> Modules;
  std::vector<Function> Functions;
  std::vector<Class> Classes;
  std::unordered_map<std::string, int> ModuleByName;
  std::vector<Finding> Findings;
  /// C++ functions bound into Python, from the same run (may be null);
  /// lowerPackage appends them after the package's functions, the first at
  /// ForeignBase.
  const engine::Library *Foreign = nullptr;
  engine::FnId ForeignBase = 0;

  /// What indexModule finds in a module: its functions and classes,
  /// numbered from 0 (and so are the indices in its maps) until adopt()
  /// appends them to the package, and the module's own tables, which
  /// adopt() moves into the Module. A value of the module's tree, text,
  /// name, kind and index alone: a language server keeps it with a text
  /// that did not change (PackageCache.h).
  struct IndexOut {
    std::vector<Function> Functions;
    std::vector<Class> Classes;
    /// The module's scopes too deeply nested to lower (Nesting.h).
    std::unordered_set<const void *> TooDeep;
    /// For Module's fields of the same names.
    std::unordered_map<std::string, std::string> Imports;
    std::unordered_map<std::string, int> ModFunctions, ModClasses;
    std::unordered_map<std::string, Pos> Globals, NoneGlobals;
    std::vector<std::string> StarImports;
    int Body = -1;
    std::vector<std::string> Problems;
  };

  ~Package();
  /// Index module ModIndex: imports, definitions, module globals. Reads
  /// only that module and writes only Out: modules are indexed in parallel.
  void indexModule(int ModIndex, IndexOut &Out) const;
  /// Append what indexModule found, in module order.
  void adopt(int ModIndex, IndexOut &&Out);
  /// Thread-safe once resolveBases() has run.
  Resolved resolve(int Mod, const std::string &Dotted,
                   const std::unordered_map<std::string, std::string>
                       *LocalImports = nullptr);
  /// What a fully qualified name ("pkg.mod.fn") stands for.
  Resolved resolveQualified(const std::string &Qual) {
    return canonical(Qual, 0);
  }
  /// Resolve every class's in-tree bases, so that the lowering (in parallel)
  /// only read the class table.
  void resolveBases();
  /// Index and adopt every module in order, then resolve the bases: what
  /// a caller holding parsed modules does on one thread (tests, tools).
  void indexAll();
  /// The method Name of class C or its in-tree bases, or -1.
  int findMethod(int C, const std::string &Name, bool SkipSelf = false);
  Location loc(Pos P) const;
  Pos pos(int Mod, SyntaxNode N) const;

private:
  Resolved canonical(const std::string &Qual, int Depth);
  void indexBlock(int Mod, SyntaxNode Block, int Class, const std::string &Prefix,
                  bool TopLevel, IndexOut &O) const;
  /// Decorated: the decorated_definition around Def, or a null node (handed
  /// down: asking Def for its parent walks down from the root).
  int addFunction(int Mod, SyntaxNode Def, SyntaxNode Decorated, int Class,
                  const std::string &Prefix, IndexOut &O) const;
};

/// Where a file sits in the import system.
struct ModuleId {
  std::string Name; ///< Dotted module name.
  std::string Root; ///< The folder Name is relative to (a sys.path entry).
  bool IsPackage = false; ///< An __init__.py.
  /// Its folder has no __init__.py (a namespace package or a loose
  /// script): sibling scripts may also import it by its bare stem.
  bool Loose = false;
};

/// A file in a regular package is named by the packages (folders with
/// __init__.py) it sits in, from the folder above the outermost one. A file
/// in a folder without __init__.py (PEP 420 namespace packages, scripts) is
/// named by its path from the project root (the nearest folder above with
/// pyproject.toml, setup.py, setup.cfg or .git, its src/ in the src layout;
/// else the working directory when the file is below it), as `python -m`
/// run there imports it; by its stem when no such root applies.
ModuleId moduleIdFor(const std::string &Path);

/// What a folder gives the identity of every module in it (moduleIdFor is
/// moduleIdIn(folderIdFor(its folder), its path)): a scan asks once per
/// folder, not once per file and folder above it.
struct FolderId {
  std::string Package; ///< Dotted name of the folder's package; "": none.
  std::string Root;    ///< The folder above its outermost package.
  /// A folder without __init__.py below a project root: the root, and the
  /// folder's dotted path from it ("a.b."); both "" when none applies.
  std::string LooseRoot, LoosePrefix;
};
FolderId folderIdFor(const std::string &AbsDir);
ModuleId moduleIdIn(const FolderId &Folder, const std::string &AbsPath);

} // namespace tether::python

#endif
