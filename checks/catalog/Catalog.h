//===- Catalog.h - What counts as capture, weak-ref, workspace, stream ----===//
//
// One catalog serves every frontend. Names are qualified ("at::from_blob",
// "torch.npu.graph") and may be globs ("*get_workspace*"). The defaults are
// embedded (Defaults.cpp); a project extends or replaces them with a
// `.tether.yaml` found upward from each analysed file, and clang-tidy check
// options append to the same fields.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CATALOG_CATALOG_H
#define TETHER_CATALOG_CATALOG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tether {

/// A begin/end call pair that opens and closes a capture region:
/// free functions (aclmdlRICaptureBegin/End) or methods on the same object
/// (NPUGraph::capture_begin/capture_end).
struct CapturePair {
  std::string Begin;
  std::string End;
};

/// A set of name patterns. A pattern matches a qualified name when the glob
/// matches the whole name, or (for patterns without a leading separator) a
/// suffix of it that starts at a scope boundary ("::" or "."), so that
/// "weak_ref_tensor" matches "vllm_ascend::weak_ref_tensor" but not
/// "my_weak_ref_tensor".
class NameSet {
public:
  NameSet() = default;
  explicit NameSet(const std::vector<std::string> &Patterns);
  bool matches(llvm::StringRef QualifiedName) const;
  /// As matches(), without the bare patterns (no scope in them, not
  /// anchored): "weak_ref_tensor" names a kernel in any namespace, and an
  /// in-tree function of that name is not it; its body says what it is.
  bool matchesScoped(llvm::StringRef QualifiedName) const;
  bool empty() const {
    return Patterns.empty() && Literal.empty() && Whole.empty();
  }

private:
  /// Most patterns are plain names: they are looked up, one hash probe per
  /// scope suffix of the name, instead of matched one by one (the frontends
  /// ask for every call they lower).
  llvm::StringSet<> Literal; ///< Plain names, matched as a suffix too.
  llvm::StringSet<> Whole;   ///< Plain anchored names: the whole name only.
  llvm::StringSet<> Bare;    ///< The plain names without a scope in them.
  struct Compiled {
    std::string Source; // GlobPattern refers into it: never moved
    llvm::GlobPattern Glob;
    bool Anchored; // leading "::" or "." : match the whole name only
    bool Bare;     // unanchored, and no scope separator in the pattern
  };
  std::vector<std::shared_ptr<const Compiled>> Patterns;
  bool match(llvm::StringRef Name, bool BareToo) const;
};

struct Catalog {
  /// Replace (false) or extend (true) the catalog this one is merged onto.
  bool Inherit = true;

  std::vector<CapturePair> CapturePairs;
  /// Calls that begin and end a task update: the captured task of a graph
  /// is recorded again with new arguments, which the graph then uses at
  /// every replay (torch.npu.graph_task_update_begin/end, ACL's
  /// aclmdlRICaptureTaskUpdateBegin/End).
  std::vector<CapturePair> TaskUpdatePairs;
  /// Calls that record a captured task again in one call, with what their
  /// arguments hold or point at (CUDA's cudaGraphExecKernelNodeSetParams,
  /// handed the node's kernel arguments): a task update of one call.
  std::vector<std::string> TaskUpdateCalls;
  /// Calls that allocate raw memory into the pointer their first argument
  /// points at (`aclrtMalloc(&ws, size, policy)`, `cudaMalloc(&p, n)`):
  /// memory no reference owns, alive until a raw free of it.
  std::vector<std::string> RawAllocators;
  /// Calls that free the raw memory their first argument points at
  /// (`aclrtFree(ws)`, `cudaFree(p)`).
  std::vector<std::string> RawFrees;
  /// Calls that destroy an instantiated graph (`aclmdlRIDestroy(model)`,
  /// `cudaGraphExecDestroy(exec)`): the addresses its tasks kept are
  /// used no more.
  std::vector<std::string> GraphDestroys;
  /// Calls that replay an instantiated graph (`aclmdlRIExecuteAsync`,
  /// `cudaGraphLaunch`): raw memory its tasks keep must be alive here.
  std::vector<std::string> GraphLaunches;
  /// Calls that begin and end a capture session: several graphs captured
  /// one after another into one memory pool (Megatron-LM's
  /// _set_capture_start/_set_capture_end around all its layers' graphs).
  /// Memory freed between two captures of a session goes back to the pool
  /// the later captures allocate from.
  std::vector<CapturePair> SessionPairs;
  /// Python context managers whose `with` body is a capture session
  /// (vLLM's graph_capture around the captures of every batch size).
  std::vector<std::string> SessionContexts;
  /// Predicates true for the whole of a session, between its captures too
  /// (Megatron-LM's and TransformerEngine's is_graph_capturing).
  std::vector<std::string> SessionPredicates;
  /// RAII types whose constructor begins and destructor ends a capture.
  std::vector<std::string> CaptureGuards;
  /// Python context managers whose `with` body is a capture region.
  std::vector<std::string> CaptureContexts;
  /// Predicates that are true while capturing: attribute names written
  /// "*.capturing", or functions such as
  /// torch.npu.is_current_stream_capturing.
  std::vector<std::string> CapturePredicates;
  /// Primitives that return a non-owning alias of their argument.
  std::vector<std::string> WeakRefFunctions;
  /// from_blob-like functions: a weak reference when called over another
  /// tensor's data_ptr() without a deleter.
  std::vector<std::string> BlobFunctions;
  /// Functions that produce (and usually cache) a workspace tensor.
  std::vector<std::string> WorkspaceProducers;
  /// Names of variables/attributes/slots that hold workspaces.
  std::vector<std::string> WorkspaceNames;
  /// Stream switches: context managers, guards, setters.
  std::vector<std::string> StreamSwitches;
  /// Cross-stream ordering (events, waits) that makes sharing safe.
  std::vector<std::string> StreamSyncs;

  /// The embedded defaults (torch, torch_npu, vLLM, vLLM Ascend, CUDA, ACL).
  static const Catalog &defaults();

  /// Merge Other onto this catalog: extend when Other.Inherit, else replace.
  void mergeFrom(const Catalog &Other);

  /// Parse a .tether.yaml document. Errors read "FILE:LINE:COL: message".
  static llvm::Expected<Catalog> parse(llvm::StringRef Yaml,
                                       llvm::StringRef FileName);
  static llvm::Expected<Catalog> load(llvm::StringRef Path);

  /// Split "a;b;c" (clang-tidy option syntax) and append.
  static void appendList(std::vector<std::string> &To, llvm::StringRef List);
  /// Parse "begin=end;begin=end" into pairs.
  static void appendPairs(std::vector<CapturePair> &To, llvm::StringRef List);
};

/// A catalog with its patterns compiled, ready for matching.
struct CompiledCatalog {
  explicit CompiledCatalog(const Catalog &C);
  Catalog Source;
  NameSet CaptureBegins, CaptureEnds, TaskUpdateBegins, TaskUpdateEnds,
      TaskUpdateCalls, RawAllocators, RawFrees, GraphDestroys, GraphLaunches,
      SessionBegins, SessionEnds, SessionContexts, SessionPredicates,
      CaptureGuards, CaptureContexts,
      CapturePredicates, WeakRefFunctions, BlobFunctions, WorkspaceProducers,
      WorkspaceNames, StreamSwitches, StreamSyncs;
  /// The end pattern paired with a begin name ("" when none).
  std::string endFor(llvm::StringRef BeginName) const;

private:
  /// One compiled begin pattern per capture pair, in catalog order, so
  /// endFor() does not compile globs at every begin call it is asked about.
  std::vector<NameSet> PairBegins;
};

/// A catalog's contents as a key: equal for catalogs that say the same
/// (every list a check or a lowering reads; Inherit is already applied).
std::string catalogKey(const Catalog &C);

/// Finds and caches the effective catalog for a file: defaults, then every
/// .tether.yaml from the root down to the file's directory (the nearest is
/// merged last), then an explicit --config file if given. Thread-safe.
class CatalogProvider {
public:
  explicit CatalogProvider(std::string ExplicitConfig = "",
                           Catalog Extra = Catalog());
  /// The catalog for a file, or an error naming the bad config and line.
  llvm::Expected<std::shared_ptr<const CompiledCatalog>>
  forFile(llvm::StringRef FilePath);

  static constexpr const char *ConfigFileName = ".tether.yaml";

private:
  llvm::Expected<std::shared_ptr<const CompiledCatalog>>
  forDirectory(llvm::StringRef Dir);
  std::string ExplicitConfig;
  Catalog Extra;
  std::mutex Lock;
  std::map<std::string, std::shared_ptr<const CompiledCatalog>> ByDir;
  std::map<std::string, std::string> ErrorByDir;
  /// The same, by the configuration files merged (one per line).
  std::map<std::string, std::shared_ptr<const CompiledCatalog>> ByConfigs;
  std::map<std::string, std::string> ErrorByConfigs;
};

} // namespace tether

#endif
