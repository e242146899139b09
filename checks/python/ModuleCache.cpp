//===- ModuleCache.cpp - Each module's index and lowering, kept between runs //
#include "ModuleCache.h"
#include "CacheFiles.h"
#include "LowerImpl.h"
#include "engine/Bytes.h"
#include "engine/Serialize.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <chrono>

using namespace tether;
using namespace tether::python;
using engine::ByteReader;
using engine::ByteWriter;

/// Bumped whenever an entry's shape or meaning changes.
static constexpr llvm::StringLiteral Magic = "tether-module-entry 2 ";
/// The largest module's entry is well below this.
static constexpr uint64_t MaxEntryBytes = 256u << 20;
/// Entries kept: a package's modules, a few versions of each.
static constexpr size_t MaxEntries = 20000;

ModuleCache::ModuleCache(std::string Dir, std::string Salt)
    : Dir(std::move(Dir)), Salt(std::move(Salt)) {}

std::string ModuleCache::keyFor(const std::string &Path, const std::string &Id,
                                uint64_t TextHash, uint64_t CatalogHash) {
  std::string K;
  llvm::raw_string_ostream(K) << Path << '\0' << Id << '\0'
                              << llvm::format_hex_no_prefix(TextHash, 16) << ' '
                              << llvm::format_hex_no_prefix(CatalogHash, 16);
  return K;
}

std::string ModuleCache::fileFor(const std::string &Key) const {
  return cacheFileFor(Dir, "python-modules", Salt, Key, ".bin");
}

//===--- Files ---------------------------------------------------------===//
// Magic, the digest of the rest in hex, a newline, then the salt, the key
// and the body.

static std::string digestLine(llvm::StringRef Rest) {
  std::string D;
  llvm::raw_string_ostream(D)
      << Magic << llvm::format_hex_no_prefix(llvm::xxh3_64bits(Rest), 16)
      << '\n';
  return D;
}

bool ModuleCache::readFile(const std::string &File, const std::string &Key,
                           std::string &Body,
                           std::vector<std::string> &Notes) const {
  auto Damaged = [&](const std::string &Why) {
    Notes.push_back("cache: ignoring " + File + " (" + Why +
                    "); analysing again");
    return false;
  };
  std::string Why;
  std::unique_ptr<llvm::MemoryBuffer> Buf =
      readCacheFile(File, MaxEntryBytes, Why);
  if (!Buf)
    return Why.empty() ? false : Damaged(Why);
  auto [Line, Rest] = Buf->getBuffer().split('\n');
  if (!Line.starts_with(Magic))
    return Damaged("not an entry of this format");
  if ((Line + "\n").str() != digestLine(Rest))
    return Damaged("its digest does not match its contents");
  ByteReader R(Rest);
  std::string StoredSalt = R.s(), StoredKey = R.s();
  if (!R.ok() || StoredSalt != Salt || StoredKey != Key)
    return Damaged("another build's or another key's entry");
  Body = R.rest().str(); // what follows the salt and the key
  markUsed(File);
  return true;
}

void ModuleCache::writeFile(const std::string &File, const std::string &Key,
                            llvm::StringRef Body,
                            std::vector<std::string> &Notes) const {
  std::string Rest;
  ByteWriter W(Rest);
  W.s(Salt);
  W.s(Key);
  Rest.append(Body.data(), Body.size());
  writeCacheFile(File, digestLine(Rest) + Rest, Notes);
}

void ModuleCache::trim() const {
  llvm::SmallString<256> Folder(Dir);
  llvm::sys::path::append(Folder, "python-modules");
  evictLeastRecent(Folder, ".bin", MaxEntries);
}

//===--- What an entry holds --------------------------------------------===//

namespace {

void strings(ByteWriter &W, const std::vector<std::string> &L) {
  W.u(L.size());
  for (const std::string &S : L)
    W.s(S);
}
std::vector<std::string> strings(ByteReader &R) {
  std::vector<std::string> L(R.count());
  for (std::string &S : L)
    S = R.s();
  return L;
}
template <typename Map> void numbers(ByteWriter &W, const Map &M) {
  W.u(M.size());
  for (const auto &[K, V] : M) {
    W.s(K);
    W.i(V);
  }
}
/// A name -> index map whose indices are below Limit.
std::unordered_map<std::string, int> numbers(ByteReader &R, size_t Limit) {
  std::unordered_map<std::string, int> M;
  for (size_t I = 0, N = R.count(); I < N && R.ok(); ++I) {
    std::string K = R.s();
    int64_t V = R.i();
    if (V < 0 || V >= int64_t(Limit))
      R.fail();
    M[std::move(K)] = int(V);
  }
  return M;
}
void positions(ByteWriter &W, const std::unordered_map<std::string, Pos> &M) {
  W.u(M.size());
  for (const auto &[K, V] : M) {
    W.s(K);
    W.u(V.Row);
    W.u(V.Col);
  }
}
std::unordered_map<std::string, Pos> positions(ByteReader &R, int Mod) {
  std::unordered_map<std::string, Pos> M;
  for (size_t I = 0, N = R.count(); I < N && R.ok(); ++I) {
    std::string K = R.s();
    Pos P;
    P.Mod = Mod;
    P.Row = uint32_t(std::min<uint64_t>(R.u(), UINT32_MAX));
    P.Col = uint32_t(std::min<uint64_t>(R.u(), UINT32_MAX));
    M[std::move(K)] = P;
  }
  return M;
}
void typeInfo(ByteWriter &W, const TypeInfo &T) {
  W.i(T.Cls);
  W.i(T.Elem);
  W.b(T.Handed);
}
TypeInfo typeInfo(ByteReader &R, size_t Classes) {
  TypeInfo T;
  T.Cls = engine::ClassId(R.i());
  T.Elem = engine::ClassId(R.i());
  T.Handed = R.b();
  if (T.Cls < -1 || T.Cls >= int64_t(Classes) || T.Elem < -1 ||
      T.Elem >= int64_t(Classes))
    R.fail();
  return T;
}

} // namespace

void ModuleCache::writeIndex(const Package::IndexOut &O, std::string &Out) {
  ByteWriter W(Out);
  W.u(O.Functions.size());
  for (const Function &F : O.Functions) {
    W.s(F.QualName);
    W.s(F.Name);
    W.i(F.Class);
    W.b(F.ModuleBody);
    W.b(F.BoundMethod);
    W.b(F.TooDeep);
    strings(W, F.Params);
    numbers(W, F.Nested);
  }
  W.u(O.Classes.size());
  for (const Class &C : O.Classes) {
    W.s(C.QualName);
    W.s(C.Name);
    strings(W, C.BaseNames);
    numbers(W, C.Methods);
    strings(W, C.Fields);
  }
  W.u(O.Imports.size());
  for (const auto &[K, V] : O.Imports) {
    W.s(K);
    W.s(V);
  }
  numbers(W, O.ModFunctions);
  numbers(W, O.ModClasses);
  positions(W, O.Globals);
  positions(W, O.NoneGlobals);
  strings(W, O.StarImports);
  W.i(O.Body);
  strings(W, O.Problems);
}

bool ModuleCache::readIndex(llvm::StringRef In, int Mod, Package::IndexOut &O) {
  ByteReader R(In);
  O = Package::IndexOut();
  O.Functions.resize(R.count());
  O.Classes.resize(0);
  std::vector<int64_t> FnClass;
  for (Function &F : O.Functions) {
    F.QualName = R.s();
    F.Name = R.s();
    FnClass.push_back(R.i());
    F.Mod = Mod;
    F.ModuleBody = R.b();
    F.BoundMethod = R.b();
    F.TooDeep = R.b();
    F.Params = strings(R);
    F.Nested = numbers(R, O.Functions.size());
  }
  O.Classes.resize(R.count());
  for (Class &C : O.Classes) {
    C.QualName = R.s();
    C.Name = R.s();
    C.Mod = Mod;
    C.BaseNames = strings(R);
    C.Methods = numbers(R, O.Functions.size());
    C.Fields = strings(R);
  }
  for (size_t I = 0; I < O.Functions.size(); ++I) {
    if (FnClass[I] < -1 || FnClass[I] >= int64_t(O.Classes.size()))
      R.fail();
    O.Functions[I].Class = int(FnClass[I]);
  }
  for (size_t I = 0, N = R.count(); I < N && R.ok(); ++I) {
    std::string K = R.s();
    O.Imports[std::move(K)] = R.s();
  }
  O.ModFunctions = numbers(R, O.Functions.size());
  O.ModClasses = numbers(R, O.Classes.size());
  O.Globals = positions(R, Mod);
  O.NoneGlobals = positions(R, Mod);
  O.StarImports = strings(R);
  int64_t Body = R.i();
  if (Body < 0 || Body >= int64_t(O.Functions.size()))
    R.fail();
  O.Body = int(Body);
  O.Problems = strings(R);
  return R.ok() && R.atEnd();
}

void ModuleCache::rebase(Package::IndexOut &O, int Mod) {
  for (Function &F : O.Functions)
    F.Mod = Mod;
  for (Class &C : O.Classes)
    C.Mod = Mod;
  for (auto *Table : {&O.Globals, &O.NoneGlobals})
    for (auto &[Name, P] : *Table)
      P.Mod = Mod;
}

std::string ModuleCache::writeLowered(const engine::Program &Prog,
                                      size_t First, size_t Count) {
  std::string Out;
  ByteWriter W(Out);
  for (size_t F = First; F < First + Count; ++F)
    engine::writeFunction(W, Prog.Functions[F]);
  return Out;
}

bool ModuleCache::readLowered(llvm::StringRef In, size_t Count,
                              size_t Functions, size_t Classes, size_t Files,
                              std::vector<engine::Function> &Out) {
  ByteReader R(In);
  engine::ProgramShape Shape{Functions, Classes, Files};
  Out.resize(Count);
  for (engine::Function &F : Out)
    if (!engine::readFunction(R, Shape, F))
      return false;
  return R.atEnd();
}

std::shared_ptr<const ModuleCache::Entry>
ModuleCache::lookup(const std::string &Key,
                    std::vector<std::string> &Notes) const {
  std::string File = fileFor(Key), Body;
  if (!readFile(File, Key, Body, Notes))
    return nullptr;
  ByteReader R(Body);
  auto E = std::make_shared<Entry>();
  E->Imports = strings(R);
  E->Typed = R.u();
  std::string Index = R.s();
  E->Interface = R.u();
  E->Lowered = R.s();
  if (!R.ok() || !R.atEnd() || !readIndex(Index, 0, E->Index)) {
    Notes.push_back("cache: ignoring " + File +
                    " (incomplete entry); analysing again");
    return nullptr;
  }
  return E;
}

void ModuleCache::store(const std::string &Key,
                        const std::vector<std::string> &Imports, uint64_t Typed,
                        llvm::StringRef Index, uint64_t Interface,
                        llvm::StringRef Lowered,
                        std::vector<std::string> &Notes) const {
  std::string Body;
  ByteWriter W(Body);
  strings(W, Imports);
  W.u(Typed);
  W.s(Index);
  W.u(Interface);
  W.s(Lowered);
  writeFile(fileFor(Key), Key, Body, Notes);
}

static std::string typesKey(uint64_t Interface) {
  std::string K;
  llvm::raw_string_ostream(K) << "types "
                              << llvm::format_hex_no_prefix(Interface, 16);
  return K;
}

bool ModuleCache::lookupTypes(uint64_t Interface, size_t Classes,
                              size_t Functions, PackageTypes &Out,
                              std::vector<std::string> &Notes) const {
  std::string Key = typesKey(Interface), File = fileFor(Key), Body;
  if (!readFile(File, Key, Body, Notes))
    return false;
  ByteReader R(Body);
  PackageTypes T;
  T.Attrs.resize(R.count());
  for (auto &A : T.Attrs)
    for (size_t I = 0, N = R.count(); I < N && R.ok(); ++I) {
      std::string K = R.s();
      A[std::move(K)] = typeInfo(R, Classes);
    }
  for (size_t I = 0, N = R.count(); I < N && R.ok(); ++I) {
    std::string K = R.s();
    T.Globals[std::move(K)] = typeInfo(R, Classes);
  }
  T.Returns.resize(R.count());
  for (TypeInfo &Ty : T.Returns)
    Ty = typeInfo(R, Classes);
  T.ClassMethods.resize(R.count());
  for (char &C : T.ClassMethods)
    C = R.b();
  if (!R.ok() || !R.atEnd() || T.Attrs.size() != Classes ||
      T.Returns.size() != Functions || T.ClassMethods.size() != Functions) {
    Notes.push_back("cache: ignoring " + File +
                    " (incomplete entry); analysing again");
    return false;
  }
  Out = std::move(T);
  return true;
}

void ModuleCache::storeTypes(uint64_t Interface, const PackageTypes &T,
                             std::vector<std::string> &Notes) const {
  std::string Body;
  ByteWriter W(Body);
  W.u(T.Attrs.size());
  for (const auto &A : T.Attrs) {
    W.u(A.size());
    for (const auto &[K, V] : A) {
      W.s(K);
      typeInfo(W, V);
    }
  }
  W.u(T.Globals.size());
  for (const auto &[K, V] : T.Globals) {
    W.s(K);
    typeInfo(W, V);
  }
  W.u(T.Returns.size());
  for (const TypeInfo &Ty : T.Returns)
    typeInfo(W, Ty);
  W.u(T.ClassMethods.size());
  for (char C : T.ClassMethods)
    W.b(C);
  std::string Key = typesKey(Interface);
  writeFile(fileFor(Key), Key, Body, Notes);
}
