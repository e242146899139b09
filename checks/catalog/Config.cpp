//===- Config.cpp - Reading .tether.yaml ----------------------------------===//
//
// llvm::yaml maps the file onto Catalog. Two things come first, because the
// YAML library cannot be trusted with them: its node tree is built
// recursively (a few hundred thousand "[" or "- " exhaust the stack), so the
// document's depth is measured beforehand by a walk with an explicit stack;
// and it reads only the first of several documents, so a second one is an
// error rather than silently ignored. Every name is checked where it is
// read, so a bad pattern is reported at its own line and column.
//
//===----------------------------------------------------------------------===//
#include "Catalog.h"
#include "Patterns.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/YAMLTraits.h"
#include <optional>
#include <tuple>

using namespace tether;
using llvm::StringRef;

namespace {
/// One name of a list or of a capture pair, validated as it is read.
struct PatternText {
  std::string Text;
};
/// Handed to the YAML reader as its context: keeps a scalar's error
/// message alive until the reader has reported it.
struct ReadContext {
  std::string ScalarError;
};
} // namespace

namespace llvm::yaml {
template <> struct ScalarTraits<PatternText> {
  static void output(const PatternText &P, void *, raw_ostream &OS) {
    OS << P.Text;
  }
  static StringRef input(StringRef Scalar, void *Context, PatternText &P) {
    P.Text = Scalar.str();
    auto *C = static_cast<ReadContext *>(Context);
    C->ScalarError = tether::catalog::patternProblem(Scalar);
    return C->ScalarError;
  }
  static QuotingType mustQuote(StringRef S) { return needsQuotes(S); }
};
} // namespace llvm::yaml
LLVM_YAML_IS_SEQUENCE_VECTOR(PatternText)

/// Maps a list of names through PatternText, so each is checked on input.
static void mapNames(llvm::yaml::IO &IO, const char *Key,
                     std::vector<std::string> &Field) {
  std::vector<PatternText> Items;
  for (const std::string &S : Field)
    Items.push_back({S});
  IO.mapOptional(Key, Items);
  Field.clear();
  for (PatternText &P : Items)
    Field.push_back(std::move(P.Text));
}

namespace llvm::yaml {
template <> struct MappingTraits<tether::CapturePair> {
  static void mapping(IO &IO, tether::CapturePair &P) {
    PatternText Begin{P.Begin}, End{P.End};
    IO.mapRequired("begin", Begin);
    IO.mapRequired("end", End);
    P.Begin = std::move(Begin.Text);
    P.End = std::move(End.Text);
  }
};
template <> struct MappingTraits<tether::Catalog> {
  static void mapping(IO &IO, tether::Catalog &C) {
    IO.mapOptional("inherit", C.Inherit, true);
    IO.mapOptional("capture_pairs", C.CapturePairs);
    IO.mapOptional("task_update_pairs", C.TaskUpdatePairs);
    mapNames(IO, "task_update_calls", C.TaskUpdateCalls);
    mapNames(IO, "raw_allocators", C.RawAllocators);
    mapNames(IO, "raw_frees", C.RawFrees);
    mapNames(IO, "graph_destroys", C.GraphDestroys);
    mapNames(IO, "graph_launches", C.GraphLaunches);
    IO.mapOptional("session_pairs", C.SessionPairs);
    mapNames(IO, "session_contexts", C.SessionContexts);
    mapNames(IO, "session_predicates", C.SessionPredicates);
    mapNames(IO, "capture_guards", C.CaptureGuards);
    mapNames(IO, "capture_contexts", C.CaptureContexts);
    mapNames(IO, "capture_predicates", C.CapturePredicates);
    mapNames(IO, "weak_ref_functions", C.WeakRefFunctions);
    mapNames(IO, "blob_functions", C.BlobFunctions);
    mapNames(IO, "workspace_producers", C.WorkspaceProducers);
    mapNames(IO, "workspace_names", C.WorkspaceNames);
    mapNames(IO, "stream_switches", C.StreamSwitches);
    mapNames(IO, "stream_syncs", C.StreamSyncs);
  }
};
} // namespace llvm::yaml
LLVM_YAML_IS_SEQUENCE_VECTOR(tether::CapturePair)

/// The deepest nesting a configuration may have: the schema needs three
/// (the file's mapping, a list, a capture pair's mapping).
static constexpr size_t MaxDepth = 16;

/// Why the YAML reader produced no document and no error either: its
/// scanner stops without a word at a directive it does not know.
static std::string unreadableDocument(StringRef Yaml, StringRef FileName) {
  llvm::SmallVector<StringRef, 16> Lines;
  Yaml.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef Name = Lines[I].rtrim("\r");
    if (!Name.consume_front("%"))
      continue;
    Name = Name.take_until([](char C) { return C == ' ' || C == '\t'; });
    if (Name != "YAML" && Name != "TAG")
      return (FileName + ":" + llvm::Twine(I + 1) +
              ":1: unknown YAML directive '%" + Name + "'")
          .str();
  }
  return (FileName + ":1:1: not a YAML document").str();
}

/// "FILE:LINE:COL: message" when Yaml nests deeper than MaxDepth, holds
/// more than one non-empty document or an alias. Syntax errors are left to the reader,
/// which reports them better; the walk just stops at the first.
static std::optional<std::string> shapeProblem(StringRef Yaml,
                                               StringRef FileName) {
  namespace yaml = llvm::yaml;
  llvm::SourceMgr SM;
  SM.setDiagHandler([](const llvm::SMDiagnostic &, void *) {}, nullptr);
  yaml::Stream S(llvm::MemoryBufferRef(Yaml, FileName), SM);
  // A collection being walked. The YAML parser is lazy and forward-only: a
  // child must be walked to its end before its parent moves past it, and a
  // mapping entry's key before its value.
  struct Frame {
    yaml::SequenceNode *Seq = nullptr;
    yaml::MappingNode *Map = nullptr;
    yaml::SequenceNode::iterator SeqIt;
    yaml::MappingNode::iterator MapIt;
    bool Started = false;
    bool ValueNext = false;
  };
  std::vector<Frame> Stack;
  std::optional<std::string> Problem;
  auto InBuffer = [&](llvm::SMLoc L) {
    const char *P = L.getPointer();
    return P && P >= Yaml.begin() && P <= Yaml.end();
  };
  auto Start = [](yaml::Node *N) {
    if (auto *Alias = llvm::dyn_cast<yaml::AliasNode>(N))
      // An alias node has no range; its name points into the buffer, just
      // after the "*".
      return llvm::SMLoc::getFromPointer(Alias->getName().data() - 1);
    return N->getSourceRange().Start;
  };
  auto At = [&](yaml::Node *N, const llvm::Twine &Message) {
    // Some nodes the parser makes up (the implicit mapping of "[a: b") have
    // no range in the buffer: then the nearest enclosing one that has.
    llvm::SMLoc Loc = Start(N);
    for (size_t I = Stack.size(); !InBuffer(Loc) && I > 0; --I)
      Loc = Start(Stack[I - 1].Seq ? static_cast<yaml::Node *>(Stack[I - 1].Seq)
                                   : Stack[I - 1].Map);
    unsigned Line = 1, Col = 1;
    if (InBuffer(Loc))
      std::tie(Line, Col) = SM.getLineAndColumn(Loc);
    return (FileName + ":" + llvm::Twine(Line) + ":" + llvm::Twine(Col) +
            ": " + Message)
        .str();
  };
  auto Enter = [&](yaml::Node *N) {
    if (!N)
      return;
    if (llvm::isa<yaml::AliasNode>(N)) {
      // YAMLTraits cannot follow them (and reports them at no place).
      Problem = At(N, "YAML aliases (*name) are not supported");
      return;
    }
    auto *Seq = llvm::dyn_cast<yaml::SequenceNode>(N);
    auto *Map = llvm::dyn_cast<yaml::MappingNode>(N);
    if (!Seq && !Map)
      return;
    if (Stack.size() >= MaxDepth) {
      Problem = At(N, "nested deeper than " + llvm::Twine(MaxDepth) +
                          " levels; a configuration has three");
      return;
    }
    Frame F;
    F.Seq = Seq;
    F.Map = Map;
    Stack.push_back(F);
  };

  bool SeenDocument = false;
  for (auto Doc = S.begin(); Doc != S.end(); ++Doc) {
    yaml::Node *Root = Doc->getRoot();
    if (S.failed())
      return std::nullopt;
    if (!Root)
      return unreadableDocument(Yaml, FileName);
    if (llvm::isa<yaml::NullNode>(Root))
      continue; // an empty document, as after a trailing "---"
    if (SeenDocument)
      return At(Root, "a second YAML document; .tether.yaml holds one");
    SeenDocument = true;
    Enter(Root);
    while (!Stack.empty() && !Problem && !S.failed()) {
      Frame &F = Stack.back();
      if (F.Seq) {
        if (F.Started)
          ++F.SeqIt;
        else
          F.SeqIt = F.Seq->begin();
        F.Started = true;
        if (F.SeqIt == F.Seq->end())
          Stack.pop_back();
        else
          Enter(&*F.SeqIt); // may grow Stack: F is not used after this
        continue;
      }
      if (F.ValueNext) {
        F.ValueNext = false;
        Enter(F.MapIt->getValue());
        continue;
      }
      if (F.Started)
        ++F.MapIt;
      else
        F.MapIt = F.Map->begin();
      F.Started = true;
      if (F.MapIt == F.Map->end()) {
        Stack.pop_back();
        continue;
      }
      F.ValueNext = true;
      Enter(F.MapIt->getKey());
    }
    if (Problem)
      return Problem;
    if (S.failed())
      return std::nullopt;
  }
  return std::nullopt;
}

llvm::Expected<Catalog> Catalog::parse(StringRef Yaml, StringRef FileName) {
  if (std::optional<std::string> P = shapeProblem(Yaml, FileName))
    return llvm::createStringError(catalog::oneLine(*P));
  struct Diagnostics {
    StringRef Yaml, FileName;
    std::string First;
  } Diags{Yaml, FileName, ""};
  auto Handler = [](const llvm::SMDiagnostic &D, void *Context) {
    auto *C = static_cast<Diagnostics *>(Context);
    if (!C->First.empty())
      return;
    int Line = D.getLineNo(), Col = D.getColumnNo() + 1;
    if (Line <= 0) {
      // A token the scanner places just past the buffer (an unexpected end
      // of file): SourceMgr finds no line for it, so count them here.
      const char *P = D.getLoc().getPointer();
      size_t Offset = P >= C->Yaml.begin() && P <= C->Yaml.end()
                          ? size_t(P - C->Yaml.begin())
                          : C->Yaml.size();
      StringRef Before = C->Yaml.take_front(Offset);
      Line = 1 + int(Before.count('\n'));
      Col = 1 + int(Offset - (Before.rfind('\n') + 1));
    }
    C->First = (C->FileName + ":" + llvm::Twine(Line) + ":" + llvm::Twine(Col) +
                ": " + D.getMessage())
                   .str();
  };
  Catalog C;
  ReadContext Context;
  llvm::MemoryBufferRef Ref(Yaml, FileName);
  llvm::yaml::Input In(Ref, &Context, Handler, &Diags);
  if (!Yaml.trim().empty())
    In >> C;
  if (In.error() || !Diags.First.empty())
    return llvm::createStringError(catalog::oneLine(
        Diags.First.empty() ? (FileName + ": invalid configuration").str()
                            : Diags.First));
  return C;
}

llvm::Expected<Catalog> Catalog::load(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(catalog::oneLine(
        Path.str() + ": cannot read configuration: " +
        Buf.getError().message()));
  return parse((*Buf)->getBuffer(), Path);
}
