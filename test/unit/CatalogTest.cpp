//===- CatalogTest.cpp - Catalog defaults, matching, .tether.yaml ---------===//
#include "catalog/Catalog.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace tether;

TEST(NameSet, MatchesAtScopeBoundaries) {
  NameSet S({"weak_ref_tensor", "at::from_blob", "*get_workspace*"});
  EXPECT_TRUE(S.matches("weak_ref_tensor"));
  EXPECT_TRUE(S.matches("vllm_ascend::weak_ref_tensor"));
  EXPECT_TRUE(S.matches("torch.ops._C.weak_ref_tensor"));
  EXPECT_FALSE(S.matches("my_weak_ref_tensor"));
  EXPECT_FALSE(S.matches("weak_ref_tensors_extra"));
  EXPECT_TRUE(S.matches("at::from_blob"));
  EXPECT_TRUE(S.matches("::at::from_blob"));
  EXPECT_FALSE(S.matches("from_blob"));
  EXPECT_TRUE(S.matches("npu_fused_infer_attention_score_get_workspace"));
  EXPECT_FALSE(S.matches("npu_fused_infer_attention_score"));
}

TEST(NameSet, AnchoredPatternsMatchWholeNamesOnly) {
  NameSet S({"::weak_ref_tensor"});
  EXPECT_TRUE(S.matches("weak_ref_tensor"));
  EXPECT_FALSE(S.matches("ns::weak_ref_tensor"));
}

// A bare name (no scope, not anchored) says "this name in any namespace";
// matchesScoped leaves it out, the scoped and anchored ones stay.
TEST(NameSet, ScopedMatchingLeavesBareNamesOut) {
  NameSet S({"weak_ref_tensor", "torch.ops._C.weak_ref_tensor", "::exact",
             "*_bare_glob", "pkg.*_scoped_glob"});
  EXPECT_TRUE(S.matches("pkg.utils.weak_ref_tensor"));
  EXPECT_FALSE(S.matchesScoped("pkg.utils.weak_ref_tensor"));
  EXPECT_FALSE(S.matchesScoped("weak_ref_tensor"));
  EXPECT_TRUE(S.matchesScoped("torch.ops._C.weak_ref_tensor"));
  EXPECT_TRUE(S.matchesScoped("exact"));
  EXPECT_TRUE(S.matches("m.x_bare_glob"));
  EXPECT_FALSE(S.matchesScoped("m.x_bare_glob"));
  EXPECT_TRUE(S.matchesScoped("pkg.x_scoped_glob"));
  EXPECT_TRUE(S.matchesScoped("top.pkg.x_scoped_glob"));
}

// Plain names are looked up in a set and globs matched one by one: a set
// that holds both answers as either would alone.
TEST(NameSet, PlainNamesAndGlobsTogether) {
  NameSet S({"::exact_only", "graph", "torch.npu.graph", "*_capture_begin",
             "get_?orkspace", "a.b"});
  EXPECT_TRUE(S.matches("exact_only"));
  EXPECT_TRUE(S.matches("::exact_only"));
  EXPECT_FALSE(S.matches("m.exact_only"));
  EXPECT_TRUE(S.matches("torch.cuda.graph"));
  EXPECT_TRUE(S.matches("ns::graph"));
  EXPECT_FALSE(S.matches("graphs"));
  EXPECT_FALSE(S.matches("subgraph"));
  EXPECT_TRUE(S.matches("x.a.b"));
  EXPECT_FALSE(S.matches("xa.b"));
  EXPECT_TRUE(S.matches("NPUGraph::graph_capture_begin"));
  EXPECT_TRUE(S.matches("pkg.get_workspace"));
  EXPECT_FALSE(S.matches("pkg.get_workspaces"));
  EXPECT_FALSE(S.matches(""));
  EXPECT_FALSE(S.matches("graph."));
  EXPECT_FALSE(S.matches("graph::"));
  EXPECT_FALSE(NameSet(std::vector<std::string>{}).matches("graph"));
  EXPECT_TRUE(NameSet().empty());
  EXPECT_FALSE(NameSet({"graph"}).empty());
  EXPECT_FALSE(NameSet({"::graph"}).empty());
}

TEST(Catalog, DefaultsCoverTheRealApis) {
  CompiledCatalog C(Catalog::defaults());
  EXPECT_TRUE(C.WeakRefFunctions.matches("torch_npu._C._weak_ref_tensor"));
  EXPECT_TRUE(C.WeakRefFunctions.matches("vllm_ascend.utils.weak_ref_tensors"));
  EXPECT_TRUE(C.WeakRefFunctions.matches("vllm.utils.torch_utils.weak_ref_tensors"));
  EXPECT_TRUE(C.BlobFunctions.matches("at::from_blob"));
  EXPECT_TRUE(C.CaptureBegins.matches("aclmdlRICaptureBegin"));
  EXPECT_TRUE(C.CaptureBegins.matches("c10_npu::NPUGraph::capture_begin"));
  EXPECT_TRUE(C.CaptureEnds.matches("at::cuda::CUDAGraph::capture_end"));
  EXPECT_TRUE(C.CaptureContexts.matches("torch.npu.graph"));
  EXPECT_TRUE(C.CapturePredicates.matches("forward_context.capturing"));
  EXPECT_TRUE(C.WorkspaceProducers.matches("_npu_fused_infer_attention_score_get_max_workspace"));
  EXPECT_EQ(C.endFor("aclmdlRICaptureBegin"), "aclmdlRICaptureEnd");
  EXPECT_EQ(C.endFor("g.capture_begin"), "capture_end");
  EXPECT_EQ(C.endFor("unrelated"), "");
}

TEST(Catalog, ParsesAndMerges) {
  auto C = Catalog::parse("weak_ref_functions: [my_ns::alias_of]\n"
                          "capture_pairs:\n"
                          "  - begin: my_begin\n"
                          "    end: my_end\n",
                          "t.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  Catalog M = Catalog::defaults();
  M.mergeFrom(*C);
  CompiledCatalog CC(M);
  EXPECT_TRUE(CC.WeakRefFunctions.matches("my_ns::alias_of"));
  EXPECT_TRUE(CC.WeakRefFunctions.matches("weak_ref_tensor")); // kept
  EXPECT_EQ(CC.endFor("my_begin"), "my_end");
}

TEST(Catalog, TaskUpdatePairs) {
  CompiledCatalog D(Catalog::defaults());
  EXPECT_TRUE(D.TaskUpdateBegins.matches("torch.npu.graph_task_update_begin"));
  EXPECT_TRUE(D.TaskUpdateEnds.matches("aclmdlRICaptureTaskUpdateEnd"));
  EXPECT_FALSE(D.CaptureBegins.matches("torch.npu.graph_task_update_begin"));
  auto C = Catalog::parse("task_update_pairs:\n"
                          "  - begin: my_ext.update_begin\n"
                          "    end: my_ext.update_end\n",
                          "t.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  Catalog M = Catalog::defaults();
  M.mergeFrom(*C);
  CompiledCatalog CC(M);
  EXPECT_TRUE(CC.TaskUpdateBegins.matches("my_ext.update_begin"));
  EXPECT_TRUE(CC.TaskUpdateEnds.matches("my_ext.update_end"));
  EXPECT_TRUE(CC.TaskUpdateBegins.matches("graph_task_update_begin")); // kept
  Catalog Bad;
  Catalog::appendPairs(Bad.TaskUpdatePairs, "only_begin");
  CatalogProvider P("", Bad);
  auto R = P.forFile("/nonexistent/dir/a.py");
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("TaskUpdatePairs"),
            std::string::npos);
}

/// Raw memory and graph ends: the runtimes' defaults, extended by a
/// .tether.yaml, and the catalog key tells catalogs that differ by them.
TEST(Catalog, RawMemoryAndGraphDestroys) {
  CompiledCatalog D(Catalog::defaults());
  EXPECT_TRUE(D.RawAllocators.matches("aclrtMalloc"));
  EXPECT_TRUE(D.RawAllocators.matches("cudaMalloc"));
  EXPECT_FALSE(D.RawAllocators.matches("aclrtFree"));
  EXPECT_TRUE(D.RawFrees.matches("aclrtFree"));
  EXPECT_TRUE(D.RawFrees.matches("cudaFreeAsync"));
  EXPECT_TRUE(D.GraphDestroys.matches("aclmdlRIDestroy"));
  EXPECT_TRUE(D.GraphDestroys.matches("cudaGraphExecDestroy"));
  // The template graph's end is not the executable graph's.
  EXPECT_FALSE(D.GraphDestroys.matches("cudaGraphDestroy"));
  auto C = Catalog::parse("raw_allocators: [rt::alloc]\nraw_frees: "
                          "[rt::release]\ngraph_destroys: [rt::drop]\n",
                          "t.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  Catalog M = Catalog::defaults();
  M.mergeFrom(*C);
  CompiledCatalog CC(M);
  EXPECT_TRUE(CC.RawAllocators.matches("rt::alloc"));
  EXPECT_TRUE(CC.RawFrees.matches("rt::release"));
  EXPECT_TRUE(CC.GraphDestroys.matches("rt::drop"));
  EXPECT_TRUE(CC.RawFrees.matches("aclrtFree"));
  EXPECT_NE(catalogKey(M), catalogKey(Catalog::defaults()));
}

TEST(Catalog, TaskUpdateCalls) {
  CompiledCatalog D(Catalog::defaults());
  EXPECT_TRUE(D.TaskUpdateCalls.matches("cudaGraphExecKernelNodeSetParams"));
  EXPECT_TRUE(D.TaskUpdateCalls.matches("cuda.cuGraphExecKernelNodeSetParams"));
  EXPECT_FALSE(D.TaskUpdateCalls.matches("cudaGraphLaunch"));
  auto C = Catalog::parse("task_update_calls: [my_ext.set_node_args]\n",
                          "t.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  Catalog M = Catalog::defaults();
  M.mergeFrom(*C);
  CompiledCatalog CC(M);
  EXPECT_TRUE(CC.TaskUpdateCalls.matches("my_ext.set_node_args"));
  EXPECT_TRUE(CC.TaskUpdateCalls.matches("cudaGraphExecMemsetNodeSetParams"));
  // The clang-tidy option: a bad pattern is an error naming it.
  Catalog Bad;
  Catalog::appendList(Bad.TaskUpdateCalls, "set_[params");
  CatalogProvider P("", Bad);
  auto R = P.forFile("/nonexistent/dir/a.py");
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("TaskUpdateCalls"),
            std::string::npos);
}

TEST(Catalog, SessionFields) {
  CompiledCatalog D(Catalog::defaults());
  EXPECT_TRUE(D.SessionBegins.matches(
      "megatron.core.transformer.cuda_graphs._set_capture_start"));
  EXPECT_TRUE(
      D.SessionEnds.matches("transformer_engine.pytorch.graph.set_capture_end"));
  EXPECT_TRUE(
      D.SessionContexts.matches("vllm.distributed.parallel_state.graph_capture"));
  EXPECT_FALSE(D.SessionContexts.matches("torch.cuda.graph"));
  EXPECT_FALSE(D.CaptureBegins.matches(
      "megatron.core.transformer.cuda_graphs._set_capture_start"));
  auto C = Catalog::parse("session_pairs:\n"
                          "  - begin: eng::session_begin\n"
                          "    end: eng::session_end\n"
                          "session_contexts: [my.sessions.all_sizes]\n"
                          "session_predicates: [my.flags.in_session]\n",
                          "t.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  Catalog M = Catalog::defaults();
  M.mergeFrom(*C);
  CompiledCatalog CC(M);
  EXPECT_TRUE(CC.SessionBegins.matches("eng::session_begin"));
  EXPECT_TRUE(CC.SessionEnds.matches("eng::session_end"));
  EXPECT_TRUE(CC.SessionContexts.matches("my.sessions.all_sizes"));
  EXPECT_TRUE(CC.SessionPredicates.matches("my.flags.in_session"));
  EXPECT_TRUE(CC.SessionContexts.matches("graph_capture")); // kept
  Catalog Bad;
  Catalog::appendPairs(Bad.SessionPairs, "only_begin");
  CatalogProvider P("", Bad);
  auto R = P.forFile("/nonexistent/dir/a.py");
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("SessionPairs"),
            std::string::npos);
}

TEST(Catalog, InheritFalseReplacesDefaults) {
  auto C = Catalog::parse("inherit: false\nweak_ref_functions: [only_this]\n",
                          "t.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  Catalog M = Catalog::defaults();
  M.mergeFrom(*C);
  CompiledCatalog CC(M);
  EXPECT_TRUE(CC.WeakRefFunctions.matches("only_this"));
  EXPECT_FALSE(CC.WeakRefFunctions.matches("weak_ref_tensor"));
  EXPECT_TRUE(CC.BlobFunctions.empty());
}

TEST(Catalog, MalformedConfigNamesFileAndLine) {
  auto C = Catalog::parse("weak_ref_functions: [a]\nbogus_key: 1\n", "cfg.yaml");
  ASSERT_FALSE(bool(C));
  std::string Msg = llvm::toString(C.takeError());
  EXPECT_NE(Msg.find("cfg.yaml:2:"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("bogus_key"), std::string::npos) << Msg;

  auto D = Catalog::parse("weak_ref_functions: 3\n", "cfg.yaml");
  ASSERT_FALSE(bool(D));
  EXPECT_NE(llvm::toString(D.takeError()).find("cfg.yaml:1:"), std::string::npos);

  auto E = Catalog::parse("capture_pairs:\n  - begin: x\n", "cfg.yaml");
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("end"), std::string::npos);
}

TEST(Catalog, ClangTidyOptionSyntax) {
  std::vector<std::string> L;
  Catalog::appendList(L, "a; b::c ;;d");
  EXPECT_EQ(L, (std::vector<std::string>{"a", "b::c", "d"}));
  std::vector<CapturePair> P;
  Catalog::appendPairs(P, "ns::Begin=ns::End;x=y");
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Begin, "ns::Begin");
  EXPECT_EQ(P[0].End, "ns::End");
  // A half pair is kept for CatalogProvider to report.
  std::vector<CapturePair> Half;
  Catalog::appendPairs(Half, "lonely; ;=end");
  ASSERT_EQ(Half.size(), 2u);
  EXPECT_EQ(Half[0].End, "");
  EXPECT_EQ(Half[1].Begin, "");
}

/// The error of a configuration that must not parse, checked to be one line.
static std::string parseError(llvm::StringRef Yaml) {
  auto C = Catalog::parse(Yaml, "cfg.yaml");
  if (C)
    return "(parsed)";
  std::string Msg = llvm::toString(C.takeError());
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << Msg;
  return Msg;
}

TEST(Catalog, DeepNestingIsAnErrorNotAStackOverflow) {
  // Flow and block collections nested a hundred thousand deep: the YAML
  // reader's recursion used to exhaust the stack (SIGSEGV).
  std::string Flow = "weak_ref_functions: " + std::string(100000, '[');
  EXPECT_EQ(parseError(Flow).rfind("cfg.yaml:1:37: nested deeper than 16", 0),
            0u);
  std::string Block = "weak_ref_functions:\n  ";
  for (int I = 0; I < 100000; ++I)
    Block += "- ";
  Block += "x\n";
  EXPECT_EQ(parseError(Block).rfind("cfg.yaml:2:33: nested deeper", 0), 0u);
  // Implicit mappings in flow sequences have no place of their own.
  std::string Implicit = "x: ";
  for (int I = 0; I < 20; ++I)
    Implicit += "[k: ";
  EXPECT_EQ(parseError(Implicit).rfind("cfg.yaml:1:", 0), 0u);
  // The schema's own depth is fine.
  EXPECT_EQ(parseError("capture_pairs: [{begin: a, end: b}]\n"), "(parsed)");
}

TEST(Catalog, WhatTheYamlReaderWouldIgnoreIsAnError) {
  EXPECT_EQ(parseError("weak_ref_functions: [a]\n---\nbogus: [b]\n"),
            "cfg.yaml:3:1: a second YAML document; .tether.yaml holds one");
  EXPECT_EQ(parseError("weak_ref_functions: [a]\n---\n"), "(parsed)");
  EXPECT_EQ(parseError("weak_ref_functions: &w [a]\nblob_functions: *w\n"),
            "cfg.yaml:2:17: YAML aliases (*name) are not supported");
  EXPECT_EQ(parseError("# c\n%inh\x9b\x8d" "alse.\n"),
            "cfg.yaml:2:1: unknown YAML directive '%inh\x9b\x8d" "alse.'");
  EXPECT_EQ(parseError("%YAML 1.2\n---\nweak_ref_functions: [a]\n"),
            "(parsed)");
  // An error at the end of the file still has a line and column.
  EXPECT_EQ(parseError("\r%YAML 1.2\n\r\n\n\n%"),
            "cfg.yaml:5:2: Unexpected token");
}

TEST(Catalog, BadNamesAreReportedWhereTheyAre) {
  EXPECT_EQ(parseError("weak_ref_functions:\n  - ok\n  - ''\n"),
            "cfg.yaml:3:5: empty name");
  EXPECT_EQ(parseError("blob_functions: ['::']\n"), "cfg.yaml:1:18: empty name");
  std::string Glob = parseError("stream_syncs: [ok, 'a[b']\n");
  EXPECT_EQ(Glob.rfind("cfg.yaml:1:20: bad pattern 'a[b': ", 0), 0u) << Glob;
  // Capture pairs are patterns too (NameSet compiles them).
  EXPECT_EQ(parseError("capture_pairs:\n  - {begin: x, end: ''}\n")
                .rfind("cfg.yaml:2:21: empty name", 0),
            0u);
}

TEST(Catalog, ErrorsQuotingTheFileStayOneLine) {
  EXPECT_EQ(parseError("\"a\\nb\": 1\n"), "cfg.yaml:1:1: unknown key 'a\\x0Ab'");
  EXPECT_EQ(parseError("weak_ref_functions: [\"a\\n[\"]\n")
                .find('\n'),
            std::string::npos);
}

TEST(CatalogProvider, BadCheckOptionsAreReportedNotDropped) {
  auto ErrorFor = [](const Catalog &Extra) {
    CatalogProvider Provider("", Extra);
    auto C = Provider.forFile("/nonexistent-tether-dir/a.cpp");
    return C ? std::string("(accepted)") : llvm::toString(C.takeError());
  };
  Catalog Glob;
  Catalog::appendList(Glob.WeakRefFunctions, "ok;a[b");
  EXPECT_EQ(ErrorFor(Glob).rfind("check option WeakRefFunctions: bad pattern "
                                 "'a[b': ",
                                 0),
            0u);
  Catalog Half;
  Catalog::appendPairs(Half.CapturePairs, "b=e;only_begin");
  EXPECT_EQ(ErrorFor(Half),
            "check option CapturePairs: 'only_begin=' is not a begin=end pair");
  Catalog Good;
  Catalog::appendPairs(Good.CapturePairs, "b=e");
  Catalog::appendList(Good.StreamSyncs, "my::sync*");
  EXPECT_EQ(ErrorFor(Good), "(accepted)");
}

TEST(CatalogProvider, NearestConfigWinsAndErrorsAreCached) {
  llvm::SmallString<128> Root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tether-cat", Root));
  llvm::SmallString<128> Sub(Root);
  llvm::sys::path::append(Sub, "pkg");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Sub));
  auto Write = [](llvm::StringRef Dir, llvm::StringRef Text) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, ".tether.yaml");
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Text;
  };
  Write(Root, "weak_ref_functions: [outer_fn]\n");
  Write(Sub, "weak_ref_functions: [inner_fn]\n");
  CatalogProvider Provider;
  llvm::SmallString<128> File(Sub);
  llvm::sys::path::append(File, "a.py");
  auto C = Provider.forFile(File);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_TRUE((*C)->WeakRefFunctions.matches("outer_fn"));
  EXPECT_TRUE((*C)->WeakRefFunctions.matches("inner_fn"));

  Write(Sub, "weak_ref_functions: [\n");
  CatalogProvider Fresh;
  auto Bad = Fresh.forFile(File);
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find(".tether.yaml:"), std::string::npos) << Msg;
  llvm::sys::fs::remove_directories(Root);
}

// Folders under the same configuration files share one compiled catalog
// (compiling it per folder was most of finding a package's catalogs);
// folders under other files, or under a malformed one, do not.
TEST(CatalogProvider, FoldersUnderTheSameConfigsShareOneCatalog) {
  llvm::SmallString<128> Root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tether-cat", Root));
  auto Path = [&](llvm::StringRef Rel) {
    llvm::SmallString<128> P(Root);
    llvm::sys::path::append(P, Rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    return std::string(P);
  };
  auto Write = [&](llvm::StringRef Rel, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path(Rel), EC);
    OS << Text;
  };
  Write(".tether.yaml", "weak_ref_functions: [outer_fn]\n");
  Write("b/.tether.yaml", "weak_ref_functions: [inner_fn]\n");
  Write("bad/.tether.yaml", "weak_ref_functions: [\n");
  CatalogProvider Provider;
  auto In = [&](llvm::StringRef Rel) { return Provider.forFile(Path(Rel)); };
  auto A1 = In("a/x.py"), A2 = In("a/deeper/y.py"), Top = In("z.py");
  auto B = In("b/x.py"), B2 = In("b/sub/y.py");
  ASSERT_TRUE(A1 && A2 && Top && B && B2);
  EXPECT_EQ(A1->get(), A2->get());
  EXPECT_EQ(A1->get(), Top->get());
  EXPECT_EQ(B->get(), B2->get());
  EXPECT_NE(A1->get(), B->get());
  EXPECT_TRUE((*A1)->WeakRefFunctions.matches("outer_fn"));
  EXPECT_FALSE((*A1)->WeakRefFunctions.matches("inner_fn"));
  EXPECT_TRUE((*B2)->WeakRefFunctions.matches("inner_fn"));
  // A malformed file is reported for every folder under it.
  for (const char *Rel : {"bad/x.py", "bad/sub/y.py"}) {
    auto Bad = In(Rel);
    ASSERT_FALSE(bool(Bad)) << Rel;
    EXPECT_NE(llvm::toString(Bad.takeError()).find("bad/.tether.yaml:"),
              std::string::npos);
  }
  llvm::sys::fs::remove_directories(Root);
}
