//===- Catalog.cpp - Matching, merging and .tether.yaml loading -----------===//
#include "Catalog.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

using namespace tether;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// YAML mapping: the fields of .tether.yaml.
//===----------------------------------------------------------------------===//
namespace llvm::yaml {
template <> struct MappingTraits<tether::CapturePair> {
  static void mapping(IO &IO, tether::CapturePair &P) {
    IO.mapRequired("begin", P.Begin);
    IO.mapRequired("end", P.End);
  }
};
template <> struct MappingTraits<tether::Catalog> {
  static void mapping(IO &IO, tether::Catalog &C) {
    IO.mapOptional("inherit", C.Inherit, true);
    IO.mapOptional("capture_pairs", C.CapturePairs);
    IO.mapOptional("capture_guards", C.CaptureGuards);
    IO.mapOptional("capture_contexts", C.CaptureContexts);
    IO.mapOptional("capture_predicates", C.CapturePredicates);
    IO.mapOptional("weak_ref_functions", C.WeakRefFunctions);
    IO.mapOptional("blob_functions", C.BlobFunctions);
    IO.mapOptional("workspace_producers", C.WorkspaceProducers);
    IO.mapOptional("workspace_names", C.WorkspaceNames);
    IO.mapOptional("stream_switches", C.StreamSwitches);
    IO.mapOptional("stream_syncs", C.StreamSyncs);
  }
};
} // namespace llvm::yaml
LLVM_YAML_IS_SEQUENCE_VECTOR(tether::CapturePair)

//===----------------------------------------------------------------------===//
// NameSet
//===----------------------------------------------------------------------===//
NameSet::NameSet(const std::vector<std::string> &Sources) {
  for (const std::string &S : Sources) {
    auto C = std::make_shared<Compiled>();
    C->Source = S;
    StringRef P(C->Source);
    C->Anchored = P.consume_front("::") || P.consume_front(".");
    auto G = llvm::GlobPattern::create(P);
    if (!G) {
      llvm::consumeError(G.takeError());
      continue; // validated at load time; defaults are well-formed
    }
    C->Glob = std::move(*G);
    Patterns.push_back(std::move(C));
  }
}

bool NameSet::matches(StringRef Name) const {
  Name.consume_front("::");
  for (const auto &CP : Patterns) {
    const Compiled &C = *CP;
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

static llvm::Error checkGlobs(const Catalog &C, StringRef FileName) {
  const std::vector<std::string> *Lists[] = {
      &C.CaptureGuards,      &C.CaptureContexts, &C.CapturePredicates,
      &C.WeakRefFunctions,   &C.BlobFunctions,   &C.WorkspaceProducers,
      &C.WorkspaceNames,     &C.StreamSwitches,  &C.StreamSyncs};
  for (const auto *L : Lists)
    for (const std::string &S : *L) {
      if (S.empty())
        return llvm::createStringError(FileName + ": empty name in list");
      auto G = llvm::GlobPattern::create(S);
      if (!G)
        return llvm::createStringError(FileName + ": bad pattern '" + S +
                                       "': " + toString(G.takeError()));
    }
  for (const CapturePair &P : C.CapturePairs)
    if (P.Begin.empty() || P.End.empty())
      return llvm::createStringError(FileName +
                                     ": capture pair with an empty name");
  return llvm::Error::success();
}

llvm::Expected<Catalog> Catalog::parse(StringRef Yaml, StringRef FileName) {
  struct Ctx {
    std::string FirstError;
  } Diags;
  auto Handler = [](const llvm::SMDiagnostic &D, void *Context) {
    auto *C = static_cast<Ctx *>(Context);
    if (!C->FirstError.empty())
      return;
    C->FirstError = (D.getFilename() + ":" + llvm::Twine(D.getLineNo()) + ":" +
                     llvm::Twine(D.getColumnNo() + 1) + ": " + D.getMessage())
                        .str();
  };
  Catalog C;
  llvm::MemoryBufferRef Ref(Yaml, FileName);
  llvm::yaml::Input In(Ref, nullptr, Handler, &Diags);
  if (!Yaml.trim().empty())
    In >> C;
  if (In.error() || !Diags.FirstError.empty()) {
    std::string Msg = Diags.FirstError.empty()
                          ? (FileName + ": invalid configuration").str()
                          : Diags.FirstError;
    return llvm::createStringError(Msg);
  }
  if (llvm::Error E = checkGlobs(C, FileName))
    return std::move(E);
  return C;
}

llvm::Expected<Catalog> Catalog::load(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(Path + ": cannot read configuration: " +
                                   Buf.getError().message());
  return parse((*Buf)->getBuffer(), Path);
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
    auto [B, E] = P.split('=');
    if (!B.trim().empty() && !E.trim().empty())
      To.push_back({B.trim().str(), E.trim().str()});
  }
}

//===----------------------------------------------------------------------===//
// CompiledCatalog
//===----------------------------------------------------------------------===//
static std::vector<std::string> begins(const Catalog &C) {
  std::vector<std::string> R;
  for (const CapturePair &P : C.CapturePairs)
    R.push_back(P.Begin);
  return R;
}
static std::vector<std::string> ends(const Catalog &C) {
  std::vector<std::string> R;
  for (const CapturePair &P : C.CapturePairs)
    R.push_back(P.End);
  return R;
}

CompiledCatalog::CompiledCatalog(const Catalog &C)
    : Source(C), CaptureBegins(begins(C)), CaptureEnds(ends(C)),
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
  if (Err) {
    std::string Msg = toString(std::move(Err));
    ErrorByDir[Dir.str()] = Msg;
    return llvm::createStringError(Msg);
  }
  Effective.mergeFrom(Extra);
  auto Compiled = std::make_shared<const CompiledCatalog>(Effective);
  ByDir[Dir.str()] = Compiled;
  return Compiled;
}
