//===- Catalog.cpp - Matching, merging, check options, the provider -------===//
#include "Catalog.h"
#include "Patterns.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tether;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Pattern checks (Patterns.h)
//===----------------------------------------------------------------------===//
std::string catalog::patternProblem(StringRef Source) {
  StringRef P = Source;
  if (!P.consume_front("::"))
    P.consume_front(".");
  if (P.trim().empty())
    return "empty name";
  auto G = llvm::GlobPattern::create(P);
  if (!G)
    return "bad pattern '" + Source.str() + "': " + toString(G.takeError());
  return "";
}

std::string catalog::oneLine(StringRef Text) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  for (unsigned char C : Text) {
    if (C < 0x20 || C == 0x7f)
      OS << llvm::format("\\x%02X", C);
    else
      OS << C;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// NameSet
//===----------------------------------------------------------------------===//
NameSet::NameSet(const std::vector<std::string> &Sources) {
  for (const std::string &S : Sources) {
    auto C = std::make_shared<Compiled>();
    C->Source = S;
    StringRef P(C->Source);
    C->Anchored = P.consume_front("::") || P.consume_front(".");
    C->Bare = !C->Anchored && !P.contains('.') && !P.contains("::");
    if (P.find_first_of("*?[]{}\\") == StringRef::npos) {
      (C->Anchored ? Whole : Literal).insert(P);
      if (C->Bare)
        Bare.insert(P);
      continue;
    }
    auto G = llvm::GlobPattern::create(P);
    if (!G) {
      llvm::consumeError(G.takeError());
      continue; // never met: every reader checks with patternProblem()
    }
    C->Glob = std::move(*G);
    Patterns.push_back(std::move(C));
  }
}

bool NameSet::matches(StringRef Name) const { return match(Name, true); }

bool NameSet::matchesScoped(StringRef Name) const {
  return match(Name, false);
}

bool NameSet::match(StringRef Name, bool BareToo) const {
  Name.consume_front("::");
  auto IsLiteral = [&](StringRef S) {
    return Literal.contains(S) && (BareToo || !Bare.contains(S));
  };
  if (Whole.contains(Name) || IsLiteral(Name))
    return true;
  if (!Literal.empty())
    for (size_t I = 0; I < Name.size(); ++I) {
      if (Name[I] == '.' && IsLiteral(Name.substr(I + 1)))
        return true;
      if (Name[I] == ':' && I + 1 < Name.size() && Name[I + 1] == ':' &&
          IsLiteral(Name.substr(I + 2)))
        return true;
    }
  for (const auto &CP : Patterns) {
    const Compiled &C = *CP;
    if (C.Bare && !BareToo)
      continue;
    if (C.Glob.match(Name))
      return true;
    if (C.Anchored)
      continue;
    // Try each suffix that starts after a scope separator.
    for (size_t I = 0; I < Name.size(); ++I) {
      if (Name[I] == '.' && C.Glob.match(Name.substr(I + 1)))
        return true;
      if (Name[I] == ':' && I + 1 < Name.size() && Name[I + 1] == ':' &&
          C.Glob.match(Name.substr(I + 2)))
        return true;
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Catalog
//===----------------------------------------------------------------------===//
template <typename T>
static void extend(std::vector<T> &To, const std::vector<T> &From) {
  To.insert(To.end(), From.begin(), From.end());
}

void Catalog::mergeFrom(const Catalog &O) {
  if (!O.Inherit) {
    *this = O;
    Inherit = true;
    return;
  }
  extend(CapturePairs, O.CapturePairs);
  extend(TaskUpdatePairs, O.TaskUpdatePairs);
  extend(TaskUpdateCalls, O.TaskUpdateCalls);
  extend(RawAllocators, O.RawAllocators);
  extend(RawFrees, O.RawFrees);
  extend(GraphDestroys, O.GraphDestroys);
  extend(GraphLaunches, O.GraphLaunches);
  extend(SessionPairs, O.SessionPairs);
  extend(SessionContexts, O.SessionContexts);
  extend(SessionPredicates, O.SessionPredicates);
  extend(CaptureGuards, O.CaptureGuards);
  extend(CaptureContexts, O.CaptureContexts);
  extend(CapturePredicates, O.CapturePredicates);
  extend(WeakRefFunctions, O.WeakRefFunctions);
  extend(BlobFunctions, O.BlobFunctions);
  extend(WorkspaceProducers, O.WorkspaceProducers);
  extend(WorkspaceNames, O.WorkspaceNames);
  extend(StreamSwitches, O.StreamSwitches);
  extend(StreamSyncs, O.StreamSyncs);
}

void Catalog::appendList(std::vector<std::string> &To, StringRef List) {
  llvm::SmallVector<StringRef, 8> Parts;
  List.split(Parts, ';', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts)
    if (!P.trim().empty())
      To.push_back(P.trim().str());
}

void Catalog::appendPairs(std::vector<CapturePair> &To, StringRef List) {
  // Qualified names contain "::", so a pair is written "begin=end".
  llvm::SmallVector<StringRef, 8> Parts;
  List.split(Parts, ';', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    if (P.trim().empty())
      continue;
    // A half pair is kept, so that CatalogProvider reports it.
    auto [B, E] = P.split('=');
    To.push_back({B.trim().str(), E.trim().str()});
  }
}

/// The clang-tidy check options arrive as Extra, appended without checks
/// (appendList cannot fail); a bad entry is an error naming its option, as
/// a bad line of .tether.yaml is, never a pattern NameSet quietly drops.
static llvm::Error checkOptions(const Catalog &Extra) {
  auto Bad = [](StringRef Option, const std::string &Problem) {
    return llvm::createStringError(
        catalog::oneLine(("check option " + Option + ": " + Problem).str()));
  };
  const std::pair<const char *, const std::vector<CapturePair> *> Pairs[] = {
      {"CapturePairs", &Extra.CapturePairs},
      {"TaskUpdatePairs", &Extra.TaskUpdatePairs},
      {"SessionPairs", &Extra.SessionPairs}};
  for (const auto &[Option, List] : Pairs)
    for (const CapturePair &P : *List) {
      if (P.Begin.empty() || P.End.empty())
        return Bad(Option,
                   "'" + P.Begin + "=" + P.End + "' is not a begin=end pair");
      for (const std::string *S : {&P.Begin, &P.End})
        if (std::string Problem = catalog::patternProblem(*S); !Problem.empty())
          return Bad(Option, Problem);
    }
  const std::pair<const char *, const std::vector<std::string> *> Lists[] = {
      {"CaptureGuards", &Extra.CaptureGuards},
      {"TaskUpdateCalls", &Extra.TaskUpdateCalls},
      {"RawAllocators", &Extra.RawAllocators},
      {"RawFrees", &Extra.RawFrees},
      {"GraphDestroys", &Extra.GraphDestroys},
      {"GraphLaunches", &Extra.GraphLaunches},
      {"CaptureContexts", &Extra.CaptureContexts},
      {"CapturePredicates", &Extra.CapturePredicates},
      {"SessionPredicates", &Extra.SessionPredicates},
      {"WeakRefFunctions", &Extra.WeakRefFunctions},
      {"BlobFunctions", &Extra.BlobFunctions},
      {"WorkspaceProducers", &Extra.WorkspaceProducers},
      {"WorkspaceNames", &Extra.WorkspaceNames},
      {"StreamSwitches", &Extra.StreamSwitches},
      {"StreamSyncs", &Extra.StreamSyncs}};
  for (const auto &[Option, List] : Lists)
    for (const std::string &S : *List)
      if (std::string Problem = catalog::patternProblem(S); !Problem.empty())
        return Bad(Option, Problem);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// CompiledCatalog
//===----------------------------------------------------------------------===//
static std::vector<std::string> begins(const std::vector<CapturePair> &Ps) {
  std::vector<std::string> R;
  for (const CapturePair &P : Ps)
    R.push_back(P.Begin);
  return R;
}
static std::vector<std::string> ends(const std::vector<CapturePair> &Ps) {
  std::vector<std::string> R;
  for (const CapturePair &P : Ps)
    R.push_back(P.End);
  return R;
}

CompiledCatalog::CompiledCatalog(const Catalog &C)
    : Source(C), CaptureBegins(begins(C.CapturePairs)),
      CaptureEnds(ends(C.CapturePairs)),
      TaskUpdateBegins(begins(C.TaskUpdatePairs)),
      TaskUpdateEnds(ends(C.TaskUpdatePairs)),
      TaskUpdateCalls(C.TaskUpdateCalls), RawAllocators(C.RawAllocators),
      RawFrees(C.RawFrees), GraphDestroys(C.GraphDestroys),
      GraphLaunches(C.GraphLaunches),
      SessionBegins(begins(C.SessionPairs)), SessionEnds(ends(C.SessionPairs)),
      SessionContexts(C.SessionContexts),
      SessionPredicates(C.SessionPredicates),
      CaptureGuards(C.CaptureGuards), CaptureContexts(C.CaptureContexts),
      CapturePredicates(C.CapturePredicates),
      WeakRefFunctions(C.WeakRefFunctions), BlobFunctions(C.BlobFunctions),
      WorkspaceProducers(C.WorkspaceProducers),
      WorkspaceNames(C.WorkspaceNames), StreamSwitches(C.StreamSwitches),
      StreamSyncs(C.StreamSyncs) {
  for (const CapturePair &P : C.CapturePairs)
    PairBegins.emplace_back(std::vector<std::string>{P.Begin});
}

std::string CompiledCatalog::endFor(StringRef BeginName) const {
  for (size_t I = 0; I < PairBegins.size(); ++I)
    if (PairBegins[I].matches(BeginName))
      return Source.CapturePairs[I].End;
  return "";
}

//===----------------------------------------------------------------------===//
// CatalogProvider
//===----------------------------------------------------------------------===//
CatalogProvider::CatalogProvider(std::string ExplicitConfig, Catalog Extra)
    : ExplicitConfig(std::move(ExplicitConfig)), Extra(std::move(Extra)) {}

llvm::Expected<std::shared_ptr<const CompiledCatalog>>
CatalogProvider::forFile(StringRef FilePath) {
  llvm::SmallString<256> Abs(FilePath);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return forDirectory(llvm::sys::path::parent_path(Abs));
}

llvm::Expected<std::shared_ptr<const CompiledCatalog>>
CatalogProvider::forDirectory(StringRef Dir) {
  std::lock_guard<std::mutex> G(Lock);
  if (auto It = ByDir.find(Dir.str()); It != ByDir.end())
    return It->second;
  if (auto It = ErrorByDir.find(Dir.str()); It != ErrorByDir.end())
    return llvm::createStringError(It->second);

  // Collect .tether.yaml files from Dir up to the root, nearest first.
  std::vector<std::string> Configs;
  for (StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    llvm::SmallString<256> P(D);
    llvm::sys::path::append(P, ConfigFileName);
    if (llvm::sys::fs::is_regular_file(P))
      Configs.push_back(P.str().str());
    if (llvm::sys::path::parent_path(D) == D)
      break;
  }
  // Folders under the same configuration files share one compiled catalog
  // (a package's folders mostly do): compiling it is most of this call.
  std::string Key = llvm::join(Configs, "\n");
  if (auto It = ByConfigs.find(Key); It != ByConfigs.end())
    return ByDir[Dir.str()] = It->second;
  if (auto It = ErrorByConfigs.find(Key); It != ErrorByConfigs.end()) {
    ErrorByDir[Dir.str()] = It->second;
    return llvm::createStringError(It->second);
  }
  Catalog Effective = Catalog::defaults();
  auto Apply = [&](const std::string &Path) -> llvm::Error {
    auto C = Catalog::load(Path);
    if (!C)
      return C.takeError();
    Effective.mergeFrom(*C);
    return llvm::Error::success();
  };
  llvm::Error Err = llvm::Error::success();
  for (auto It = Configs.rbegin(); It != Configs.rend() && !Err; ++It)
    Err = Apply(*It);
  if (!Err && !ExplicitConfig.empty())
    Err = Apply(ExplicitConfig);
  if (!Err)
    Err = checkOptions(Extra);
  if (Err) {
    std::string Msg = toString(std::move(Err));
    ErrorByDir[Dir.str()] = Msg;
    ErrorByConfigs[Key] = Msg;
    return llvm::createStringError(Msg);
  }
  Effective.mergeFrom(Extra);
  auto Compiled = std::make_shared<const CompiledCatalog>(Effective);
  ByDir[Dir.str()] = Compiled;
  ByConfigs[Key] = Compiled;
  return Compiled;
}

std::string tether::catalogKey(const Catalog &C) {
  std::string K;
  auto Add = [&](const std::vector<std::string> &L) {
    for (const std::string &S : L) {
      K += S;
      K += '\x1f';
    }
    K += '\x1e';
  };
  for (const auto *Pairs :
       {&C.CapturePairs, &C.TaskUpdatePairs, &C.SessionPairs}) {
    for (const CapturePair &P : *Pairs) {
      K += P.Begin;
      K += '=';
      K += P.End;
      K += '\x1f';
    }
    K += '\x1e';
  }
  Add(C.TaskUpdateCalls);
  Add(C.RawAllocators);
  Add(C.RawFrees);
  Add(C.GraphDestroys);
  Add(C.GraphLaunches);
  Add(C.CaptureGuards);
  Add(C.CaptureContexts);
  Add(C.CapturePredicates);
  Add(C.SessionContexts);
  Add(C.SessionPredicates);
  Add(C.WeakRefFunctions);
  Add(C.BlobFunctions);
  Add(C.WorkspaceProducers);
  Add(C.WorkspaceNames);
  Add(C.StreamSwitches);
  Add(C.StreamSyncs);
  return K;
}
