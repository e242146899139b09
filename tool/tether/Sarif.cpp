//===- Sarif.cpp - SARIF 2.1.0 for code-scanning uploads ------------------===//
//
// One run, one rule per enabled check (with its documentation page as help
// URI), one result per finding. Notes become related locations, referenced
// from the message, so viewers show the story of the finding. Fingerprints
// are the baseline ones, so an alert keeps its identity when code moves.
//
//===----------------------------------------------------------------------===//
#include "Lsp.h"
#include "Output.h"
#include "common/Messages.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "tether/version.h"

using namespace tether;
using llvm::json::Array;
using llvm::json::Object;

namespace {
struct RuleText {
  const char *Check;
  const char *Short;
  const char *Full;
};
// Kept in step with DESIGN.md's table of checks.
const RuleText Rules[] = {
    {msg::WeakRefBeforeCaptureEnd,
     "Weak reference made during graph capture to memory that can die "
     "before the capture ends",
     "A weak reference is made while a graph capture is active, every strong "
     "reference to that memory can die before the capture ends, and a later "
     "operation of the same capture uses the weak reference (directly or "
     "through a cache other layers read). The allocator can then hand the "
     "block to another allocation of the capture, and two live tensors share "
     "memory at replay."},
    {msg::DoubleWeakRef, "Weak-ref conversion of a value that is already a weak reference",
     "A weak-ref conversion is applied to a value that is already a weak "
     "reference: nested calls, a variable assigned from one, or a helper "
     "that weak-refs its parameter called with a weak reference."},
    {msg::WorkspaceSharedAcrossLayers,
     "Workspace cache shared by several layers is unsafe during capture",
     "A workspace cache that several layers read during capture is replaced "
     "or cleared during the capture, sized for one layer and reused by "
     "others without a size check, or used on different streams inside the "
     "capture."},
    {msg::WeakRefOfMaybeNull,
     "Weak-ref conversion of a value that may be empty",
     "A weak-ref conversion is applied to a value that may be None, an "
     "undefined tensor or an empty optional."},
    {msg::GraphMemoryDiesBeforeReplay,
     "Memory bound into a graph task by a task update can die before the "
     "next replay",
     "An operation inside a task update (the captured task recorded again "
     "with new arguments) uses local memory whose last strong reference "
     "dies afterwards, at the next loop iteration or the function's return. "
     "The graph keeps the address for every later replay while the caching "
     "allocator hands the block out again."},
};

Object physical(const Location &L) {
  // Relative paths stay relative to %SRCROOT% (the working directory), as
  // code scanning expects repository-relative URIs.
  Object Artifact{{"uri", percentEncodePath(L.File)}};
  if (!llvm::sys::path::is_absolute(L.File))
    Artifact["uriBaseId"] = "SRCROOT";
  else
    Artifact["uri"] = pathToUri(L.File);
  Object Region{{"startLine", L.Line}};
  if (L.Column > 0)
    Region["startColumn"] = L.Column;
  return Object{{"artifactLocation", std::move(Artifact)},
                {"region", std::move(Region)}};
}
} // namespace

void tether::writeSarif(llvm::raw_ostream &OS,
                        const std::vector<Finding> &Findings,
                        const std::vector<std::string> &Fingerprints,
                        const std::vector<std::string> &EnabledChecks,
                        llvm::StringRef HelpUriBase) {
  // Rules: every enabled check, plus any other check a finding names.
  std::vector<std::string> Ids = EnabledChecks;
  for (const Finding &F : Findings)
    if (!llvm::is_contained(Ids, F.Check))
      Ids.push_back(F.Check);
  llvm::sort(Ids);
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  llvm::StringMap<unsigned> Index;
  Array RuleList;
  for (const std::string &Id : Ids) {
    Index[Id] = RuleList.size();
    const RuleText *T = nullptr;
    for (const RuleText &R : Rules)
      if (Id == R.Check)
        T = &R;
    Object Rule{{"id", Id},
                {"name", Id},
                {"defaultConfiguration", Object{{"level", "warning"}}}};
    if (T) {
      Rule["shortDescription"] = Object{{"text", T->Short}};
      Rule["fullDescription"] = Object{{"text", T->Full}};
    } else {
      Rule["shortDescription"] = Object{{"text", Id}};
      Rule["fullDescription"] = Object{{"text", "clang-tidy check " + Id}};
    }
    if (Id.rfind("tether-", 0) == 0)
      Rule["helpUri"] = (HelpUriBase.rtrim('/') + "/" + Id + ".md").str();
    RuleList.push_back(std::move(Rule));
  }

  Array Results;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    Array Related;
    std::string Text = F.Message;
    for (size_t N = 0; N < F.Notes.size(); ++N) {
      Object Loc{{"id", N + 1},
                 {"physicalLocation", physical(F.Notes[N].Loc)},
                 {"message", Object{{"text", F.Notes[N].Message}}}};
      Related.push_back(std::move(Loc));
    }
    Object Result{
        {"ruleId", F.Check},
        {"ruleIndex", Index[F.Check]},
        {"level", F.Severity == "error" ? "error" : "warning"},
        {"message", Object{{"text", Text}}},
        {"locations", Array{Object{{"physicalLocation", physical(F.Loc)}}}},
        {"partialFingerprints",
         Object{{"tetherFingerprint/v1", Fingerprints[I]}}}};
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    Results.push_back(std::move(Result));
  }

  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  Object Run{
      {"tool",
       Object{{"driver", Object{{"name", "tether"},
                                {"version", TETHER_VERSION},
                                {"informationUri", HelpUriBase.rtrim('/').str()},
                                {"rules", std::move(RuleList)}}}}},
      {"originalUriBaseIds",
       Object{{"SRCROOT", Object{{"uri", pathToUri(Cwd) + "/"}}}}},
      // Columns are bytes; identical to UTF-16 units on ASCII lines.
      {"columnKind", "utf16CodeUnits"},
      {"results", std::move(Results)}};
  Object Root{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", Array{std::move(Run)}}};
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
}
