//===- PythonFrontend.cpp - The four tether checks over Python packages ---===//
//
// Pipeline: discover files; read and parse them in parallel (one tree-sitter
// parse per file); index modules; lower every function into the engine's IR
// (Lower.h), in parallel; run the shared engine over the package; drop what
// NOLINT / noqa comments suppress.
//
//===----------------------------------------------------------------------===//
#include "PythonFrontend.h"
#include <map>
#include <set>
#include "common/Paths.h"
#include "common/Sanitizers.h"
#include "Imports.h"
#include "Model.h"
#include "Recovery.h"
#include "Sources.h"
#include "Suppression.h"
#include "Syntax.h"
#include "TreeAlloc.h"
#include "Validate.h"
#include "Lower.h"
#include "LowerImpl.h"
#include "PackageCache.h"
#include "ModuleCache.h"
#include "ResultCache.h"
#include "engine/Engine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/xxhash.h"
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

using namespace tether;
using namespace tether::python;

namespace {

struct Loaded {
  std::string Text;
  SyntaxTree *Tree = nullptr;
  std::string Problem;
  bool Readable = false; // Text could be read (it may still not parse)
  SourceLayout Layout;
  std::string Name;
  bool IsPackage = false;
  bool Loose = false; // see ModuleId::Loose
  uint64_t Hash = 0;  // of Text, when read through a PackageCache
  uint64_t TypedText = 0; // its typedTextDigest, likewise
  std::shared_ptr<const PackageCache::Source> Src; // likewise
  std::shared_ptr<const std::unordered_set<const void *>> TooDeep; // of Tree
  // With a ModuleCache: the text's entry key, and its entry when one is
  // kept (then the text is not parsed unless the interface changed);
  // else the imports and typedTextDigest of the tree, for the new entry.
  std::string EntryKey;
  std::shared_ptr<const ModuleCache::Entry> Entry;
  std::vector<std::string> Imports;
  std::vector<std::string> Notes; // the cache's, merged after loading
};

/// Module identities by path, computed once per run: naming a file asks
/// every folder above it for __init__.py and project markers, and each
/// stage (scans, roots, loading) asks again. The folders' answers are kept
/// too: the files of a folder share them.
class ModuleIds {
public:
  ModuleId get(const std::string &Path) {
    {
      std::lock_guard<std::mutex> Lock(Mu);
      auto It = Ids.find(Path);
      if (It != Ids.end())
        return It->second;
    }
    const std::string Abs = absolutePath(Path);
    std::string Dir = llvm::sys::path::parent_path(Abs).str();
    std::optional<FolderId> Folder;
    {
      std::lock_guard<std::mutex> Lock(Mu);
      auto It = Folders.find(Dir);
      if (It != Folders.end())
        Folder = It->second;
    }
    if (!Folder)
      Folder = folderIdFor(Dir);
    ModuleId Id = moduleIdIn(*Folder, Abs);
    std::lock_guard<std::mutex> Lock(Mu);
    Folders.emplace(std::move(Dir), std::move(*Folder));
    return Ids.emplace(Path, std::move(Id)).first->second;
  }

private:
  std::mutex Mu;
  std::unordered_map<std::string, ModuleId> Ids;
  std::unordered_map<std::string, FolderId> Folders;
};

struct ParserDeleter {
  void operator()(TSParser *P) const { ts_parser_delete(P); }
};

/// A parser for Python. One made inside a TreeArena goes with the arena,
/// undeleted.
TSParser *newParser() {
  TSParser *P = ts_parser_new();
  ts_parser_set_language(P, Grammar::get().Lang);
  return P;
}

TSParser *threadParser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> Parser;
  if (!Parser)
    Parser.reset(newParser());
  return Parser.get();
}

std::string at(TSPoint P) {
  return "line " + std::to_string(P.row + 1) + ", column " +
         std::to_string(P.column + 1);
}

bool isErrorNode(SyntaxNode N) {
  return symbolOf(N) == (TSSymbol)-1; // ts_builtin_sym_error
}

/// A Python 2 statement (print / exec) among the statements of the tree.
bool findPython2(SyntaxNode Root, TSPoint &Where) {
  const Grammar &G = Grammar::get();
  return findAmongStatements(Root, /*IntoErrors=*/true, [&](SyntaxNode C) {
    TSSymbol K = symbolOf(C);
    if (K != G.PrintStmt && K != G.ExecStmt)
      return false;
    // `print >> f` and `print >> f, x, ...` are also Python 3 expressions
    // (a shift of the print function, alone or first in a tuple): CPython
    // compiles them. Other print forms and exec statements are Python 2.
    bool FirstIsChevron = false, First = true;
    forEachChild(C, true, [&](SyntaxNode A, TSFieldId) {
      if (First && symbolOf(A) != G.Comment) {
        FirstIsChevron = symbolOf(A) == G.Chevron;
        First = false;
      }
    });
    if (K == G.PrintStmt && FirstIsChevron)
      return false;
    Where = startPoint(C);
    return true;
  });
}

/// Where CPython reports a missing block: at the first token after the
/// header's colon, the one that should have been indented (blanks, line
/// breaks, comments and escaped line breaks skipped), or at the colon's end
/// when the file ends there.
uint32_t tokenAfterHeader(llvm::StringRef Text, uint32_t From) {
  uint32_t I = From;
  while (I < Text.size()) {
    char Ch = Text[I];
    if (Ch == ' ' || Ch == '\t' || Ch == '\f' || Ch == '\r' || Ch == '\n') {
      ++I;
    } else if (Ch == '#') {
      while (I < Text.size() && Text[I] != '\n')
        ++I;
    } else if (Ch == '\\' && I + 1 < Text.size() &&
               (Text[I + 1] == '\n' || Text[I + 1] == '\r')) {
      I += 2;
    } else {
      return I;
    }
  }
  return From;
}

/// CPython's name for the statement a block belongs to, from its first
/// keyword ("'if' statement", "function definition"); empty when unsure.
std::string headerKind(llvm::StringRef Text, SyntaxNode Header) {
  auto IsWordChar = [](char Ch) { return llvm::isAlpha(Ch) || Ch == '_'; };
  llvm::StringRef Rest = Text.substr(startByte(Header));
  llvm::StringRef Word = Rest.take_while(IsWordChar);
  if (Word == "async") // async def/for/with: named by what follows
    Word = Rest.drop_front(Word.size()).ltrim(" \t\f\\\r\n").take_while(IsWordChar);
  if (Word == "except" && Rest.drop_front(Word.size()).ltrim(" \t\f").starts_with("*"))
    return "'except*' statement";
  if (Word == "def")
    return "function definition";
  if (Word == "class")
    return "class definition";
  for (const char *K : {"if", "elif", "else", "for", "while", "with", "try",
                        "except", "finally", "case"})
    if (Word == K)
      return "'" + Word.str() + "' statement";
  return "";
}

/// A compound statement whose body holds no statement (`if x:` followed by
/// a line at the same indentation). tree-sitter's grammar accepts it as an
/// empty block; CPython rejects the file ("expected an indented block
/// after 'if' statement on line N", at the line that is not indented).
bool findEmptyBlock(const SyntaxTree &T, llvm::StringRef Text,
                    std::string &Problem) {
  const Grammar &G = Grammar::get();
  return findAmongStatements(T.root(), /*IntoErrors=*/false, [&](SyntaxNode C) {
    if (symbolOf(C) != G.Block)
      return false;
    bool HasStatement = false;
    forEachChild(C, true, [&](SyntaxNode S, TSFieldId) {
      HasStatement |= symbolOf(S) != G.Comment;
    });
    if (HasStatement)
      return false;
    SyntaxNode Header = parentNode(C);
    std::string Kind = headerKind(Text, Header);
    std::string HeaderLine = std::to_string(startPoint(Header).row + 1);
    Problem = "syntax error at " +
              at(T.pointAt(tokenAfterHeader(Text, startByte(C)))) +
              " (expected an indented block after " +
              (Kind.empty() ? "line " + HeaderLine
                            : Kind + " on line " + HeaderLine) +
              "); not analysed";
    return true;
  });
}

/// Where the first syntax error of a tree with one is. An ERROR node may
/// wrap everything from the start of the file (tree-sitter's recovery keeps
/// the statements it could parse inside it), so its start says little:
/// prefer, in document order, a MISSING token or an ERROR node that holds no
/// nested error and at most two children -- the tokens that did not fit.
TSPoint firstError(SyntaxNode Root) {
  std::vector<SyntaxNode> Work{Root};
  while (!Work.empty()) {
    SyntaxNode N = Work.back();
    Work.pop_back();
    if (isMissing(N))
      return startPoint(N);
    std::vector<SyntaxNode> Bad;
    forEachChild(N, false, [&](SyntaxNode C, TSFieldId) {
      if (hasError(C) || isMissing(C))
        Bad.push_back(C);
    });
    if (isErrorNode(N) && Bad.empty() && childCount(N) <= 2)
      return startPoint(N);
    for (auto It = Bad.rbegin(); It != Bad.rend(); ++It)
      Work.push_back(*It); // first child on top: document order
  }
  // No small error: the outermost one's start.
  SyntaxNode N = Root;
  while (true) {
    if (isErrorNode(N) || isMissing(N))
      return startPoint(N);
    SyntaxNode Next{};
    bool Found = false;
    forEachChild(N, false, [&](SyntaxNode C, TSFieldId) {
      if (!Found && (hasError(C) || isMissing(C))) {
        Next = C;
        Found = true;
      }
    });
    if (!Found)
      return startPoint(N);
    N = Next;
  }
}

/// The tree of a Python 3 text CPython would compile, or null and Problem;
/// with the tree, its tooDeepScopes (measured by the validation's walk).
SyntaxTree *parseChecked(
    const std::string &Text, std::string &Problem,
    std::shared_ptr<const std::unordered_set<const void *>> &TooDeepOut) {
  // The tree may come from a rewrite that closes a grammar gap; its
  // offsets are the text's (Recovery.h).
  std::unique_ptr<SyntaxTree> T;
  {
    // Flattened at once: what tree-sitter allocated for the parse is then
    // dropped whole, and its memory is this thread's for the next file.
    TreeArena Arena;
    TSParser *Parser = Arena.discards() ? newParser() : threadParser();
    TSTree *Parsed = parseWithRecovery(Parser, Text);
    if (Parsed)
      T = std::make_unique<SyntaxTree>(Parsed, Text);
    if (!Arena.discards() && Parsed)
      ts_tree_delete(Parsed);
  }
  if (!T) {
    Problem = "the parser gave up on this file; skipped";
    return nullptr;
  }
  SyntaxNode Root = T->root();
  TSPoint Py2;
  // Only a source that spells print or exec can hold such a statement.
  bool IsPy2 = (Text.find("print") != std::string::npos ||
                Text.find("exec") != std::string::npos) &&
               findPython2(Root, Py2);
  if (hasError(Root)) {
    TSPoint E = firstError(Root);
    Problem = "syntax error at " + at(E) +
              (IsPy2 ? " (Python 2 source? a print statement is at " +
                           at(Py2) + "); only Python 3 is analysed"
                     : "; not analysed");
    return nullptr;
  }
  if (IsPy2) {
    Problem = "Python 2 source (print/exec statement at " + at(Py2) +
              "); only Python 3 is analysed";
    return nullptr;
  }
  if (findEmptyBlock(*T, Text, Problem))
    return nullptr;
  auto TooDeep = std::make_shared<std::unordered_set<const void *>>();
  if (!acceptedByCPython(Root, Text, Problem, TooDeep.get()))
    return nullptr;
  TooDeepOut = std::move(TooDeep);
  return T.release();
}

void setId(const std::string &Path, ModuleIds &Ids, Loaded &L) {
  ModuleId Id = Ids.get(Path);
  L.Name = std::move(Id.Name);
  L.IsPackage = Id.IsPackage;
  L.Loose = Id.Loose;
}

/// Read and parse Path: from the cache when there is one (its tree is
/// then shared: L.Src owns it), else from disk.
void load(const std::string &Path, ModuleIds &Ids, Loaded &L,
          PackageCache *Cache) {
  if (!Cache) {
    if (!(L.Readable = readSource(Path, L.Text, L.Problem, L.Layout)))
      return;
    setId(Path, Ids, L);
    L.Tree = parseChecked(L.Text, L.Problem, L.TooDeep);
    return;
  }
  auto S = Cache->source(Path, [](PackageCache::Source &New) {
    New.Tree = parseChecked(New.Text, New.Problem, New.TooDeep);
  });
  L.Text = S->Text;
  L.Layout = S->Layout;
  L.Hash = S->Hash;
  L.TypedText = S->TypedText;
  L.Src = S;
  L.Problem = S->Problem;
  if (!(L.Readable = S->Readable))
    return;
  setId(Path, Ids, L);
  L.Tree = S->Tree; // read only, and S's: see Module::TreeOwner
}

/// Read Path and take the ModuleCache's entry for its text when one is kept
/// (and UseEntries) instead of parsing it; else parse it and note what its
/// new entry will hold. The key holds what parsing, indexing and lowering
/// the module read besides the rest of the package: its text, identity and
/// catalog.
void loadWithEntry(const std::string &Path, ModuleIds &Ids, Loaded &L,
                   const ModuleCache &Entries, const CompiledCatalog &Cat,
                   bool UseEntries) {
  if (!(L.Readable = readSource(Path, L.Text, L.Problem, L.Layout)))
    return;
  setId(Path, Ids, L);
  L.Hash = llvm::xxh3_64bits(L.Text);
  L.EntryKey = ModuleCache::keyFor(Path, ResultCache::spell(Ids.get(Path)),
                                   L.Hash,
                                   llvm::xxh3_64bits(catalogKey(Cat.Source)));
  if (UseEntries && (L.Entry = Entries.lookup(L.EntryKey, L.Notes)))
    return;
  L.Tree = parseChecked(L.Text, L.Problem, L.TooDeep);
  if (!L.Tree)
    return;
  L.TypedText = typedTextDigest(L.Tree, L.Text);
  // Always, not only when imports are followed: the entry is read by runs
  // that follow them.
  L.Imports = importedModules(L.Tree->root(), L.Text, L.Name,
                              L.IsPackage);
}

} // namespace

/// Bounds the context a few named files can pull in.
static constexpr size_t MaxContextFiles = 20000;

/// The folder a module's dotted name is relative to (the sys.path entry).

/// Split the files into scans in which every dotted module name is unique.
/// Names are the model's identity (of modules, globals, places), so two
/// import roots that both hold `ascend_attn` -- a buggy and a fixed copy, two
/// vendored versions -- must not share one model. Roots whose names collide
/// with nothing stay together in the first scan, so imports across roots
/// (vllm_ascend importing vllm) still resolve.
static std::vector<std::vector<std::string>>
scansWithUniqueNames(const std::vector<std::string> &Files, ModuleIds &Ids) {
  std::map<std::string, std::vector<std::string>> ByRoot; // ordered: stable
  for (const std::string &F : Files)
    ByRoot[Ids.get(F).Root].push_back(F);
  struct Scan {
    std::set<std::string> Names;
    std::vector<std::string> Files;
  };
  std::vector<Scan> Scans;
  for (auto &[Root, RootFiles] : ByRoot) {
    std::set<std::string> Names;
    for (const std::string &F : RootFiles)
      Names.insert(Ids.get(F).Name);
    Scan *Into = nullptr;
    for (Scan &S : Scans) {
      bool Clash = llvm::any_of(Names, [&](const std::string &N) {
        return S.Names.count(N) != 0;
      });
      if (!Clash) {
        Into = &S;
        break;
      }
    }
    if (!Into)
      Into = &Scans.emplace_back();
    Into->Names.insert(Names.begin(), Names.end());
    Into->Files.insert(Into->Files.end(), RootFiles.begin(), RootFiles.end());
  }
  // Keep discovery's order within each scan.
  std::vector<std::vector<std::string>> Out;
  for (Scan &S : Scans) {
    std::set<std::string> In(S.Files.begin(), S.Files.end());
    std::vector<std::string> Ordered;
    for (const std::string &F : Files)
      if (In.count(F))
        Ordered.push_back(F);
    Out.push_back(std::move(Ordered));
  }
  return Out;
}

static void analyzeScan(const std::vector<std::string> &ScanFiles,
                        CatalogProvider &Catalogs, const Options &Opts,
                        ModuleIds &Ids, DirectoryCache &Dirs, Result &R,
                        PackageCache::Lowered *Reuse,
                        const std::string &RecordKey);

/// The key of a scan's ResultCache record: the files as named, from the
/// folder they are named from (findings print them as named), and the
/// options discovery reads. Empty when the scan keeps no record: without a
/// cache, in a language server (which keeps its own), and when C++ bound
/// into Python is part of the run (its bodies are no file of the record).
static std::string recordKey(const std::vector<std::string> &ScanFiles,
                             const Options &Opts) {
  if (!Opts.Records || Opts.Cache || (Opts.Foreign && !Opts.Foreign->empty()))
    return "";
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  std::string Key = std::string(Cwd) + '\n' +
                    (Opts.FollowImports ? "imports" : "no-imports");
  for (const std::string &F : ScanFiles)
    Key += '\n' + F;
  return Key;
}

Result tether::python::analyze(const std::vector<std::string> &Paths,
                               CatalogProvider &Catalogs, const Options &Opts) {
  installTreeAllocator();
  Result R;
  // An open document not yet saved anywhere is analysed from its text.
  std::vector<std::string> OnDisk, Unsaved;
  for (const std::string &P : Paths)
    (Opts.Cache && Opts.Cache->hasOverlay(P) && !llvm::sys::fs::exists(P)
         ? Unsaved
         : OnDisk)
        .push_back(P);
  Discovery D = discover(OnDisk);
  D.Files.insert(D.Files.begin(), Unsaved.begin(), Unsaved.end());
  R.Problems = std::move(D.Problems);
  ModuleIds Ids;
  DirectoryCache Dirs;
  if (Opts.Cache)
    Opts.Cache->Last = PackageCache::Stats();
  size_t ScanIndex = 0;
  for (const std::vector<std::string> &Scan : scansWithUniqueNames(D.Files, Ids)) {
    PackageCache::Lowered *Reuse =
        Opts.Cache && !Opts.Foreign
            ? &Opts.Cache->lowered(PackageCache::analysisKey(Paths, ScanIndex))
            : nullptr;
    analyzeScan(Scan, Catalogs, Opts, Ids, Dirs, R, Reuse,
                recordKey(Scan, Opts));
    ++ScanIndex;
    ++R.Scans;
    if (!R.FatalError.empty())
      break;
  }
  R.FoldersListed = (unsigned)Dirs.foldersListed();
  // A cache that cannot be written is one line, however many of its files
  // failed.
  bool Told = false;
  llvm::erase_if(R.Notes, [&](const std::string &N) {
    if (!llvm::StringRef(N).starts_with("cache: cannot write"))
      return false;
    return std::exchange(Told, true);
  });
  return R;
}

/// Lower P, taking from Old (when given) the functions of every module
/// whose text and catalog are those Old was lowered from, provided no
/// module's interface changed; Old then describes the new lowering.
static engine::Program lowerWithReuse(Package &P, llvm::ThreadPoolInterface &Pool,
                                      const std::vector<uint64_t> &TextHashes,
                                      const std::vector<uint64_t> &TypedTexts,
                                      PackageCache::Lowered *Old,
                                      PackageCache::Stats &Stats,
                                      std::vector<bool> &Unchanged,
                                      const ModuleLowered &Done) {
  Unchanged.assign(P.Functions.size(), false);
  if (!Old)
    return lowerPackage(P, &Pool, nullptr, nullptr, Done);
  uint64_t Interface = packageInterface(P, TypedTexts);
  std::vector<uint64_t> Keys;
  for (size_t I = 0; I < P.Modules.size(); ++I)
    Keys.push_back(moduleKey(*P.Modules[I], TextHashes[I]));
  bool Same = Old->Interface == Interface &&
              Old->ModuleKeys.size() == Keys.size() &&
              Old->Prog.Functions.size() >= P.Functions.size();
  std::vector<bool> Kept(Keys.size(), false);
  for (size_t I = 0; Same && I < Keys.size(); ++I)
    Kept[I] = Old->ModuleKeys[I] == Keys[I];
  // Until this lowering is done, Old describes nothing (its functions are
  // moved out below).
  Old->Interface = 0;
  Old->ModuleKeys.clear();
  if (!Same)
    Old->Types = nullptr;
  engine::Program Prog = lowerPackage(
      P, &Pool,
      [&](engine::FnId F, engine::Function &Out) {
        int Mod = P.Functions[F].Mod;
        if (Mod < 0 || !Kept[Mod])
          return false;
        Out = std::move(Old->Prog.Functions[F]);
        return true;
      },
      &Old->Types, Done);
  // Set here, not in the callback: it runs on the pool's threads, and a
  // vector<bool> packs its elements into shared words.
  for (size_t F = 0; F < P.Functions.size(); ++F)
    Unchanged[F] = P.Functions[F].Mod >= 0 && Kept[P.Functions[F].Mod];
  Stats.InterfaceChanged |= !Same;
  for (size_t I = 0; I < Kept.size(); ++I)
    Stats.ModulesLowered += !Kept[I];
  Old->Interface = Interface;
  Old->ModuleKeys = std::move(Keys);
  return Prog;
}

/// Lower P with a ModuleCache: the functions of modules read from an entry
/// are taken from it, the others lowered; with the interface's kept types
/// when any was read. False when an entry's lowering cannot be used (made
/// under another interface, or not read back whole), or the types are not
/// kept: then the scan is analysed again without entries.
static bool lowerFromEntries(Package &P, llvm::ThreadPoolInterface &Pool,
                             const std::vector<Loaded *> &Kept,
                             const std::vector<size_t> &FirstFn,
                             const std::vector<size_t> &NumFns,
                             uint64_t Interface, const ModuleCache &Entries,
                             std::vector<std::string> &Notes,
                             engine::Program &Prog,
                             std::shared_ptr<PackageTypes> &Types,
                             unsigned &FromCache,
                             const ModuleLowered &Done) {
  bool Any = false;
  for (const Loaded *L : Kept)
    if (L->Entry) {
      if (L->Entry->Interface != Interface)
        return false;
      Any = true;
    }
  std::vector<std::vector<engine::Function>> Read(Kept.size());
  if (Any) {
    Types = std::make_shared<PackageTypes>();
    if (!Entries.lookupTypes(Interface, P.Classes.size(), P.Functions.size(),
                             *Types, Notes))
      return false;
    std::vector<char> Whole(Kept.size(), 1);
    for (size_t I = 0; I < Kept.size(); ++I)
      if (Kept[I]->Entry)
        Pool.async([&, I] {
          Whole[I] = ModuleCache::readLowered(
              Kept[I]->Entry->Lowered, NumFns[I], P.Functions.size(),
              P.Classes.size(), P.Modules.size(), Read[I]);
        });
    Pool.wait();
    if (llvm::is_contained(Whole, 0)) {
      Notes.push_back("cache: ignoring a module entry whose functions do not "
                      "read back; analysing again");
      return false;
    }
  }
  ReuseLowered FromEntry;
  if (Any)
    FromEntry = [&](engine::FnId F, engine::Function &Out) {
      int Mod = P.Functions[F].Mod;
      if (Mod < 0 || !Kept[Mod]->Entry)
        return false;
      Out = std::move(Read[Mod][F - FirstFn[Mod]]);
      return true;
    };
  Prog = lowerPackage(P, &Pool, FromEntry, &Types, Done);
  for (const Loaded *L : Kept)
    FromCache += L->Entry != nullptr;
  return true;
}

namespace {
/// The files a scan reads, in discovery order, and the catalog of each.
struct ScanInputs {
  std::vector<std::string> Paths;
  std::vector<bool> IsContext;
  std::vector<std::shared_ptr<const CompiledCatalog>> Cats;
};
/// Makes the files Paths[First, End) known and, when imports are followed,
/// says what each imports (Imports[I - First]); false stops discovery.
using LevelReader = llvm::function_ref<bool(
    const ScanInputs &In, size_t First, size_t End,
    std::vector<std::vector<std::string>> &Imports)>;
} // namespace

/// The named files first; then the modules of their own top-level packages
/// that import them; then, level by level, the modules they import that
/// live under their import roots (see Imports.h). An analysis and the check
/// of a ResultCache record run this same code and differ in Read only.
/// False: Read stopped it, or R.FatalError says why.
static bool discoverScan(const std::vector<std::string> &ScanFiles,
                         CatalogProvider &Catalogs, const Options &Opts,
                         ModuleIds &Ids, DirectoryCache &Dirs, Result &R,
                         ScanInputs &In, LevelReader Read) {
  In.Paths = ScanFiles;
  In.IsContext.assign(ScanFiles.size(), false);
  std::set<std::string> Seen, Roots;
  // For the importers of the named files: their names, and the folders of
  // their top-level packages.
  std::set<std::string> Packages;
  std::vector<std::string> Named;
  for (const std::string &F : ScanFiles) {
    std::string Abs = absolutePath(F);
    Seen.insert(Abs);
    ModuleId Id = Ids.get(F);
    Roots.insert(Id.Root);
    if (Id.Loose) // a script imports its siblings by their bare names
      Roots.insert(llvm::sys::path::parent_path(Abs).str());
    Named.push_back(Id.Name);
    size_t Dot = Id.Name.find('.');
    if (Dot != std::string::npos) // a module of a package, not a top one
      Packages.insert(Id.Root + "/" + Id.Name.substr(0, Dot));
  }
  // The modules of the named files' own top-level packages that import
  // them (a change to a helper shows at its callers), as context too.
  if (Opts.FollowImports) {
    for (const std::string &Found :
         importersOf(Packages, Named, Seen, MaxContextFiles,
                     Opts.Cache ? WordsReader([&](const std::string &F) {
                       return Opts.Cache->words(F);
                     })
                                : WordsReader()))
      if (Seen.insert(absolutePath(Found)).second) {
        In.Paths.push_back(displayPath(Found));
        In.IsContext.push_back(true);
      }
  }
  for (size_t Done = 0; Done < In.Paths.size();) {
    const size_t End = In.Paths.size();
    // Catalogs first: a malformed .tether.yaml stops the scan.
    for (size_t I = Done; I < End; ++I) {
      auto C = Catalogs.forFile(In.Paths[I]);
      if (!C) {
        R.FatalError = llvm::toString(C.takeError());
        return false;
      }
      In.Cats.push_back(*C);
    }
    std::vector<std::vector<std::string>> Imports(End - Done);
    if (!Read(In, Done, End, Imports))
      return false;
    for (size_t I = Done; I < End && Opts.FollowImports; ++I)
      for (const std::string &Name : Imports[I - Done])
        for (const std::string &Root : Roots) {
          std::string Found = modulePath(Dirs, Root, Name);
          if (Found.empty() || In.Paths.size() >= MaxContextFiles ||
              !Seen.insert(absolutePath(Found)).second)
            continue;
          In.Paths.push_back(displayPath(Found));
          In.IsContext.push_back(true);
        }
    Done = End;
  }
  return true;
}

/// Whether the scan's kept record still holds: discovery, repeated with
/// each file's imports taken from the record while its text is the one
/// recorded, reads exactly the recorded files, with the recorded module
/// identities and catalogs. Then the record's result is R's.
static bool answerFromRecord(const ScanRecord &Rec,
                             const std::vector<std::string> &ScanFiles,
                             CatalogProvider &Catalogs, const Options &Opts,
                             ModuleIds &Ids, DirectoryCache &Dirs, Result &R,
                             llvm::ThreadPoolInterface &Pool) {
  auto Read = [&](const ScanInputs &In, size_t First, size_t End,
                  std::vector<std::vector<std::string>> &Imports) {
    if (End > Rec.Inputs.size())
      return false;
    std::vector<char> Same(End - First, 0);
    for (size_t I = First; I < End; ++I)
      Pool.async([&, I] {
        const ScanRecord::Input &Was = Rec.Inputs[I];
        if (Was.Path != In.Paths[I])
          return;
        std::string Text, Problem;
        SourceLayout Layout;
        bool Ok = readSource(In.Paths[I], Text, Problem, Layout);
        Same[I - First] = Ok == Was.Readable &&
                          (!Ok || llvm::xxh3_64bits(Text) == Was.Hash);
      });
    Pool.wait();
    for (size_t I = First; I < End; ++I) {
      if (!Same[I - First])
        return false;
      Imports[I - First] = Rec.Inputs[I].Imports;
    }
    return true;
  };
  ScanInputs In;
  Result Probe; // a fatal error is the analysis's to report
  if (!discoverScan(ScanFiles, Catalogs, Opts, Ids, Dirs, Probe, In, Read) ||
      In.Paths.size() != Rec.Inputs.size())
    return false;
  for (size_t I = 0; I < In.Paths.size(); ++I)
    if (ResultCache::spell(Ids.get(In.Paths[I])) != Rec.Inputs[I].Module ||
        llvm::xxh3_64bits(catalogKey(In.Cats[I]->Source)) !=
            Rec.Inputs[I].Catalog)
      return false;
  R.Findings.insert(R.Findings.end(), Rec.Findings.begin(), Rec.Findings.end());
  R.Problems.insert(R.Problems.end(), Rec.Problems.begin(), Rec.Problems.end());
  R.FilesRead += Rec.FilesRead;
  R.ContextFilesRead += Rec.ContextFilesRead;
  return true;
}

/// Analyse one scan. False: a ModuleCache entry could not be used after
/// all (analyseScan then runs it again without entries); R is as before.
static bool analyzeScanWith(const std::vector<std::string> &ScanFiles,
                            CatalogProvider &Catalogs, const Options &Opts,
                            ModuleIds &Ids, DirectoryCache &Dirs, Result &R,
                            PackageCache::Lowered *Reuse,
                            const std::string &RecordKey, bool UseEntries) {
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Opts.Jobs));
  const ResultCache *Records = RecordKey.empty() ? nullptr : Opts.Records;
  // A language server keeps its own lowering (PackageCache), and a bound
  // C++ library's numbering is not part of a module's entry.
  const ModuleCache *Entries =
      Opts.Cache || (Opts.Foreign && !Opts.Foreign->empty()) ? nullptr
                                                              : Opts.Modules;
  if (Records && UseEntries) {
    std::optional<ScanRecord> Rec = Records->lookup(RecordKey, R.Notes);
    if (Rec && answerFromRecord(*Rec, ScanFiles, Catalogs, Opts, Ids, Dirs,
                                R, Pool)) {
      ++R.ScansFromCache;
      return true;
    }
  }
  std::vector<std::unique_ptr<Loaded>> Files;
  std::vector<std::vector<std::string>> AllImports; // for the record
  auto Read = [&](const ScanInputs &In, size_t First, size_t End,
                  std::vector<std::vector<std::string>> &Imports) {
    for (size_t I = First; I < End; ++I)
      Files.push_back(std::make_unique<Loaded>());
    for (size_t I = First; I < End; ++I)
      Pool.async([&, I] {
        if (Entries)
          loadWithEntry(In.Paths[I], Ids, *Files[I], *Entries, *In.Cats[I],
                        UseEntries);
        else
          load(In.Paths[I], Ids, *Files[I], Opts.Cache);
      });
    Pool.wait();
    for (size_t I = First; I < End; ++I)
      for (std::string &N : Files[I]->Notes)
        R.Notes.push_back(std::move(N));
    for (size_t I = First; I < End && Opts.FollowImports; ++I) {
      const Loaded &L = *Files[I];
      if (L.Entry) {
        Imports[I - First] = L.Entry->Imports;
        continue;
      }
      if (L.Tree && Entries) {
        Imports[I - First] = L.Imports;
        continue;
      }
      if (!L.Tree)
        continue;
      auto Imported = [&] {
        return importedModules(L.Tree->root(), L.Text, L.Name,
                               L.IsPackage);
      };
      Imports[I - First] =
          L.Src ? L.Src->imports(L.Name + (L.IsPackage ? "/" : ""), Imported)
                : Imported();
    }
    if (Records)
      AllImports.insert(AllImports.end(), Imports.begin(), Imports.end());
    return true;
  };
  ScanInputs In;
  if (!discoverScan(ScanFiles, Catalogs, Opts, Ids, Dirs, R, In, Read))
    return true;
  const std::vector<std::string> &Paths = In.Paths;
  const std::vector<bool> &IsContext = In.IsContext;
  const std::vector<std::shared_ptr<const CompiledCatalog>> &Cats = In.Cats;
  // What the record of this scan will say it read (texts move on below).
  ScanRecord Rec;
  if (Records)
    for (size_t I = 0; I < Paths.size(); ++I) {
      const Loaded &L = *Files[I];
      ScanRecord::Input &Was = Rec.Inputs.emplace_back();
      Was.Path = Paths[I];
      Was.Readable = L.Readable;
      Was.Hash = L.Readable ? llvm::xxh3_64bits(L.Text) : 0;
      Was.Imports = std::move(AllImports[I]);
      Was.Module = ResultCache::spell(Ids.get(Paths[I]));
      Was.Catalog = llvm::xxh3_64bits(catalogKey(Cats[I]->Source));
    }
  const size_t FindingsBefore = R.Findings.size(),
               ProblemsBefore = R.Problems.size();
  const unsigned FilesBefore = R.FilesRead,
                 ContextBefore = R.ContextFilesRead;
  auto Pkg = std::make_unique<Package>();
  Package &P = *Pkg;
  P.Foreign = Opts.Foreign && !Opts.Foreign->empty() ? Opts.Foreign : nullptr;
  std::set<std::string> ContextPaths;
  std::vector<uint64_t> TextHashes, TypedTexts; // of P.Modules, for Reuse
  std::vector<const PackageCache::Source *> Sources; // likewise; null: none
  std::vector<Loaded *> Kept; // of P.Modules, with a ModuleCache
  for (size_t I = 0; I < Paths.size(); ++I) {
    Loaded &L = *Files[I];
    if (!L.Tree && !L.Entry) {
      // An imported file that cannot be read is only missing context; its
      // problem is reported when it is named itself.
      if (!IsContext[I])
        R.Problems.push_back({Paths[I], L.Problem});
      continue;
    }
    // A context module never shadows a named one of the same name.
    if (IsContext[I] && P.ModuleByName.count(L.Name)) {
      if (!L.Src && L.Tree)
        delete L.Tree;
      continue;
    }
    auto M = std::make_unique<Module>();
    M->Path = Paths[I];
    M->Name = std::move(L.Name);
    M->IsPackage = L.IsPackage;
    M->Loose = L.Loose;
    M->Source = std::move(L.Text);
    M->Layout = L.Layout;
    M->Tree = L.Tree;
    M->TreeOwner = L.Src;
    M->Cat = Cats[I];
    M->TooDeep = L.Src ? L.Src->TooDeep : L.TooDeep;
    TextHashes.push_back(L.Hash);
    Sources.push_back(L.Src.get());
    TypedTexts.push_back(L.Entry ? L.Entry->Typed : L.TypedText);
    Kept.push_back(&L);
    int Idx = (int)P.Modules.size();
    P.ModuleByName.emplace(M->Name, Idx);
    P.Modules.push_back(std::move(M));
    if (IsContext[I])
      ContextPaths.insert(Paths[I]);
    else
      ++R.FilesRead;
  }
  R.ContextFilesRead += (unsigned)ContextPaths.size();
  // A loose module is also importable by its bare stem from its own folder
  // (sys.path[0] of a script there): an alias, where no module has that name
  // and no other loose module has that stem.
  std::map<std::string, std::vector<int>> ByStem;
  for (size_t I = 0; I < P.Modules.size(); ++I) {
    const Module &M = *P.Modules[I];
    std::string Stem = llvm::sys::path::stem(M.Path).str();
    if (M.Loose && M.Name != Stem)
      ByStem[Stem].push_back((int)I);
  }
  for (const auto &[Stem, Mods] : ByStem)
    if (Mods.size() == 1)
      P.ModuleByName.emplace(Stem, Mods[0]);
  std::vector<Package::IndexOut> Indexed(P.Modules.size());
  std::vector<std::string> IndexBytes(Entries ? P.Modules.size() : 0);
  for (size_t I = 0; I < P.Modules.size(); ++I)
    Pool.async([&, I] {
      const Module &M = *P.Modules[I];
      if (Entries && Kept[I]->Entry) {
        Indexed[I] = Kept[I]->Entry->Index;
        ModuleCache::rebase(Indexed[I], int(I));
        return;
      }
      const PackageCache::Source *Src = Sources[I];
      if (!Src) {
        P.indexModule((int)I, Indexed[I]);
        if (Entries) // for the module's new entry
          ModuleCache::writeIndex(Indexed[I], IndexBytes[I]);
        return;
      }
      // What indexing reads besides the tree and text: the module's place.
      std::string Key = std::to_string(I) + "\n" + M.Name + "\n" +
                        (M.IsPackage ? "p" : "m");
      Indexed[I] = *Src->index(Key, [&] {
        Package::IndexOut O;
        P.indexModule((int)I, O);
        return O;
      });
    });
  Pool.wait();
  size_t NumFunctions = 0;
  for (const Package::IndexOut &O : Indexed)
    NumFunctions += O.Functions.size();
  P.Functions.reserve(NumFunctions);
  std::vector<size_t> FirstFn(P.Modules.size()), NumFns(P.Modules.size());
  for (size_t I = 0; I < P.Modules.size(); ++I) {
    FirstFn[I] = P.Functions.size();
    NumFns[I] = Indexed[I].Functions.size();
    P.adopt((int)I, std::move(Indexed[I]));
  }
  // Lower every function into the engine's IR while the trees are alive,
  // then let the one engine reason about the whole package.
  P.resolveBases();
  PackageCache::Stats Ignored;
  PackageCache::Stats &Stats = Opts.Cache ? Opts.Cache->Last : Ignored;
  Stats.Modules += (unsigned)P.Modules.size();
  R.Modules += (unsigned)P.Modules.size();
  // Lowered into the cache's program itself, so that the engine's session
  // sees the same program at every analysis.
  engine::Program Local;
  engine::Program &Prog = Reuse ? Reuse->Prog : Local;
  std::vector<bool> Unchanged;
  uint64_t Interface = 0;
  std::shared_ptr<PackageTypes> Types;
  // A module's own tree is freed as soon as its functions are lowered, not
  // after the whole package is: the trees were a third of the heap at the
  // end of the lowering, the run's peak. Trees kept between analyses
  // (TreeOwner) are left to their owner.
  ModuleLowered FreeTree = [&P](int Mod) {
    Module &M = *P.Modules[Mod];
    if (!M.TreeOwner) {
      delete M.Tree;
      M.Tree = nullptr;
    }
  };
  if (Entries) {
    Interface = packageInterface(P, TypedTexts);
    if (!lowerFromEntries(P, Pool, Kept, FirstFn, NumFns, Interface, *Entries,
                          R.Notes, Prog, Types, R.ModulesFromCache, FreeTree)) {
      // Some kept module was lowered under another interface: it has to
      // be parsed and lowered again, and so has everything, as in a cold
      // run (which then writes every entry anew).
      R.Findings.resize(FindingsBefore);
      R.Problems.resize(ProblemsBefore);
      R.FilesRead = FilesBefore;
      R.ContextFilesRead = ContextBefore;
      R.Modules -= (unsigned)P.Modules.size();
      return false;
    }
  } else {
    Prog = lowerWithReuse(P, Pool, TextHashes, TypedTexts, Reuse, Stats,
                          Unchanged, FreeTree);
  }
  // Scopes left out of a named module (too deeply nested) are its problems;
  // a context module's are reported when it is named itself.
  for (auto &M : P.Modules)
    if (!ContextPaths.count(M->Path))
      for (std::string &Msg : M->Problems)
        R.Problems.push_back({M->Path, std::move(Msg)});
  for (auto &M : P.Modules)
    if (!M->TreeOwner)
      Pool.async([T = M->Tree] { delete T; });
  for (auto &M : P.Modules) {
    M->Tree = nullptr;
    M->TreeOwner = nullptr;
  }
  // The new entries are written while the engine runs (it only reads Prog).
  std::vector<std::vector<std::string>> StoreNotes(Entries ? Kept.size() + 1 : 0);
  if (Entries) {
    for (size_t I = 0; I < Kept.size(); ++I)
      if (!Kept[I]->Entry)
        Pool.async([&, I] {
          const Loaded &L = *Kept[I];
          Entries->store(L.EntryKey, L.Imports, L.TypedText, IndexBytes[I],
                         Interface,
                         ModuleCache::writeLowered(Prog, FirstFn[I], NumFns[I]),
                         StoreNotes[I]);
        });
    if (Types && llvm::none_of(Kept, [](const Loaded *L) { return L->Entry; }))
      Pool.async([&] {
        Entries->storeTypes(Interface, *Types, StoreNotes.back());
        Entries->trim();
      });
  }
  engine::Options EO;
  EO.IsWorkspaceName = [&P](uint32_t File, llvm::StringRef Name) {
    if (File >= P.Modules.size())
      return false;
    return P.Modules[File]->Cat->WorkspaceNames.matches(Name.lower());
  };
  // Independent functions are interpreted on the pool's threads (the
  // catalogs are only read).
  EO.Pool = &Pool;
  if (Reuse) {
    P.Findings = Reuse->Engine.analyze(Prog, std::move(EO), Unchanged);
    Stats.FunctionsInterpreted += Reuse->Engine.Last.Interpreted;
  } else {
    P.Findings = engine::analyze(Prog, std::move(EO));
  }
  Pool.wait();
  for (auto &Notes : StoreNotes)
    for (std::string &N : Notes)
      R.Notes.push_back(std::move(N));

  // NOLINT / noqa, parsed only for files with findings.
  std::unordered_map<std::string, std::unique_ptr<Suppressions>> Supp;
  std::unordered_map<std::string, const Module *> ByPath;
  for (auto &M : P.Modules)
    ByPath.emplace(M->Path, M.get());
  for (Finding &F : P.Findings) {
    // A bound C++ function's own findings are the C++ run's to report.
    if (!ByPath.count(F.Loc.File))
      continue;
    // Context is not what was asked about, unless the finding's story runs
    // through a named file (a caller's finding caused by a named helper).
    if (ContextPaths.count(F.Loc.File) &&
        llvm::none_of(F.Notes, [&](const Note &N) {
          return ByPath.count(N.Loc.File) && !ContextPaths.count(N.Loc.File);
        }))
      continue;
    auto &S = Supp[F.Loc.File];
    if (!S) {
      auto It = ByPath.find(F.Loc.File);
      S = std::make_unique<Suppressions>(
          It == ByPath.end() ? std::string_view() : It->second->Source);
    }
    if (!S->suppressed(F.Loc.Line, F.Check))
      R.Findings.push_back(std::move(F));
  }
  if (Records) {
    Rec.Findings.assign(R.Findings.begin() + FindingsBefore, R.Findings.end());
    Rec.Problems.assign(R.Problems.begin() + ProblemsBefore, R.Problems.end());
    Rec.FilesRead = R.FilesRead - FilesBefore;
    Rec.ContextFilesRead = R.ContextFilesRead - ContextBefore;
    Records->store(RecordKey, Rec, R.Notes);
  }
  if (Opts.LeaveToExit && !kAddressSanitizer) {
    // The texts, the package model and the IR die with the process: freed
    // one by one they cost a run about 3% of its time.
    struct Left {
      std::unique_ptr<Package> P;
      engine::Program Prog;
      std::vector<std::unique_ptr<Loaded>> Files;
    };
    llvm::BuryPointer(std::make_unique<Left>(
        Left{std::move(Pkg), std::move(Local), std::move(Files)}));
  }
  return true;
}

static void analyzeScan(const std::vector<std::string> &ScanFiles,
                        CatalogProvider &Catalogs, const Options &Opts,
                        ModuleIds &Ids, DirectoryCache &Dirs, Result &R,
                        PackageCache::Lowered *Reuse,
                        const std::string &RecordKey) {
  if (!analyzeScanWith(ScanFiles, Catalogs, Opts, Ids, Dirs, R, Reuse,
                       RecordKey, /*UseEntries=*/true))
    analyzeScanWith(ScanFiles, Catalogs, Opts, Ids, Dirs, R, Reuse, RecordKey,
                    /*UseEntries=*/false);
}
