//===- Model.h - The package model, places, summaries and facts -----------===//
//
// The vocabulary of the Python frontend (DESIGN.md, "A workable way to
// reason"):
//  - Package: the scanned modules, their imports, classes and functions.
//  - Place: memory abstracted by where it is held: a module global, or an
//    attribute (of `self`'s class when known, of anything otherwise). All
//    slots of a container held in a place are that place.
//  - Summary: what a function does to its parameters and returns, computed
//    once (on demand, callees first).
//  - Facts: what a function does that the capture checks judge once the
//    capture context of the whole package is known.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_MODEL_H
#define TETHER_PYTHON_MODEL_H

#include "catalog/Catalog.h"
#include "common/Finding.h"
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <tree_sitter/api.h>

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

struct Place {
  enum KindT : uint8_t { Global, Attr } Kind = Global;
  int Class = -1;   ///< Attr: the class of the receiver when known.
  std::string Name; ///< Global: "module.name"; Attr: the attribute name.
};

/// Places by id, appended by parallel walks: chunks that never move (chunk
/// k holds 1024 << k places), so a place is read without a lock while
/// another walk adds one.
class PlaceTable {
public:
  const Place &operator[](int Id) const { return slot(Id); }
  size_t size() const { return Size; }
  /// Append (the caller serialises appends).
  int push(Place P) {
    int Id = (int)Size;
    unsigned K = chunkOf(Id);
    if (!Chunks[K])
      Chunks[K].reset(new Place[size_t(1024) << K]);
    slot(Id) = std::move(P);
    ++Size;
    return Id;
  }

private:
  static unsigned chunkOf(int Id) {
    uint64_t V = uint64_t(Id) + 1024;
    return 63 - __builtin_clzll(V) - 10;
  }
  Place &slot(int Id) const {
    uint64_t V = uint64_t(Id) + 1024;
    unsigned K = 63 - __builtin_clzll(V) - 10;
    return Chunks[K][V - (uint64_t(1024) << K)];
  }
  std::unique_ptr<Place[]> Chunks[40];
  size_t Size = 0;
};

/// The capture context of a statement, as far as its own function knows.
struct Ctx {
  int Region = -1;       ///< A capture region of this function, or -1.
  bool Excluded = false; ///< Under a negated capture predicate.
  int Stream = -1;       ///< Interned stream expression of a `with stream`.
  bool operator==(const Ctx &O) const {
    return Region == O.Region && Excluded == O.Excluded && Stream == O.Stream;
  }
};

struct Region {
  enum KindT : uint8_t { With, BeginEnd, Predicate } Kind;
  Pos Begin, End; ///< End invalid when the region has no visible end.
};

struct CallFact {
  int Callee;
  Pos At;
  Ctx C;
};

/// A weak reference stored into a place.
struct WeakStoreFact {
  int Place;
  Pos WeakAt, StoreAt;
  Ctx C;
  std::string Holder; ///< The function-local strong holder of the memory.
  Pos DiesAt;         ///< Where the holder is rebound or deleted, if seen.
  Pos ReturnAt;       ///< The first return after the store.
  int Helper = -1;    ///< The helper that made or stored the weak ref.
  Pos HelperAt;
  std::string PlaceName; ///< The place as spelled where it is stored.
};

/// A value read from a place and handed to an operation.
struct PlaceUseFact {
  int Place;
  Pos At;
  Ctx C;
  std::string Var; ///< The local it went through ("" when direct).
  bool SizeChecked = false;
  bool Shared = false; ///< Read through something other than `self`.
  std::string PlaceName; ///< The place as spelled at this use.
};

/// A weak reference handed to an operation after its holder died.
struct DanglingUseFact {
  Pos WeakAt, DiesAt, UseAt;
  Ctx C;
  std::string Holder;
};

/// A write to a workspace place.
struct SlotWriteFact {
  enum KindT : uint8_t { Replace, Clear, FirstFill } Kind;
  int Place;
  Pos At;
  Ctx C;
  bool Shared;       ///< Not `self`'s own attribute: every layer sees it.
  bool ExplicitSize; ///< Allocated with a size computed from the caller.
  Pos SizedAt;
  std::string PlaceName; ///< The place as spelled at the write.
};

/// A weak-ref conversion of an element of a place, unguarded: a finding when
/// the place is initialised with None values somewhere in the package.
struct DeferredNullFact {
  int Place;
  Pos At;
  int Helper = -1;
  Pos HelperAt, PassedAt;
};

struct NoneInitFact {
  int Place;
  Pos At;
};

struct Facts {
  std::vector<Region> Regions;
  std::vector<CallFact> Calls;
  std::vector<WeakStoreFact> WeakStores;
  std::vector<PlaceUseFact> Uses;
  std::vector<DanglingUseFact> Danglings;
  std::vector<SlotWriteFact> SlotWrites;
  std::vector<DeferredNullFact> DeferredNulls;
  std::vector<NoneInitFact> NoneInits;
  std::unordered_set<std::string> Escaped; ///< Locals stored strongly away.
  bool StreamSync = false;
  Pos End; ///< Where the locals die (the function's last statement).
  /// Findings the walk reports by itself (double weak refs, maybe-None
  /// conversions): kept with the function, so a re-walk replaces them.
  std::vector<Finding> Findings;
  /// A call whose callee was not among the predicted callees (its summary
  /// was not read): the scheduler then walks again with the real edges.
  bool Missed = false;
};

struct ParamEffect {
  bool WeakRefs = false;  ///< Converts the parameter to a weak reference.
  bool Unguarded = false; ///< ... without a None check.
  Pos ConvAt;
  bool UsedInOp = false;
  bool Escapes = false; ///< Stored strongly somewhere, or returned.
  struct Store {
    int Place;
    bool Weakened;
    bool Whole;
    bool Shared;
    Pos At;
    std::string Name; ///< The place as spelled at the store.
    bool operator==(const Store &O) const {
      return Place == O.Place && Weakened == O.Weakened && Whole == O.Whole &&
             Shared == O.Shared && At == O.At;
    }
  };
  std::vector<Store> Stores;
};

struct Summary {
  int ReturnsWeakOf = -1; ///< A weak-ref function of this parameter.
  int ReturnsPlace = -1;
  bool ReturnsWorkspace = false;
  std::vector<ParamEffect> Params;
  /// Fold New into this summary; summaries of a recursive cycle only grow
  /// while it iterates to a fixpoint. Returns whether anything was added.
  bool join(const Summary &New);
};

struct Function {
  std::string QualName, Name;
  int Mod = -1, Class = -1;
  TSNode Node{};
  bool ModuleBody = false;
  bool BoundMethod = false; ///< First parameter is the instance.
  /// Nested deeper than the walks may recurse (Nesting.h): not walked, its
  /// summary and facts stay empty.
  bool TooDeep = false;
  std::vector<std::string> Params;
  std::unordered_map<std::string, int> Nested; ///< Local def name -> fn.
  /// The functions a walk of this one may call (a superset of the calls it
  /// resolves), sorted: the edges of the call graph it is scheduled by.
  std::vector<int> Callees;
  Summary Sum;
  Facts F;
};

struct Class {
  std::string QualName, Name;
  int Mod = -1;
  TSNode Node{};
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
  TSTree *Tree = nullptr;
  std::shared_ptr<const CompiledCatalog> Cat;
  std::unordered_map<std::string, std::string> Imports;
  std::unordered_map<std::string, int> Functions, Classes;
  std::unordered_map<std::string, Pos> Globals;
  std::unordered_map<std::string, Pos> NoneGlobals;
  std::vector<std::string> StarImports;
  int Body = -1;
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
  PlaceTable Places;
  std::unordered_map<std::string, int> ModuleByName;
  std::unordered_map<std::string, int> PlaceIds;
  std::unordered_map<std::string, int> Interned;
  std::vector<std::string> Strings;
  std::vector<Finding> Findings;

  /// A module's functions and classes, numbered from 0 (and so are the
  /// indices in its maps) until adopt() appends them to the package.
  struct IndexOut {
    std::vector<Function> Functions;
    std::vector<Class> Classes;
    /// The module's scopes too deeply nested to walk (Nesting.h).
    std::unordered_set<const void *> TooDeep;
  };

  ~Package();
  /// Index module ModIndex: imports, definitions, module globals. Touches
  /// only that module and Out: modules are indexed in parallel.
  void indexModule(int ModIndex, IndexOut &Out);
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
  /// Resolve every class's in-tree bases, so that the walks (in parallel)
  /// only read the class table.
  void resolveBases();
  /// The method Name of class C or its in-tree bases, or -1.
  int findMethod(int C, const std::string &Name, bool SkipSelf = false);
  /// The id of a place (thread-safe). Ids depend on the order the walks
  /// meet places in; they only ever stand for identity.
  int placeId(Place::KindT K, int Class, const std::string &Name);
  bool samePlace(int A, int B) const;
  int intern(const std::string &S); ///< Thread-safe.
  Location loc(Pos P) const;
  Pos pos(int Mod, TSNode N) const;

private:
  Resolved canonical(const std::string &Qual, int Depth);
  void indexBlock(int Mod, TSNode Block, int Class, const std::string &Prefix,
                  bool TopLevel, IndexOut &O);
  int addFunction(int Mod, TSNode Def, int Class, const std::string &Prefix,
                  IndexOut &O);
  std::mutex PlaceMu, InternMu;
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

} // namespace tether::python

#endif
