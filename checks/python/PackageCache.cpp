//===- PackageCache.cpp ---------------------------------------------------===//
#include "PackageCache.h"
#include "Nesting.h"
#include "NodeAccess.h"
#include "Sources.h"
#include "Syntax.h"
#include "common/Paths.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>

using namespace tether;
using namespace tether::python;

PackageCache::Source::~Source() {
  if (Tree)
    delete Tree;
}

std::vector<std::string> PackageCache::Source::imports(
    const std::string &Key,
    llvm::function_ref<std::vector<std::string>()> Compute) const {
  std::lock_guard<std::mutex> Lock(ImportsMu);
  if (!HaveImports || ImportsKey != Key) {
    Imports = Compute();
    ImportsKey = Key;
    HaveImports = true;
  }
  return Imports;
}

std::shared_ptr<const Package::IndexOut> PackageCache::Source::index(
    const std::string &Key,
    llvm::function_ref<Package::IndexOut()> Compute) const {
  std::lock_guard<std::mutex> Lock(IndexMu);
  if (!Index || IndexKey != Key) {
    Index = std::make_shared<const Package::IndexOut>(Compute());
    IndexKey = Key;
  }
  return Index;
}

static std::shared_ptr<PackageCache::Source> textSource(std::string Text) {
  auto S = std::make_shared<PackageCache::Source>();
  S->Hash = llvm::xxh3_64bits(Text);
  S->Text = std::move(Text);
  return S;
}

void PackageCache::setOverlay(const std::string &Path, std::string Text) {
  normalizeLineBreaks(Text); // as readSource does: the same text as saved
  std::string Key = absolutePath(Path);
  std::lock_guard<std::mutex> Lock(Mu);
  auto &Slot = Overlays[Key];
  if (Slot && Slot->Text == Text)
    return; // keeps its tree
  // Just opened, as saved: the file's parse serves.
  auto F = Files.find(Key);
  if (F != Files.end() && F->second.Src->Text == Text &&
      F->second.Src->Layout.BomBytes == 0 && !F->second.Src->Layout.Latin1) {
    Slot = F->second.Src;
    return;
  }
  Slot = textSource(std::move(Text));
}

void PackageCache::dropOverlay(const std::string &Path) {
  std::lock_guard<std::mutex> Lock(Mu);
  Overlays.erase(absolutePath(Path));
}

bool PackageCache::hasOverlay(const std::string &Path) {
  std::lock_guard<std::mutex> Lock(Mu);
  return Overlays.count(absolutePath(Path)) != 0;
}

void PackageCache::forget(const std::string &Path) {
  std::lock_guard<std::mutex> Lock(Mu);
  Files.erase(absolutePath(Path));
}

std::shared_ptr<const PackageCache::Source>
PackageCache::read(const std::string &Path) {
  std::string Key = absolutePath(Path);
  llvm::sys::fs::file_status St;
  bool Stat = !llvm::sys::fs::status(Key, St);
  {
    std::lock_guard<std::mutex> Lock(Mu);
    auto O = Overlays.find(Key);
    if (O != Overlays.end())
      return O->second;
    auto F = Files.find(Key);
    if (F != Files.end() && Stat &&
        F->second.Modified == St.getLastModificationTime() &&
        F->second.Size == St.getSize())
      return F->second.Src;
  }
  // Stat before reading: a write during the read changes the time again,
  // and the next analysis reads the file again.
  auto S = std::make_shared<Source>();
  if (!readSource(Path, S->Text, S->Problem, S->Layout))
    S->Readable = false, S->Parsed = true; // nothing to parse
  S->Hash = llvm::xxh3_64bits(S->Text);
  if (Stat) {
    std::lock_guard<std::mutex> Lock(Mu);
    Files[Key] = Entry{S, St.getLastModificationTime(), St.getSize()};
  }
  return S;
}

std::shared_ptr<const PackageCache::Source>
PackageCache::source(const std::string &Path, Parser Parse) {
  std::shared_ptr<const Source> S = read(Path);
  if (S->Parsed)
    return S;
  auto New = std::make_shared<Source>();
  New->Text = S->Text;
  New->Layout = S->Layout;
  New->Readable = S->Readable;
  New->Hash = S->Hash;
  Parse(*New);
  New->Parsed = true;
  if (New->Tree) {
    New->TypedText = typedTextDigest(New->Tree, New->Text);
    if (!New->TooDeep) // Parse may have measured it in a walk of its own
      New->TooDeep = std::make_shared<const std::unordered_set<const void *>>(
          tooDeepScopes(New->Tree->root()));
  }
  // Kept where the unparsed one was, unless the text changed meanwhile.
  std::string Key = absolutePath(Path);
  std::lock_guard<std::mutex> Lock(Mu);
  ++Last.Parsed;
  auto O = Overlays.find(Key);
  if (O != Overlays.end() && O->second == S)
    O->second = New;
  auto F = Files.find(Key);
  if (F != Files.end() && F->second.Src == S)
    F->second.Src = New;
  return New;
}

const ImportWords &PackageCache::Source::words() const {
  std::call_once(WordsOnce, [&] { Words = std::make_unique<ImportWords>(Text); });
  return *Words;
}

std::shared_ptr<const ImportWords> PackageCache::words(const std::string &Path) {
  std::shared_ptr<const Source> S = read(Path);
  if (!S->Readable)
    return nullptr;
  return std::shared_ptr<const ImportWords>(S, &S->words()); // S's own
}

PackageCache::Lowered &PackageCache::lowered(const std::string &Analysis) {
  std::lock_guard<std::mutex> Lock(Mu);
  return Programs[Analysis];
}

std::string PackageCache::analysisKey(const std::vector<std::string> &Paths,
                                      size_t Scan) {
  std::string Key;
  for (const std::string &P : Paths)
    Key += absolutePath(P) + "\n";
  return Key + "#" + std::to_string(Scan);
}

void PackageCache::dropAnalyses(const std::vector<std::string> &Paths) {
  std::string Prefix = analysisKey(Paths, 0);
  Prefix.pop_back(); // the scan number
  std::lock_guard<std::mutex> Lock(Mu);
  for (auto It = Programs.lower_bound(Prefix);
       It != Programs.end() && llvm::StringRef(It->first).starts_with(Prefix);)
    It = Programs.erase(It);
}

//===----------------------------------------------------------------------===//
// What lowering reads
//===----------------------------------------------------------------------===//
namespace {

/// A byte string to hash: each field ends with a zero byte, so that
/// neighbouring fields cannot trade characters.
struct Digest {
  std::string S;
  void add(std::string_view X) {
    S.append(X.data(), X.size());
    S += '\0';
  }
  void add(long long N) { add(std::to_string(N)); }
  void add(const std::vector<std::string> &Xs) {
    add((long long)Xs.size());
    for (const std::string &X : Xs)
      add(X);
  }
  template <typename V>
  void add(const std::unordered_map<std::string, V> &Map) {
    std::vector<std::pair<std::string, V>> Sorted(Map.begin(), Map.end());
    std::sort(Sorted.begin(), Sorted.end(),
              [](const auto &A, const auto &B) { return A.first < B.first; });
    add((long long)Sorted.size());
    for (const auto &[K, Val] : Sorted) {
      add(K);
      addValue(Val);
    }
  }
  void addValue(int N) { add((long long)N); }
  void addValue(const std::string &X) { add(X); }
  void addValue(const Pos &) {} // positions: see packageInterface
};

/// See typedTextDigest.
void addTypedText(Digest &D, SyntaxNode Root, std::string_view Src) {
  const Grammar &G = Grammar::get();
  auto IsDef = [&](TSSymbol K) {
    return K == G.FunctionDef || K == G.ClassDef || K == G.DecoratedDef;
  };
  static const TSFieldId ReturnType =
      ts_language_field_id_for_name(G.Lang, "return_type", 11);
  eachChild(Root, true, [&](SyntaxNode S, TSFieldId) {
    if (!IsDef(kindOf(S)) && kindOf(S) != G.Comment)
      D.add(textOf(S, Src));
  });
  // Among statements only: signatures, decorators and assignments occur
  // nowhere else (an assignment is a statement, or the right side of a
  // chained one), and walking every expression node cost as much as a
  // tenth of a cold run.
  preorder(Root, [&](SyntaxNode N) {
    TSSymbol K = kindOf(N);
    if (K == G.FunctionDef) {
      D.add(textOf(fieldOf(N, G.FParameters), Src));
      D.add(textOf(fieldOf(N, ReturnType), Src));
      return true;
    }
    if (K == G.Decorator) {
      D.add(textOf(N, Src));
      return false;
    }
    if (K == G.ClassDef) {
      eachChild(fieldOf(N, G.FBody), true, [&](SyntaxNode S, TSFieldId) {
        if (!IsDef(kindOf(S)) && kindOf(S) != G.Comment)
          D.add(textOf(S, Src));
      });
      return true;
    }
    if (K == G.Assignment || K == G.AugAssignment) {
      if (kindOf(fieldOf(N, G.FLeft)) == G.Attribute)
        D.add(textOf(N, Src));
      return K == G.Assignment; // a chained one on its right
    }
    return N == Root || holdsStatements(K) || K == G.ExprStmt ||
           K == G.Match || K == G.CaseClause;
  });
}

} // namespace

uint64_t tether::python::typedTextDigest(const SyntaxTree *Tree,
                                         std::string_view Src) {
  Digest D;
  addTypedText(D, Tree->root(), Src);
  return llvm::xxh3_64bits(D.S);
}

uint64_t tether::python::packageInterface(const Package &P,
                                          const std::vector<uint64_t> &Typed) {
  std::vector<Digest> Mods(P.Modules.size());
  for (size_t I = 0; I < P.Modules.size(); ++I) {
    const Module &M = *P.Modules[I];
    Digest &D = Mods[I];
    D.add(M.Path);
    D.add(M.Name);
    D.add((long long)(M.IsPackage * 2 + M.Loose));
    D.add(M.Imports);
    D.add(M.Functions);
    D.add(M.Classes);
    D.add(M.Globals); // the names: positions stay out
    D.add(M.StarImports);
    D.add((long long)M.Body);
    D.add((long long)(M.Cat != nullptr)); // read from a tree or an entry
    D.add((long long)(I < Typed.size() ? Typed[I] : 0));
  }
  for (const Function &F : P.Functions) {
    if (F.Mod < 0 || size_t(F.Mod) >= Mods.size())
      continue;
    Digest &D = Mods[F.Mod];
    D.add(F.QualName);
    D.add(F.Name);
    D.add((long long)F.Class);
    D.add((long long)(F.ModuleBody + 2 * F.BoundMethod + 4 * F.TooDeep));
    D.add(F.Params);
    D.add(F.Nested);
  }
  for (const Class &C : P.Classes) {
    if (C.Mod < 0 || size_t(C.Mod) >= Mods.size())
      continue;
    Digest &D = Mods[C.Mod];
    D.add(C.QualName);
    D.add(C.Name);
    D.add(C.BaseNames);
    D.add((long long)C.Bases.size());
    for (int B : C.Bases)
      D.add((long long)B);
    D.add(C.Methods);
    D.add(C.Fields);
  }
  Digest All;
  All.add((long long)P.Modules.size());
  All.add((long long)P.Functions.size());
  All.add((long long)P.Classes.size());
  All.add(P.ModuleByName);
  for (const Digest &D : Mods)
    All.add((long long)llvm::xxh3_64bits(D.S));
  return llvm::xxh3_64bits(All.S);
}

uint64_t tether::python::moduleKey(const Module &M, uint64_t TextHash) {
  Digest D;
  D.add((long long)TextHash);
  if (M.Cat) // the catalog as written: every list the name sets come from
    D.add(catalogKey(M.Cat->Source));
  return llvm::xxh3_64bits(D.S);
}
