//===- Filters.cpp --------------------------------------------------------===//
#include "Filters.h"
#include "common/Paths.h"
#include "LineTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

using namespace tether;
namespace fs = llvm::sys::fs;

std::string tether::canonicalPath(llvm::StringRef Path) {
  return absolutePath(Path);
}

//===--- changed lines ----------------------------------------------------===//

llvm::Expected<ChangedLines> ChangedLines::parseDiff(llvm::StringRef Diff,
                                                     llvm::StringRef Root) {
  ChangedLines Out;
  std::string Current; // canonical path of the file the hunks belong to
  unsigned LineNo = 0;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Diff.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    ++LineNo;
    L = L.rtrim("\r");
    if (L.consume_front("+++ ")) {
      L = L.split('\t').first; // a timestamp may follow
      if (L == "/dev/null") { // deleted file: no lines to report on
        Current.clear();
        continue;
      }
      L.consume_front("b/");
      llvm::SmallString<256> P(Root);
      llvm::sys::path::append(P, L);
      Current = canonicalPath(P);
      Out.Ranges[Current]; // a file with only deletions is still known
      continue;
    }
    if (!L.starts_with("@@ "))
      continue;
    // @@ -a[,b] +c[,d] @@
    llvm::StringRef Rest = L.drop_front(3);
    llvm::StringRef New = Rest.split(' ').second.split(' ').first;
    if (!New.consume_front("+") || Current.empty())
      return llvm::createStringError(
          "malformed diff, line " + llvm::Twine(LineNo) + ": '" + L + "'");
    auto [StartS, CountS] = New.split(',');
    unsigned Start = 0, Count = 1;
    if (StartS.getAsInteger(10, Start) ||
        (!CountS.empty() && CountS.getAsInteger(10, Count)))
      return llvm::createStringError(
          "malformed diff, line " + llvm::Twine(LineNo) + ": '" + L + "'");
    if (Count > 0) // Count 0: lines were only removed
      Out.Ranges[Current].push_back({Start, Start + Count - 1});
  }
  for (auto &E : Out.Ranges)
    llvm::sort(E.second);
  return Out;
}

/// Runs git with Args, returning its stdout; a one-line error otherwise.
static llvm::Expected<std::string> runGit(llvm::ArrayRef<llvm::StringRef> Args) {
  auto Git = llvm::sys::findProgramByName("git");
  if (!Git)
    return llvm::createStringError("--diff needs git on PATH");
  llvm::SmallString<128> OutFile, ErrFile;
  if (fs::createTemporaryFile("tether-git", "out", OutFile) ||
      fs::createTemporaryFile("tether-git", "err", ErrFile))
    return llvm::createStringError("cannot create a temporary file for git");
  llvm::SmallVector<llvm::StringRef, 8> Argv{*Git};
  Argv.append(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(OutFile),
                                                llvm::StringRef(ErrFile)};
  std::string ExecErr;
  int RC = llvm::sys::ExecuteAndWait(*Git, Argv, std::nullopt, Redirects, 0, 0,
                                     &ExecErr);
  auto Out = llvm::MemoryBuffer::getFile(OutFile);
  auto Err = llvm::MemoryBuffer::getFile(ErrFile);
  fs::remove(OutFile);
  fs::remove(ErrFile);
  if (RC != 0) {
    std::string Why = Err ? (*Err)->getBuffer().trim().split('\n').first.str()
                          : ExecErr;
    std::string Cmd = "git";
    for (llvm::StringRef A : Args)
      Cmd += " " + A.str();
    return llvm::createStringError(Cmd + " failed: " + Why);
  }
  return Out ? (*Out)->getBuffer().str() : std::string();
}

llvm::Expected<ChangedLines> ChangedLines::fromGit(llvm::StringRef Rev) {
  auto Top = runGit({"rev-parse", "--show-toplevel"});
  if (!Top)
    return Top.takeError();
  // Explicit prefixes: a user's diff.noprefix or diff.mnemonicPrefix
  // setting would change the "+++ b/" lines parsed below.
  auto Diff = runGit({"diff", "-U0", "--no-color", "--no-ext-diff",
                      "--no-renames", "--src-prefix=a/", "--dst-prefix=b/",
                      Rev, "--"});
  if (!Diff)
    return Diff.takeError();
  return parseDiff(*Diff, llvm::StringRef(*Top).trim());
}

llvm::Expected<ChangedLines> ChangedLines::fromFile(llvm::StringRef DiffFile) {
  auto Buf = llvm::MemoryBuffer::getFile(DiffFile);
  if (!Buf)
    return llvm::createStringError(DiffFile + ": " + Buf.getError().message());
  // Paths in `git diff` output are relative to the repository root; outside
  // a repository, to the working directory.
  llvm::SmallString<256> Root;
  fs::current_path(Root);
  if (auto Top = runGit({"rev-parse", "--show-toplevel"}))
    Root = llvm::StringRef(*Top).trim();
  else
    llvm::consumeError(Top.takeError());
  auto R = parseDiff((*Buf)->getBuffer(), Root);
  if (!R)
    return llvm::createStringError(DiffFile + ": " +
                                   llvm::toString(R.takeError()));
  return R;
}

bool ChangedLines::contains(const Location &L) const {
  auto It = Ranges.find(canonicalPath(L.File));
  if (It == Ranges.end())
    return false;
  for (auto [First, Last] : It->second)
    if (First <= L.Line && L.Line <= Last)
      return true;
  return false;
}

//===--- fingerprints and baselines ---------------------------------------===//

/// The text of line Line of File, trimmed; empty if unreadable.
static std::string lineText(llvm::StringRef File, unsigned Line,
                            std::map<std::string, std::vector<std::string>> &Cache) {
  auto [It, New] = Cache.try_emplace(File.str());
  if (New)
    if (auto Buf = llvm::MemoryBuffer::getFile(File)) {
      llvm::SmallVector<llvm::StringRef, 0> Ls;
      (*Buf)->getBuffer().split(Ls, '\n');
      for (llvm::StringRef L : Ls)
        It->second.push_back(L.trim().str());
    }
  return Line >= 1 && Line <= It->second.size() ? It->second[Line - 1] : "";
}

std::vector<std::string>
tether::fingerprints(const std::vector<Finding> &Findings) {
  std::map<std::string, std::vector<std::string>> Cache;
  std::map<std::string, unsigned> Seen;
  std::vector<std::string> Out;
  for (const Finding &F : Findings) {
    std::string Key = F.Check + '\0' + F.Loc.File + '\0' + F.Message + '\0' +
                      lineText(F.Loc.File, F.Loc.Line, Cache);
    unsigned Occurrence = Seen[Key]++;
    Key += '\0' + std::to_string(Occurrence);
    auto Hash = llvm::SHA256::hash(llvm::arrayRefFromStringRef(Key));
    Out.push_back(llvm::toHex(llvm::ArrayRef(Hash).take_front(16),
                              /*LowerCase=*/true));
  }
  return Out;
}

llvm::Expected<Baseline> Baseline::load(llvm::StringRef File) {
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return llvm::createStringError(File + ": cannot read baseline: " +
                                   Buf.getError().message() +
                                   " (create it with --write-baseline)");
  auto Bad = [&](const llvm::Twine &Why) {
    return llvm::createStringError(File + ": not a tether baseline: " + Why);
  };
  auto V = llvm::json::parse((*Buf)->getBuffer());
  if (!V)
    return Bad(llvm::toString(V.takeError()));
  const llvm::json::Object *Root = V->getAsObject();
  if (!Root || Root->getInteger("version") != 1)
    return Bad("expected {\"version\": 1, \"findings\": [...]}");
  const llvm::json::Array *List = Root->getArray("findings");
  if (!List)
    return Bad("no \"findings\" array");
  Baseline B;
  for (const llvm::json::Value &E : *List) {
    const llvm::json::Object *O = E.getAsObject();
    auto FP = O ? O->getString("fingerprint") : std::nullopt;
    if (!FP)
      return Bad("a finding without a \"fingerprint\"");
    ++B.Counts[*FP];
  }
  return B;
}

llvm::Error Baseline::write(llvm::StringRef File,
                            const std::vector<Finding> &Findings,
                            const std::vector<std::string> &Fingerprints) {
  llvm::json::Array List;
  for (size_t I = 0; I < Findings.size(); ++I)
    List.push_back(llvm::json::Object{{"fingerprint", Fingerprints[I]},
                                      {"check", Findings[I].Check},
                                      {"file", Findings[I].Loc.File},
                                      {"line", Findings[I].Loc.Line},
                                      {"message", Findings[I].Message}});
  std::error_code EC;
  llvm::raw_fd_ostream OS(File, EC);
  if (EC)
    return llvm::createStringError(File + ": cannot write baseline: " +
                                   EC.message());
  OS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"version", 1},
                                   {"findings", std::move(List)}}))
     << "\n";
  return llvm::Error::success();
}

bool Baseline::accept(const std::string &Fingerprint) {
  auto It = Counts.find(Fingerprint);
  if (It == Counts.end() || It->second == 0)
    return false;
  --It->second;
  return true;
}

//===--- shards -----------------------------------------------------------===//

llvm::Expected<Shard> Shard::parse(llvm::StringRef Spec) {
  auto [I, N] = Spec.split('/');
  Shard S;
  if (I.getAsInteger(10, S.Index) || N.getAsInteger(10, S.Count) ||
      S.Count == 0 || S.Index >= S.Count)
    return llvm::createStringError("--shard=" + Spec +
                                   ": expected I/N with 0 <= I < N");
  return S;
}

bool Shard::owns(llvm::StringRef Path) const {
  return llvm::xxh3_64bits(Path) % Count == Index;
}
