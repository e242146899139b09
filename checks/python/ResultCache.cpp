//===- ResultCache.cpp - What a scan read and found, kept between CLI runs ===//
#include "ResultCache.h"
#include "CacheFiles.h"
#include "Model.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <chrono>

using namespace tether;
using namespace tether::python;
namespace json = llvm::json;

/// Bumped whenever a record's shape or meaning changes.
static constexpr int64_t Format = 1;
/// The whole vLLM Ascend package's record is 0.2 MB.
static constexpr uint64_t MaxRecordBytes = 64u << 20;
/// Records kept: each set of named files has its own (a pre-commit hook
/// names another set at most commits), so the least recently used go.
static constexpr size_t MaxRecords = 256;

// Serialisation of what a record holds. Findings keep every field the
// output formats print, so a hit prints what the analysis would.
//
// JSON holds only UTF-8, and a record holds bytes: a fix-it's text is in
// its file's own encoding (a latin-1 source), a path is whatever the file
// system holds. A string that is not UTF-8 is written {"hex": "..."}, so
// every byte reads back as it was written.
namespace {
struct Bytes {
  std::string *S;
};
struct ByteList {
  std::vector<std::string> *L;
};
json::Value str(llvm::StringRef S) {
  if (json::isUTF8(S))
    return S.str();
  return json::Object{{"hex", llvm::toHex(S, /*LowerCase=*/true)}};
}
json::Value strs(const std::vector<std::string> &L) {
  json::Array A;
  for (const std::string &S : L)
    A.push_back(str(S));
  return A;
}
bool fromJSON(const json::Value &V, Bytes &B, json::Path P) {
  if (std::optional<llvm::StringRef> S = V.getAsString()) {
    *B.S = S->str();
    return true;
  }
  const json::Object *O = V.getAsObject();
  std::optional<llvm::StringRef> Hex = O ? O->getString("hex") : std::nullopt;
  if (Hex && llvm::tryGetFromHex(*Hex, *B.S))
    return true;
  P.report("expected a string");
  return false;
}
bool fromJSON(const json::Value &V, ByteList &B, json::Path P) {
  const json::Array *A = V.getAsArray();
  if (!A) {
    P.report("expected an array");
    return false;
  }
  B.L->assign(A->size(), "");
  for (size_t I = 0; I < A->size(); ++I) {
    Bytes E{&(*B.L)[I]};
    if (!fromJSON((*A)[I], E, P.index(unsigned(I))))
      return false;
  }
  return true;
}
/// O.map for a string field, byte for byte.
bool mapStr(json::ObjectMapper &O, llvm::StringLiteral K, std::string &Out) {
  Bytes B{&Out};
  return O.map(K, B);
}
bool mapStrs(json::ObjectMapper &O, llvm::StringLiteral K,
             std::vector<std::string> &Out) {
  ByteList B{&Out};
  return O.map(K, B);
}
} // namespace

namespace tether {
static json::Value toJSON(const Location &L) {
  return json::Object{
      {"file", str(L.File)}, {"line", L.Line}, {"column", L.Column}};
}
static bool fromJSON(const json::Value &V, Location &L, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapStr(O, "file", L.File) && O.map("line", L.Line) &&
         O.map("column", L.Column);
}
static json::Value toJSON(const Note &N) {
  return json::Object{{"loc", toJSON(N.Loc)}, {"message", str(N.Message)}};
}
static bool fromJSON(const json::Value &V, Note &N, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("loc", N.Loc) && mapStr(O, "message", N.Message);
}
static json::Value toJSON(const FixIt &F) {
  return json::Object{{"file", str(F.File)},
                      {"offset", F.Offset},
                      {"length", F.Length},
                      {"text", str(F.Text)}};
}
static bool fromJSON(const json::Value &V, FixIt &F, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapStr(O, "file", F.File) && O.map("offset", F.Offset) &&
         O.map("length", F.Length) && mapStr(O, "text", F.Text);
}
static json::Value toJSON(const Finding &F) {
  json::Array Notes, Fixes;
  for (const Note &N : F.Notes)
    Notes.push_back(toJSON(N));
  for (const FixIt &X : F.Fixes)
    Fixes.push_back(toJSON(X));
  return json::Object{{"check", str(F.Check)},
                      {"severity", str(F.Severity)},
                      {"loc", toJSON(F.Loc)},
                      {"message", str(F.Message)},
                      {"notes", std::move(Notes)},
                      {"fixes", std::move(Fixes)}};
}
static bool fromJSON(const json::Value &V, Finding &F, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapStr(O, "check", F.Check) &&
         mapStr(O, "severity", F.Severity) && O.map("loc", F.Loc) &&
         mapStr(O, "message", F.Message) && O.map("notes", F.Notes) &&
         O.map("fixes", F.Fixes);
}
namespace python {
static json::Value toJSON(const FileProblem &F) {
  return json::Object{{"file", str(F.File)}, {"message", str(F.Message)}};
}
static bool fromJSON(const json::Value &V, FileProblem &F, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapStr(O, "file", F.File) && mapStr(O, "message", F.Message);
}
static json::Value toJSON(const ScanRecord::Input &I) {
  return json::Object{{"path", str(I.Path)},     {"readable", I.Readable},
                      {"hash", I.Hash},          {"imports", strs(I.Imports)},
                      {"module", str(I.Module)}, {"catalog", I.Catalog}};
}
static bool fromJSON(const json::Value &V, ScanRecord::Input &I,
                     json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapStr(O, "path", I.Path) && O.map("readable", I.Readable) &&
         O.map("hash", I.Hash) && mapStrs(O, "imports", I.Imports) &&
         mapStr(O, "module", I.Module) && O.map("catalog", I.Catalog);
}
} // namespace python
} // namespace tether

/// A record's first line.
static std::string digestOf(llvm::StringRef Body) {
  std::string D;
  llvm::raw_string_ostream(D)
      << "tether-scan-record "
      << llvm::format_hex_no_prefix(llvm::xxh3_64bits(Body), 16);
  return D;
}

ResultCache::ResultCache(std::string Dir, std::string Salt)
    : Dir(std::move(Dir)), Salt(std::move(Salt)) {}

std::string ResultCache::defaultDir() {
  llvm::SmallString<256> P;
  if (!llvm::sys::path::cache_directory(P))
    return "";
  llvm::sys::path::append(P, "tether");
  return std::string(P);
}

std::string ResultCache::spell(const ModuleId &Id) {
  return Id.Name + "\x1f" + Id.Root + "\x1f" + (Id.IsPackage ? "p" : "m") +
         (Id.Loose ? "l" : "");
}

std::string ResultCache::fileFor(const std::string &Key) const {
  return cacheFileFor(Dir, "python-scans", Salt, Key, ".json");
}

std::optional<ScanRecord>
ResultCache::lookup(const std::string &Key,
                    std::vector<std::string> &Notes) const {
  std::string File = fileFor(Key);
  auto Damaged = [&](const std::string &Why) -> std::optional<ScanRecord> {
    Notes.push_back("cache: ignoring " + File + " (" + Why +
                    "); analysing again");
    return std::nullopt;
  };
  std::string Why;
  std::unique_ptr<llvm::MemoryBuffer> Buf =
      readCacheFile(File, MaxRecordBytes, Why);
  if (!Buf)
    return Why.empty() ? std::nullopt : Damaged(Why);
  // The first line is the digest of the rest: a flipped byte that leaves
  // valid JSON (a line number, a path) must not become a result.
  auto [Digest, Body] = Buf->getBuffer().split('\n');
  if (Digest != digestOf(Body))
    return Damaged("its digest does not match its contents");
  llvm::Expected<json::Value> V = json::parse(Body);
  if (!V)
    return Damaged(llvm::toString(V.takeError()));
  json::Path::Root Root;
  json::ObjectMapper O(*V, Root);
  int64_t Fmt = 0;
  std::string Tool, StoredKey;
  json::Value None = nullptr;
  const json::Object *Obj = V->getAsObject();
  const json::Value *Result = Obj ? Obj->get("result") : nullptr;
  if (!O || !O.map("format", Fmt) || Fmt != Format)
    return Damaged("not a record of this format");
  if (!mapStr(O, "tool", Tool) || Tool != Salt ||
      !mapStr(O, "key", StoredKey) || StoredKey != Key)
    return Damaged("another build's or another key's record");
  ScanRecord R;
  json::ObjectMapper RO(Result ? *Result : None, json::Path(Root).field("result"));
  if (!O.map("inputs", R.Inputs) || !RO || !RO.map("findings", R.Findings) ||
      !RO.map("problems", R.Problems) || !RO.map("files", R.FilesRead) ||
      !RO.map("context_files", R.ContextFilesRead))
    return Damaged("incomplete record");
  markUsed(File);
  return R;
}

void ResultCache::store(const std::string &Key, const ScanRecord &R,
                        std::vector<std::string> &Notes) const {
  std::string File = fileFor(Key);
  json::Array Inputs, Findings, Problems;
  for (const ScanRecord::Input &I : R.Inputs)
    Inputs.push_back(toJSON(I));
  for (const Finding &F : R.Findings)
    Findings.push_back(toJSON(F));
  for (const FileProblem &P : R.Problems)
    Problems.push_back(toJSON(P));
  json::Object Doc{
      {"format", Format},
      {"tool", str(Salt)},
      {"key", str(Key)},
      {"inputs", std::move(Inputs)},
      {"result", json::Object{{"findings", std::move(Findings)},
                              {"problems", std::move(Problems)},
                              {"files", R.FilesRead},
                              {"context_files", R.ContextFilesRead}}}};
  std::string Body;
  llvm::raw_string_ostream(Body) << json::Value(std::move(Doc));
  size_t Before = Notes.size();
  writeCacheFile(File, digestOf(Body) + "\n" + Body, Notes);
  // Each set of named files has its own record: the least recently used
  // go.
  if (Notes.size() == Before)
    evictLeastRecent(llvm::sys::path::parent_path(File), ".json", MaxRecords);
}
