//===- EngineTest.cpp - The engine on IR built by hand ---------------------===//
//
// Each test builds the IR a frontend would lower a small design to, and
// checks what the engine reports (check, position, notes). No frontend is
// involved: these pin the reasoning itself.
//
//===----------------------------------------------------------------------===//
#include "common/Messages.h"
#include "engine/Builder.h"
#include "engine/Engine.h"

#include "gtest/gtest.h"
#include "llvm/Support/ThreadPool.h"
#include <random>
#include <string>

using namespace tether;
using namespace tether::engine;

namespace {

/// A program under construction, with short hands for the instructions.
struct Prog {
  Program P;
  Prog() { P.Files = {"t.py"}; }

  FnId fn(const std::string &Name) {
    P.Functions.emplace_back();
    P.Functions.back().Name = Name;
    P.Functions.back().QualName = "t." + Name;
    P.Functions.back().EndLoc = {0, 999, 1};
    return FnId(P.Functions.size() - 1);
  }
};

SrcLoc L(uint32_t Line, uint32_t Col = 1) { return SrcLoc{0, Line, Col}; }

struct B {
  FunctionBuilder FB;
  explicit B(Function &F) : FB(F) {}
  VarId read(const std::string &Global, SrcLoc At) {
    VarId V = FB.var();
    Inst &I = FB.emit(Op::Read, At);
    I.Dst = V;
    I.P.Kind = PlaceRef::Global;
    I.P.Name = Global;
    I.P.Spelling = Global.substr(Global.rfind('.') + 1);
    return V;
  }
  /// A read of a place below Base: a field (Field), else the slot of
  /// constant key Key ("" : a computed key).
  VarId readPlace(PlaceRef::KindT K, VarId Base, const std::string &NameOrKey,
                  SrcLoc At, const std::string &Sp, bool MayBeAbsent = false) {
    VarId V = FB.var();
    Inst &I = FB.emit(Op::Read, At);
    I.Dst = V;
    I.P.Kind = K;
    I.P.Base = Base;
    (K == PlaceRef::Field ? I.P.Name : I.P.Key) = NameOrKey;
    I.P.Spelling = Sp;
    I.MayBeAbsent = MayBeAbsent;
    return V;
  }
  VarId field(VarId Base, const std::string &Name, SrcLoc At,
              const std::string &Sp) {
    return readPlace(PlaceRef::Field, Base, Name, At, Sp);
  }
  VarId get(VarId Base, SrcLoc At, const std::string &Sp) {
    return readPlace(PlaceRef::Element, Base, "", At, Sp, true);
  }
  void storeElem(VarId Base, VarId Val, SrcLoc At, const std::string &Sp) {
    Inst &I = FB.emit(Op::Store, At);
    I.P.Kind = PlaceRef::Element;
    I.P.Base = Base;
    I.P.Spelling = Sp;
    I.A = Val;
  }
  /// Store into the slot of constant key Key, or into a field (Field).
  void storeAt(VarId Base, const std::string &Key, VarId Val, SrcLoc At,
               const std::string &Sp, bool Field = false) {
    Inst &I = FB.emit(Op::Store, At);
    I.P.Kind = Field ? PlaceRef::Field : PlaceRef::Element;
    I.P.Base = Base;
    (Field ? I.P.Name : I.P.Key) = Key;
    I.P.Spelling = Sp;
    I.A = Val;
  }
  VarId readAt(VarId Base, const std::string &Key, SrcLoc At,
               const std::string &Sp) {
    return readPlace(PlaceRef::Element, Base, Key, At, Sp);
  }
  /// A capture into Graph, begun at Begin and ended at End by the caller.
  void beginCapture(VarId Graph, SrcLoc At) {
    Inst &I = FB.emit(Op::RegionBegin, At);
    I.Region = RegionKind::Capture;
    I.A = Graph;
  }
  void endCapture(SrcLoc At) {
    FB.emit(Op::RegionEnd, At).Region = RegionKind::Capture;
  }
  void storeGlobal(const std::string &G, VarId Val, SrcLoc At) {
    Inst &I = FB.emit(Op::Store, At);
    I.P.Kind = PlaceRef::Global;
    I.P.Name = G;
    I.P.Spelling = G.substr(G.rfind('.') + 1);
    I.A = Val;
  }
  VarId alloc(AllocKind K, SrcLoc At, const std::string &Name = "",
              bool Sized = false) {
    VarId V = FB.var(Name);
    Inst &I = FB.emit(Op::Alloc, At);
    I.Dst = V;
    I.Alloc = K;
    I.SizedByCaller = Sized;
    I.Device = K == AllocKind::Tensor || K == AllocKind::Workspace;
    return V;
  }
  VarId weak(VarId Of, SrcLoc At, const std::string &Name = "") {
    VarId V = FB.var(Name);
    Inst &I = FB.emit(Op::WeakRef, At);
    I.Dst = V;
    I.A = Of;
    return V;
  }
  VarId call(FnId Callee, llvm::SmallVector<VarId, 0> Args, SrcLoc At,
             llvm::SmallVector<SrcLoc, 0> ArgLocs = {}) {
    VarId V = FB.var();
    Inst &I = FB.emit(Op::Call, At);
    I.Dst = V;
    I.Args = Args;
    I.ArgLocs = ArgLocs.empty() ? llvm::SmallVector<SrcLoc, 0>(Args.size(), At)
                                : ArgLocs;
    I.Targets.push_back(CallTarget{Callee, Args});
    return V;
  }
  void use(VarId V, SrcLoc At) {
    Inst &I = FB.emit(Op::Use, At);
    I.A = V;
  }
  VarId test(TestKind K, VarId Of, SrcLoc At) {
    VarId V = FB.var();
    Inst &I = FB.emit(Op::Test, At);
    I.Dst = V;
    I.Test = K;
    I.A = Of;
    return V;
  }
  void copy(VarId To, VarId From, SrcLoc At) {
    Inst &I = FB.emit(Op::Copy, At);
    I.Dst = To;
    I.A = From;
  }
  VarId null(SrcLoc At) {
    VarId V = FB.var();
    FB.emit(Op::Null, At).Dst = V;
    return V;
  }
};

std::string render(const std::vector<Finding> &Fs) {
  std::vector<Finding> Sorted = Fs;
  std::sort(Sorted.begin(), Sorted.end());
  std::string S;
  for (const Finding &F : Sorted) {
    S += std::to_string(F.Loc.Line) + ":" + std::to_string(F.Loc.Column) +
         " " + F.Check + "\n";
    for (const Note &N : F.Notes)
      S += "  " + std::to_string(N.Loc.Line) + ":" +
           std::to_string(N.Loc.Column) + " " + N.Message + "\n";
  }
  return S;
}

/// The vLLM Ascend fused-infer-attention path before #5522: the params come
/// from one of two getters (a join of two places), the workspace from the
/// cache or a fresh allocation (a join of a place and an allocation), and
/// a helper stores a weak reference of it into the cache.
/// The store helper of the path below: `workspaces[num_tokens] =
/// weak_ref_tensors(workspace)` at Line (or the workspace itself).
void storeHelper(Function &F, bool Weak, uint32_t Line) {
  std::string Name = F.Name, Qual = F.QualName;
  SrcLoc End = F.EndLoc;
  F = Function();
  F.Name = Name;
  F.QualName = Qual;
  F.EndLoc = End;
  B Bd(F);
  Bd.FB.param("num_tokens");
  VarId W = Bd.FB.param("workspace");
  VarId GP = Bd.read("acl._graph_params", L(Line, 9));
  VarId WS = Bd.field(GP, "workspaces", L(Line, 9), "_graph_params.workspaces");
  VarId Stored = Weak ? Bd.weak(W, L(Line, 48)) : W;
  Bd.storeElem(WS, Stored, L(Line, 9), "_graph_params.workspaces");
  Bd.FB.finish();
}

/// Builds the program into Pr; returns the store helper.
FnId fusedInferAttention(Prog &Pr) {
  FnId GetMain = Pr.fn("get_graph_params"), GetDraft = Pr.fn("get_draft_graph_params");
  for (auto [F, G] : {std::pair{GetMain, "acl._graph_params"},
                      std::pair{GetDraft, "acl._draft_graph_params"}}) {
    B Bd(Pr.P.Functions[F]);
    VarId V = Bd.read(G, L(1));
    Bd.FB.ret(V, L(1));
    Bd.FB.finish();
  }
  FnId Update = Pr.fn("update_graph_params_workspaces");
  storeHelper(Pr.P.Functions[Update], true, 526);
  FnId Fia = Pr.fn("full_graph_fia");
  {
    Function &F = Pr.P.Functions[Fia];
    B Bd(F);
    VarId Draft = Bd.FB.param("draft");
    VarId N = Bd.FB.param("num_tokens");
    VarId GP = Bd.FB.var("graph_params");
    uint32_t IfDraft = Bd.FB.block(), Else = Bd.FB.block(), Join = Bd.FB.block();
    Bd.FB.branch(Draft, IfDraft, Else, L(348));
    Bd.FB.setBlock(IfDraft);
    Bd.copy(GP, Bd.call(GetDraft, {}, L(349, 28)), L(349, 13));
    Bd.FB.jump(Join);
    Bd.FB.setBlock(Else);
    Bd.copy(GP, Bd.call(GetMain, {}, L(351, 28)), L(351, 13));
    Bd.FB.jump(Join);
    Bd.FB.setBlock(Join);
    VarId WS = Bd.field(GP, "workspaces", L(357, 21), "graph_params.workspaces");
    VarId W = Bd.FB.var("workspace");
    Bd.copy(W, Bd.get(WS, L(357, 21), "graph_params.workspaces"), L(357, 9));
    VarId IsNone = Bd.test(TestKind::IsNull, W, L(359, 12));
    uint32_t Fill = Bd.FB.block(), Run = Bd.FB.block();
    Bd.FB.branch(IsNone, Fill, Run, L(359, 12));
    Bd.FB.setBlock(Fill);
    Bd.copy(W, Bd.alloc(AllocKind::Workspace, L(360, 25)), L(360, 13));
    Bd.call(Update, {N, W}, L(378, 17), {L(378, 48), L(378, 60)});
    Bd.FB.jump(Run);
    Bd.FB.setBlock(Run);
    Bd.use(W, L(410, 23));
    Bd.FB.ret(NoVar, L(418, 9));
    Bd.FB.finish();
  }
  FnId Fwd = Pr.fn("forward_fused_infer_attention");
  {
    B Bd(Pr.P.Functions[Fwd]);
    VarId Ctx = Bd.FB.param("ctx");
    VarId D = Bd.FB.param("draft");
    VarId N = Bd.FB.param("n");
    VarId Cap = Bd.test(TestKind::CapturePredicate, Ctx, L(555, 12));
    uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
    Bd.FB.branch(Cap, In, Out, L(555, 12));
    Bd.FB.setBlock(In);
    Bd.call(Fia, {D, N}, L(556, 38));
    Bd.FB.ret(NoVar, L(559, 13));
    Bd.FB.setBlock(Out);
    Bd.FB.finish();
  }
  return Update;
}

TEST(EngineTest, JoinKeepsBothCachesAndTheAllocation) {
  Prog Pr;
  fusedInferAttention(Pr);
  EXPECT_EQ(render(analyze(Pr.P)),
            "378:17 tether-weak-ref-before-capture-end\n"
            "  555:12 capture begins here\n"
            "  556:38 'full_graph_fia' runs inside the capture through this call\n"
            "  526:9 the weak reference is stored in '_graph_params.workspaces', "
            "read by other code during the capture\n"
            "  418:9 the last strong reference to the memory dies here\n"
            "  410:23 the weak reference is used by a later operation of the "
            "same capture here\n");
}

/// The memory is also stored strongly in a long-lived place: no finding.
TEST(EngineTest, StrongHolderOutsideTheFunctionIsSafe) {
  Prog Pr;
  FnId F = Pr.fn("layer");
  {
    B Bd(Pr.P.Functions[F]);
    VarId Ctx = Bd.FB.param("ctx");
    VarId Cap = Bd.test(TestKind::CapturePredicate, Ctx, L(2, 8));
    uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
    Bd.FB.branch(Cap, In, Out, L(2, 8));
    Bd.FB.setBlock(In);
    VarId Ws = Bd.alloc(AllocKind::Tensor, L(3, 18), "ws");
    Bd.storeGlobal("t._KEEP", Ws, L(4, 9));
    VarId Cache = Bd.read("t._WS", L(5, 9));
    Bd.storeElem(Cache, Bd.weak(Ws, L(5, 26)), L(5, 9), "_WS");
    Bd.use(Bd.get(Cache, L(6, 30), "_WS"), L(6, 30));
    Bd.FB.ret(NoVar, L(7, 9));
    Bd.FB.setBlock(Out);
    Bd.FB.finish();
  }
  EXPECT_EQ(render(analyze(Pr.P)), "");
}

/// A local container that holds the memory (`op(q, [ws])`) dies at the
/// return with every other local: it keeps nothing, and the memory dies
/// there. The same container returned to the caller keeps it.
static void heldByALocalList(Prog &Pr, bool Returned) {
  FnId F = Pr.fn("layer");
  B Bd(Pr.P.Functions[F]);
  VarId Ctx = Bd.FB.param("ctx");
  VarId Cap = Bd.test(TestKind::CapturePredicate, Ctx, L(2, 8));
  uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
  Bd.FB.branch(Cap, In, Out, L(2, 8));
  Bd.FB.setBlock(In);
  VarId Ws = Bd.alloc(AllocKind::Tensor, L(3, 14), "ws");
  VarId Cache = Bd.read("t._WS", L(4, 9));
  Bd.storeElem(Cache, Bd.weak(Ws, L(4, 18)), L(4, 9), "_WS");
  VarId List = Bd.alloc(AllocKind::Container, L(5, 30));
  Bd.storeElem(List, Ws, L(5, 31), "");
  Bd.use(List, L(5, 30));
  Bd.use(Bd.get(Cache, L(6, 30), "_WS"), L(6, 30));
  Bd.FB.ret(Returned ? List : NoVar, L(7, 5));
  Bd.FB.setBlock(Out);
  Bd.FB.finish();
}

TEST(EngineTest, LocalContainerDiesWithItsContents) {
  Prog Pr;
  heldByALocalList(Pr, /*Returned=*/false);
  EXPECT_EQ(render(analyze(Pr.P)),
            "4:18 tether-weak-ref-before-capture-end\n"
            "  2:8 capture begins here\n"
            "  4:9 the weak reference is stored in '_WS', read by other code "
            "during the capture\n"
            "  7:5 the last strong reference to the memory dies here\n"
            "  6:30 the weak reference is used by a later operation of the "
            "same capture here\n");
  Prog Kept;
  heldByALocalList(Kept, /*Returned=*/true);
  EXPECT_EQ(render(analyze(Kept.P)), "");
}

/// A helper that converts a tensor and hands anything else back unchanged
/// (isinstance(t, torch.Tensor) on the way) converts the tensor it is given:
/// its pass-through path takes nothing from a tensor. The same helper with
/// a flag it cannot read may hand the tensor back, and the store keeps it.
static void weakOrPassThrough(Prog &Pr, bool TypeTest) {
  FnId Helper = Pr.fn("to_weak");
  {
    B Bd(Pr.P.Functions[Helper]);
    VarId T = Bd.FB.param("tensor");
    VarId Flag = Bd.FB.param("on");
    VarId Is = TypeTest ? Bd.test(TestKind::IsTensor, T, L(2, 8)) : Flag;
    uint32_t Conv = Bd.FB.block(), Pass = Bd.FB.block();
    Bd.FB.branch(Is, Conv, Pass, L(2, 8));
    Bd.FB.setBlock(Conv);
    Bd.FB.ret(Bd.weak(T, L(3, 16)), L(3, 9));
    Bd.FB.setBlock(Pass);
    Bd.FB.ret(T, L(4, 5));
    Bd.FB.finish();
  }
  FnId F = Pr.fn("layer");
  {
    B Bd(Pr.P.Functions[F]);
    VarId Ctx = Bd.FB.param("ctx");
    VarId Cap = Bd.test(TestKind::CapturePredicate, Ctx, L(7, 8));
    uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
    Bd.FB.branch(Cap, In, Out, L(7, 8));
    Bd.FB.setBlock(In);
    VarId Ws = Bd.alloc(AllocKind::Tensor, L(8, 14), "ws");
    VarId Cache = Bd.read("t._WS", L(9, 9));
    Bd.storeElem(Cache, Bd.call(Helper, {Ws, Ctx}, L(9, 19)), L(9, 9), "_WS");
    Bd.use(Bd.get(Cache, L(10, 30), "_WS"), L(10, 30));
    Bd.FB.ret(NoVar, L(11, 9));
    Bd.FB.setBlock(Out);
    Bd.FB.finish();
  }
}

TEST(EngineTest, PassThroughOfNonTensorsIsNoStrongReference) {
  Prog Pr;
  weakOrPassThrough(Pr, /*TypeTest=*/true);
  EXPECT_EQ(render(analyze(Pr.P)),
            "9:19 tether-weak-ref-before-capture-end\n"
            "  7:8 capture begins here\n"
            "  9:9 the weak reference is stored in '_WS', read by other code "
            "during the capture\n"
            "  11:9 the last strong reference to the memory dies here\n"
            "  10:30 the weak reference is used by a later operation of the "
            "same capture here\n");
  Prog Flagged;
  weakOrPassThrough(Flagged, /*TypeTest=*/false);
  EXPECT_EQ(render(analyze(Flagged.P)), "");
}

/// Nested conversions are reported; two primitives through a local are not;
/// a weak reference passed to a helper that converts its parameter is.
TEST(EngineTest, DoubleConversions) {
  Prog Pr;
  FnId Helper = Pr.fn("update_workspaces");
  {
    B Bd(Pr.P.Functions[Helper]);
    VarId W = Bd.FB.param("workspace");
    VarId G = Bd.read("t._WS", L(2, 5));
    Bd.storeElem(G, Bd.weak(W, L(2, 31)), L(2, 5), "_WS");
    Bd.FB.finish();
  }
  FnId Nested = Pr.fn("nested");
  {
    B Bd(Pr.P.Functions[Nested]);
    VarId X = Bd.FB.param("x");
    Bd.FB.ret(Bd.weak(Bd.weak(X, L(5, 29)), L(5, 12)), L(5, 5));
    Bd.FB.finish();
  }
  FnId Local = Pr.fn("through_local");
  {
    B Bd(Pr.P.Functions[Local]);
    VarId X = Bd.FB.param("x");
    VarId W = Bd.weak(X, L(8, 9), "w");
    Bd.FB.ret(Bd.weak(W, L(9, 12)), L(9, 5));
    Bd.FB.finish();
  }
  FnId Passed = Pr.fn("paged_attention");
  {
    B Bd(Pr.P.Functions[Passed]);
    VarId X = Bd.FB.param("workspace");
    VarId W = Bd.weak(X, L(12, 35));
    Bd.call(Helper, {W}, L(12, 5), {L(12, 35)});
    Bd.FB.finish();
  }
  EXPECT_EQ(render(analyze(Pr.P)),
            "5:12 tether-double-weak-ref\n"
            "  5:29 first weak reference made here\n"
            "12:5 tether-double-weak-ref\n"
            "  12:35 first weak reference made here\n"
            "  12:35 the weak reference is passed to 'update_workspaces' here\n"
            "  2:31 'update_workspaces' converts its parameter 'workspace' to a "
            "weak reference here\n");
}

/// A local None on one path reaches the conversion; a guard removes it.
TEST(EngineTest, MaybeNullThroughAJoinAndAGuard) {
  Prog Pr;
  FnId F = Pr.fn("maybe_local");
  {
    B Bd(Pr.P.Functions[F]);
    VarId Flag = Bd.FB.param("flag");
    VarId T = Bd.FB.param("t");
    VarId X = Bd.FB.var("x");
    Bd.copy(X, Bd.null(L(2, 9)), L(2, 5));
    uint32_t Then = Bd.FB.block(), Join = Bd.FB.block();
    Bd.FB.branch(Flag, Then, Join, L(3, 8));
    Bd.FB.setBlock(Then);
    Bd.copy(X, T, L(4, 9));
    Bd.FB.jump(Join);
    Bd.FB.setBlock(Join);
    Bd.weak(X, L(5, 12));
    VarId IsNone = Bd.test(TestKind::IsNull, X, L(6, 8));
    uint32_t Skip = Bd.FB.block(), Conv = Bd.FB.block();
    Bd.FB.branch(IsNone, Skip, Conv, L(6, 8));
    Bd.FB.setBlock(Conv);
    Bd.weak(X, L(7, 12));
    Bd.FB.setBlock(Skip);
    Bd.FB.finish();
  }
  EXPECT_EQ(render(analyze(Pr.P)),
            "5:12 tether-weak-ref-of-maybe-null\n"
            "  2:9 the value may be empty because of this\n");
}

/// A shared workspace replaced in capture while another layer reads it;
/// filled only when empty, it is not reported.
TEST(EngineTest, WorkspaceReplacedButNotFirstFilled) {
  Prog Pr;
  Options O;
  O.IsWorkspaceName = [](uint32_t, llvm::StringRef N) {
    return N.lower().find("workspace") != std::string::npos;
  };
  for (bool Guarded : {false, true}) {
    FnId F = Pr.fn(Guarded ? "first_fill" : "replace");
    uint32_t Base = Guarded ? 100 : 0;
    B Bd(Pr.P.Functions[F]);
    VarId Ctx = Bd.FB.param("ctx");
    VarId Cap = Bd.test(TestKind::CapturePredicate, Ctx, L(Base + 1, 8));
    uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
    Bd.FB.branch(Cap, In, Out, L(Base + 1, 8));
    Bd.FB.setBlock(In);
    std::string G = Guarded ? "t._FILLED_WORKSPACES" : "t._WORKSPACES";
    VarId Cache = Bd.read(G, L(Base + 2, 9));
    VarId Ws = Bd.FB.var("ws");
    Bd.copy(Ws, Bd.get(Cache, L(Base + 2, 14), G.substr(2)), L(Base + 2, 9));
    uint32_t Fill = Bd.FB.block(), Run = Bd.FB.block();
    if (Guarded) {
      VarId IsNone = Bd.test(TestKind::IsNull, Ws, L(Base + 3, 12));
      Bd.FB.branch(IsNone, Fill, Run, L(Base + 3, 12));
    } else {
      Bd.FB.jump(Fill);
    }
    Bd.FB.setBlock(Fill);
    Bd.copy(Ws, Bd.alloc(AllocKind::Tensor, L(Base + 4, 18)), L(Base + 4, 13));
    Bd.storeElem(Cache, Ws, L(Base + 5, 13), G.substr(2));
    Bd.FB.jump(Run);
    Bd.FB.setBlock(Run);
    Bd.use(Bd.get(Cache, L(Base + 6, 29), G.substr(2)), L(Base + 6, 29));
    Bd.FB.ret(NoVar, L(Base + 7, 9));
    Bd.FB.setBlock(Out);
    Bd.FB.finish();
  }
  EXPECT_EQ(render(analyze(Pr.P, O)),
            "5:13 tether-workspace-shared-across-layers\n"
            "  1:8 capture begins here\n"
            "  6:29 an earlier layer reads the slot and hands the workspace to "
            "a captured task here\n");
}

/// What a layer made while the slot was empty, stored later through a flag
/// (`if ws is None: ws = make(); fill = True` ... `if fill: d[k] = ws`), and
/// the slot's own workspace stored back, only fill the slot; memory made
/// while the slot may hold a workspace replaces it.
TEST(EngineTest, FillsThroughAFlagAndWriteBacksAreNoReplacement) {
  Prog Pr;
  Options O;
  O.IsWorkspaceName = [](uint32_t, llvm::StringRef N) {
    return N.lower().find("workspace") != std::string::npos;
  };
  enum Shape { Flag, Resize, WriteBack };
  for (Shape Sh : {Flag, Resize, WriteBack}) {
    FnId F = Pr.fn(Sh == Flag ? "flag" : Sh == Resize ? "resize" : "back");
    uint32_t Base = 100 * uint32_t(Sh);
    B Bd(Pr.P.Functions[F]);
    VarId Ctx = Bd.FB.param("ctx");
    VarId Update = Bd.FB.param("update"); // a flag: no truth the engine knows
    VarId Cap = Bd.test(TestKind::CapturePredicate, Ctx, L(Base + 1, 8));
    uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
    Bd.FB.branch(Cap, In, Out, L(Base + 1, 8));
    Bd.FB.setBlock(In);
    std::string G = "t._WORKSPACES_" + std::to_string(Base);
    VarId Cache = Bd.read(G, L(Base + 2, 9));
    VarId Ws = Bd.FB.var("ws");
    Bd.copy(Ws, Bd.get(Cache, L(Base + 2, 14), "ws"), L(Base + 2, 9));
    uint32_t Make = Bd.FB.block(), Later = Bd.FB.block();
    uint32_t Store = Bd.FB.block(), Run = Bd.FB.block();
    if (Sh == Resize) { // `if ws is None or ws.numel() < need`: may be held
      Bd.FB.branch(Update, Make, Later, L(Base + 3, 12));
    } else {
      VarId IsNone = Bd.test(TestKind::IsNull, Ws, L(Base + 3, 12));
      Bd.FB.branch(IsNone, Make, Later, L(Base + 3, 12));
    }
    Bd.FB.setBlock(Make);
    VarId New = Bd.alloc(AllocKind::Tensor, L(Base + 4, 18));
    if (Sh == WriteBack) {
      Bd.storeElem(Cache, New, L(Base + 4, 13), "ws");
      Bd.copy(Ws, Bd.get(Cache, L(Base + 5, 14), "ws"), L(Base + 5, 9));
    } else {
      Bd.copy(Ws, New, L(Base + 4, 13));
    }
    Bd.FB.jump(Later);
    Bd.FB.setBlock(Later);
    if (Sh == WriteBack) // the slot's own workspace, stored back
      Bd.copy(Ws, Bd.get(Cache, L(Base + 6, 14), "ws"), L(Base + 6, 9));
    Bd.FB.branch(Update, Store, Run, L(Base + 7, 12));
    Bd.FB.setBlock(Store);
    Bd.storeElem(Cache, Ws, L(Base + 8, 13), "ws");
    Bd.FB.jump(Run);
    Bd.FB.setBlock(Run);
    Bd.use(Ws, L(Base + 9, 29));
    Bd.FB.ret(NoVar, L(Base + 10, 9));
    Bd.FB.setBlock(Out);
    Bd.FB.finish();
  }
  EXPECT_EQ(render(analyze(Pr.P, O)),
            "108:13 tether-workspace-shared-across-layers\n"
            "  101:8 capture begins here\n"
            "  109:29 an earlier layer reads the slot and hands the workspace "
            "to a captured task here\n");
}

/// A predicate wrapper is inferred from its body: code it guards is in
/// capture, and a negated wrapper keeps the other branch outside.
TEST(EngineTest, PredicateWrapperOpensTheCapture) {
  Prog Pr;
  FnId Wrap = Pr.fn("_is_capturing");
  {
    B Bd(Pr.P.Functions[Wrap]);
    VarId T = Bd.test(TestKind::CapturePredicate, NoVar, L(1, 12));
    Bd.FB.ret(T, L(1, 5));
    Bd.FB.finish();
  }
  FnId F = Pr.fn("rebind");
  {
    B Bd(Pr.P.Functions[F]);
    VarId X = Bd.FB.param("x");
    VarId C = Bd.call(Wrap, {}, L(3, 8));
    uint32_t In = Bd.FB.block(), Out = Bd.FB.block();
    Bd.FB.branch(C, In, Out, L(3, 8));
    Bd.FB.setBlock(In);
    VarId Out1 = Bd.FB.var("out");
    Bd.copy(Out1, Bd.alloc(AllocKind::Tensor, L(4, 15)), L(4, 9));
    Bd.copy(Out1, Bd.weak(Out1, L(5, 15)), L(5, 9));
    Bd.use(Out1, L(6, 24));
    Bd.FB.setBlock(Out);
    Bd.FB.finish();
    (void)X;
  }
  EXPECT_EQ(render(analyze(Pr.P)),
            "5:15 tether-weak-ref-before-capture-end\n"
            "  3:8 capture begins here\n"
            "  5:9 the last strong reference to the memory dies here\n"
            "  6:24 the weak reference is used by a later operation of the "
            "same capture here\n");
}

} // namespace

/// The only holder of the memory is a global: overwriting it while a weak
/// alias is stored lets the memory die (the overwrite is the death); the
/// same overwrite after the capture is not reported.
TEST(EngineTest, OverwrittenHolderIsTheDeath) {
  for (bool AfterCapture : {false, true}) {
    Prog Pr;
    FnId R = Pr.fn("read_cache");
    {
      B Bd(Pr.P.Functions[R]);
      VarId Cache = Bd.read("t._CACHE", L(2, 5));
      Inst &I = Bd.FB.emit(Op::Read, L(2, 20));
      I.Dst = Bd.FB.var();
      I.P.Kind = PlaceRef::Element;
      I.P.Base = Cache;
      I.P.Key = "0";
      I.P.Spelling = "_CACHE";
      Bd.use(I.Dst, L(2, 20));
      Bd.FB.finish();
    }
    FnId F = Pr.fn("capture");
    {
      B Bd(Pr.P.Functions[F]);
      Bd.storeGlobal("t._WS", Bd.alloc(AllocKind::Tensor, L(4, 10)), L(4, 5));
      Bd.FB.emit(Op::RegionBegin, L(5, 5)).Region = RegionKind::Capture;
      VarId Cache = Bd.read("t._CACHE", L(6, 5));
      VarId W = Bd.weak(Bd.read("t._WS", L(6, 30)), L(6, 20));
      Inst &S = Bd.FB.emit(Op::Store, L(6, 5));
      S.P.Kind = PlaceRef::Element;
      S.P.Base = Cache;
      S.P.Key = "0";
      S.P.Spelling = "_CACHE";
      S.A = W;
      if (AfterCapture)
        Bd.FB.emit(Op::RegionEnd, L(7, 5)).Region = RegionKind::Capture;
      Bd.storeGlobal("t._WS", Bd.alloc(AllocKind::Tensor, L(8, 10)), L(8, 5));
      Bd.call(R, {}, L(9, 5));
      if (!AfterCapture)
        Bd.FB.emit(Op::RegionEnd, L(10, 5)).Region = RegionKind::Capture;
      Bd.FB.finish();
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              AfterCapture ? ""
                           : "6:20 tether-weak-ref-before-capture-end\n"
                             "  5:5 capture begins here\n"
                             "  6:5 the weak reference is stored in '_CACHE', "
                             "read by other code during the capture\n"
                             "  8:5 the last strong reference to the memory "
                             "dies here\n"
                             "  2:20 the weak reference is used by a later "
                             "operation of the same capture here\n"
                             "  10:5 capture ends here\n")
        << (AfterCapture ? "after" : "inside");
  }
}

/// A helper that opens a capture (line 30) and one that closes it (line
/// 40), as `begin()` / `end()` methods or a context manager's halves.
static std::pair<FnId, FnId> captureHelpers(Prog &Pr) {
  FnId Begin = Pr.fn("begin"), End = Pr.fn("end");
  {
    B Bd(Pr.P.Functions[Begin]);
    Bd.FB.emit(Op::RegionBegin, L(30, 9)).Region = RegionKind::Capture;
    Bd.FB.finish();
  }
  {
    B Bd(Pr.P.Functions[End]);
    Bd.FB.emit(Op::RegionEnd, L(40, 9)).Region = RegionKind::Capture;
    Bd.FB.finish();
  }
  return {Begin, End};
}

/// A capture opened and closed by callees (a `begin()` / `end()` helper, a
/// context manager's `__enter__` / `__exit__`): the caller is inside it
/// between the two calls (Summary::Exit), as if it had opened it itself.
TEST(EngineTest, HelpersOpenAndCloseTheCallersCapture) {
  for (bool AfterCapture : {false, true}) {
    Prog Pr;
    FnId R = Pr.fn("read_cache");
    {
      B Bd(Pr.P.Functions[R]);
      VarId Cache = Bd.read("t._CACHE", L(2, 5));
      Inst &I = Bd.FB.emit(Op::Read, L(2, 20));
      I.Dst = Bd.FB.var();
      I.P.Kind = PlaceRef::Element;
      I.P.Base = Cache;
      I.P.Key = "0";
      I.P.Spelling = "_CACHE";
      Bd.use(I.Dst, L(2, 20));
      Bd.FB.finish();
    }
    auto [Begin, End] = captureHelpers(Pr);
    FnId F = Pr.fn("capture");
    {
      B Bd(Pr.P.Functions[F]);
      Bd.storeGlobal("t._WS", Bd.alloc(AllocKind::Tensor, L(4, 10)), L(4, 5));
      Bd.call(Begin, {}, L(5, 5));
      VarId Cache = Bd.read("t._CACHE", L(6, 5));
      VarId W = Bd.weak(Bd.read("t._WS", L(6, 30)), L(6, 20));
      Inst &S = Bd.FB.emit(Op::Store, L(6, 5));
      S.P.Kind = PlaceRef::Element;
      S.P.Base = Cache;
      S.P.Key = "0";
      S.P.Spelling = "_CACHE";
      S.A = W;
      if (AfterCapture)
        Bd.call(End, {}, L(7, 5));
      Bd.storeGlobal("t._WS", Bd.alloc(AllocKind::Tensor, L(8, 10)), L(8, 5));
      Bd.call(R, {}, L(9, 5));
      if (!AfterCapture)
        Bd.call(End, {}, L(10, 5));
      Bd.FB.finish();
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              AfterCapture ? ""
                           : "6:20 tether-weak-ref-before-capture-end\n"
                             "  30:9 capture begins here\n"
                             "  6:5 the weak reference is stored in '_CACHE', "
                             "read by other code during the capture\n"
                             "  8:5 the last strong reference to the memory "
                             "dies here\n"
                             "  2:20 the weak reference is used by a later "
                             "operation of the same capture here\n"
                             "  40:9 capture ends here\n")
        << (AfterCapture ? "after" : "inside");
  }
}

/// A slot filled under a computed key says nothing of the slots a loop
/// reads in turn: some may still hold the None a reservation stored.
TEST(EngineTest, IterationSeesEverySlot) {
  for (bool Each : {true, false}) {
    Prog Pr;
    FnId Rv = Pr.fn("reserve");
    {
      B Bd(Pr.P.Functions[Rv]);
      VarId K = Bd.FB.param("k");
      (void)K;
      Bd.storeElem(Bd.read("t._P", L(2, 5)), Bd.null(L(2, 20)), L(2, 5), "_P");
      Bd.FB.finish();
    }
    FnId F = Pr.fn("weaken");
    {
      B Bd(Pr.P.Functions[F]);
      VarId T = Bd.FB.param("t");
      VarId P = Bd.read("t._P", L(4, 5));
      Bd.storeElem(P, T, L(4, 5), "_P");
      VarId V = Bd.FB.var("v");
      Inst &I = Bd.FB.emit(Op::Read, L(5, 9));
      I.Dst = V;
      I.P.Kind = PlaceRef::Element;
      I.P.Base = P;
      I.P.EverySlot = Each;
      I.P.Spelling = "_P";
      Bd.weak(V, L(6, 9));
      Bd.FB.finish();
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              Each ? "6:9 tether-weak-ref-of-maybe-null\n"
                     "  2:20 the value may be empty because of this\n"
                   : "")
        << (Each ? "loop" : "keyed read after the keyed fill");
  }
}

/// A first fill sized by the caller is one layer's size, unless the slot is
/// keyed by the layer.
TEST(EngineTest, SlotKeyedByTheLayerIsNotShared) {
  for (bool PerLayer : {false, true}) {
    Prog Pr;
    FnId A = Pr.fn("attn");
    {
      B Bd(Pr.P.Functions[A]);
      VarId Need = Bd.FB.param("need");
      (void)Need;
      VarId Ws = Bd.read("t._workspaces", L(2, 5));
      Inst &T = Bd.FB.emit(Op::Test, L(2, 8));
      VarId Empty = Bd.FB.var();
      T.Dst = Empty;
      T.Test = TestKind::PlaceEmpty;
      T.P.Kind = PlaceRef::Element;
      T.P.Base = Ws;
      T.P.Spelling = "_WS";
      uint32_t Fill = Bd.FB.block(), Use = Bd.FB.block();
      Bd.FB.branch(Empty, Fill, Use, L(2, 8));
      Bd.FB.setBlock(Fill);
      VarId New = Bd.alloc(AllocKind::Workspace, L(3, 30), "", true);
      Inst &S = Bd.FB.emit(Op::Store, L(3, 9));
      S.P.Kind = PlaceRef::Element;
      S.P.Base = Ws;
      S.P.Spelling = "_WS";
      S.P.KeyPerLayer = PerLayer;
      S.A = New;
      Bd.FB.jump(Use);
      Bd.FB.setBlock(Use);
      Bd.use(Bd.get(Ws, L(4, 20), "_WS"), L(4, 20));
      Bd.FB.finish();
    }
    FnId C = Pr.fn("capture");
    {
      B Bd(Pr.P.Functions[C]);
      Bd.FB.emit(Op::RegionBegin, L(6, 5)).Region = RegionKind::Capture;
      VarId N = Bd.FB.var();
      Bd.FB.emit(Op::Const, L(7, 10)).Dst = N;
      Bd.call(A, {N}, L(7, 5));
      Bd.FB.emit(Op::RegionEnd, L(8, 5)).Region = RegionKind::Capture;
      Bd.FB.finish();
    }
    std::string Out = render(analyze(Pr.P));
    if (PerLayer)
      EXPECT_EQ(Out, "");
    else
      EXPECT_NE(Out.find("3:9 tether-workspace-shared-across-layers"),
                std::string::npos)
          << Out;
  }
}

/// A workspace allocated for a task update and bound into the updated task
/// dies at the return; kept in a global, it does not.
TEST(EngineTest, TaskUpdateBindsWhatItUses) {
  for (bool Kept : {false, true}) {
    Prog Pr;
    FnId F = Pr.fn("update");
    {
      B Bd(Pr.P.Functions[F]);
      VarId Ws = Bd.alloc(AllocKind::Workspace, L(2, 10), "ws");
      if (Kept)
        Bd.storeGlobal("t._KEEP", Ws, L(3, 5));
      Bd.FB.emit(Op::RegionBegin, L(4, 5)).Region = RegionKind::TaskUpdate;
      Bd.use(Ws, L(5, 20));
      Bd.FB.emit(Op::RegionEnd, L(6, 5)).Region = RegionKind::TaskUpdate;
      Bd.FB.ret(NoVar, L(7, 1));
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              Kept ? ""
                   : "5:20 tether-graph-memory-dies-before-replay\n"
                     "  4:5 task update begins here\n"
                     "  6:5 task update ends here\n"
                     "  7:1 the last strong reference to the memory dies here\n")
        << (Kept ? "kept" : "local");
  }
}

/// Raw memory (Inst::Manual) bound into an updated task dies where it is
/// freed, not where its pointer goes: reported when no graph is destroyed
/// between the free and the return (here or in a callee); silent when it
/// is never freed (a leak), or freed after a destroy.
TEST(EngineTest, RawMemoryDiesWhereItIsFreed) {
  enum Shape { Freed, Leaked, DestroyedFirst, DestroyedByCallee };
  for (Shape Sh : {Freed, Leaked, DestroyedFirst, DestroyedByCallee}) {
    Prog Pr;
    FnId Teardown = Pr.fn("teardown");
    {
      B Bd(Pr.P.Functions[Teardown]);
      Bd.FB.emit(Op::GraphDestroy, L(20, 5));
      Bd.FB.ret(NoVar, L(21, 1));
    }
    FnId F = Pr.fn("update");
    {
      B Bd(Pr.P.Functions[F]);
      VarId Ws = Bd.FB.var("ws");
      Inst &A = Bd.FB.emit(Op::Alloc, L(2, 10));
      A.Dst = Ws;
      A.Device = true;
      A.Manual = true;
      Bd.FB.emit(Op::RegionBegin, L(4, 5)).Region = RegionKind::TaskUpdate;
      Bd.use(Ws, L(5, 20));
      Bd.FB.emit(Op::RegionEnd, L(6, 5)).Region = RegionKind::TaskUpdate;
      if (Sh == DestroyedFirst)
        Bd.FB.emit(Op::GraphDestroy, L(7, 5));
      if (Sh == DestroyedByCallee)
        Bd.call(Teardown, {}, L(7, 5));
      if (Sh != Leaked)
        Bd.FB.emit(Op::Free, L(8, 5)).A = Ws;
      Bd.FB.ret(NoVar, L(9, 1));
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              Sh != Freed
                  ? ""
                  : "5:20 tether-graph-memory-dies-before-replay\n"
                    "  4:5 task update begins here\n"
                    "  6:5 task update ends here\n"
                    "  8:5 the memory is freed here, while the graph can "
                    "still be replayed\n")
        << int(Sh);
  }
}

/// An op that allocates its own workspace, called (through a layer) inside
/// a task update: the workspace dies at the op's return while the updated
/// task keeps it. Reported at the layer's call in the update, not when the
/// op keeps the workspace in a place, is called outside any update, or
/// inside its caller's capture (the graph's pool).
TEST(EngineTest, OpsBindTheirOwnMemoryInTheCallersUpdate) {
  enum Caller { Update, Eager, Capture };
  for (bool Kept : {false, true})
    for (Caller C : {Update, Eager, Capture}) {
      Prog Pr;
      FnId Op = Pr.fn("op");
      {
        B Bd(Pr.P.Functions[Op]);
        VarId Ws = Bd.alloc(AllocKind::Tensor, L(2, 10), "ws");
        if (Kept)
          Bd.storeGlobal("t._OP_WS", Ws, L(3, 5));
        Bd.use(Ws, L(4, 20));
        Bd.FB.ret(NoVar, L(5, 1));
      }
      FnId Layer = Pr.fn("layer");
      {
        B Bd(Pr.P.Functions[Layer]);
        Bd.call(Op, {}, L(10, 5));
        Bd.FB.ret(NoVar, L(11, 1));
      }
      FnId F = Pr.fn("update");
      {
        B Bd(Pr.P.Functions[F]);
        RegionKind K =
            C == Capture ? RegionKind::Capture : RegionKind::TaskUpdate;
        if (C != Eager)
          Bd.FB.emit(Op::RegionBegin, L(20, 5)).Region = K;
        Bd.call(Layer, {}, L(21, 5));
        if (C != Eager)
          Bd.FB.emit(Op::RegionEnd, L(22, 5)).Region = K;
        Bd.FB.ret(NoVar, L(23, 1));
      }
      EXPECT_EQ(render(analyze(Pr.P)),
                Kept || C != Update
                    ? ""
                    : "21:5 tether-graph-memory-dies-before-replay\n"
                      "  20:5 task update begins here\n"
                      "  4:20 the memory is bound into the updated task here\n"
                      "  22:5 task update ends here\n"
                      "  5:1 the last strong reference to the memory dies "
                      "here\n")
          << (Kept ? "kept " : "local ") << int(C);
    }
}

/// A raw address (`args.workspace = ws.data_ptr()`) owns nothing: the
/// object of arguments a task is handed hands it the memory, which must be
/// held strongly elsewhere. Stored during a capture, an address is no weak
/// reference: the weak-ref checks do not judge it.
TEST(EngineTest, RawAddressHandsTheMemoryAndOwnsNothing) {
  for (bool Kept : {false, true}) {
    Prog Pr;
    FnId F = Pr.fn("update");
    {
      B Bd(Pr.P.Functions[F]);
      VarId Ws = Bd.alloc(AllocKind::Tensor, L(2, 10), "ws");
      VarId Args = Bd.alloc(AllocKind::Object, L(3, 12), "args");
      if (Kept)
        Bd.storeGlobal("t._KEEP", Ws, L(4, 5));
      VarId Addr = Bd.weak(Ws, L(5, 22));
      Pr.P.Functions[F].Blocks[0].Insts.back().Weak = WeakKind::Address;
      Inst &St = Bd.FB.emit(Op::Store, L(5, 5));
      St.P.Kind = PlaceRef::Field;
      St.P.Base = Args;
      St.P.Name = "workspace";
      St.P.Spelling = "args.workspace";
      St.A = Addr;
      Bd.FB.emit(Op::RegionBegin, L(6, 5)).Region = RegionKind::TaskUpdate;
      Bd.use(Args, L(7, 20));
      Bd.FB.emit(Op::RegionEnd, L(8, 5)).Region = RegionKind::TaskUpdate;
      Bd.FB.ret(NoVar, L(9, 1));
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              Kept ? ""
                   : "7:20 tether-graph-memory-dies-before-replay\n"
                     "  5:22 the task is handed a raw address of the memory, "
                     "taken here; an address does not keep the memory alive\n"
                     "  6:5 task update begins here\n"
                     "  8:5 task update ends here\n"
                     "  9:1 the last strong reference to the memory dies here\n")
        << (Kept ? "kept" : "local");
  }
  // The same shape with a weak reference is reported: the test can fail.
  for (WeakKind K : {WeakKind::Address, WeakKind::Primitive}) {
    Prog Pr;
    FnId F = Pr.fn("capture");
    {
      B Bd(Pr.P.Functions[F]);
      Bd.FB.emit(Op::RegionBegin, L(2, 5)).Region = RegionKind::Capture;
      VarId T = Bd.alloc(AllocKind::Tensor, L(3, 9), "t");
      VarId Alias = Bd.weak(T, L(4, 20));
      Pr.P.Functions[F].Blocks[0].Insts.back().Weak = K;
      Bd.storeGlobal("t._PTRS", Alias, L(4, 5));
      Bd.FB.emit(Op::Kill, L(5, 5)).A = T;
      Bd.use(Alias, L(6, 5));
      Bd.FB.emit(Op::RegionEnd, L(7, 5)).Region = RegionKind::Capture;
      Bd.FB.ret(NoVar, L(8, 1));
    }
    std::string Got = render(analyze(Pr.P));
    if (K == WeakKind::Address)
      EXPECT_EQ(Got, "");
    else
      EXPECT_NE(Got.find("tether-weak-ref-before-capture-end"),
                std::string::npos)
          << Got;
  }
}

/// An object a constructor built holds what its fields were given: when the
/// object's last holder dies, a buffer only it held dies too (TGI's Seqlen,
/// its cumulative lengths read by a captured kernel). Kept in a global,
/// the object keeps the buffer; a graph that dies with the object leaves
/// nothing to replay.
TEST(EngineTest, ObjectTakesWhatOnlyItHeldAlong) {
  for (int Form : {0, 1, 2}) { // 0: a local object; 1: kept; 2: local graph
    Prog Pr;
    Pr.P.Classes.push_back(Class{"Seqlen", {}, false});
    FnId F = Pr.fn("capture");
    {
      B Bd(Pr.P.Functions[F]);
      Bd.FB.param("graph");
      VarId Graph = 0;
      if (Form == 2)
        Graph = Bd.alloc(AllocKind::Object, L(2, 13), "graph");
      VarId Obj = Bd.alloc(AllocKind::Object, L(3, 15), "seqlen");
      Pr.P.Functions[F].Blocks[0].Insts.back().Class = 0;
      VarId Buf = Bd.alloc(AllocKind::Tensor, L(4, 23));
      Inst &St = Bd.FB.emit(Op::Store, L(4, 5));
      St.P.Kind = PlaceRef::Field;
      St.P.Base = Obj;
      St.P.Name = "cu_seqlens";
      St.P.Spelling = "seqlen.cu_seqlens";
      St.A = Buf;
      if (Form == 1)
        Bd.storeGlobal("t._KEEP", Obj, L(5, 5));
      Inst &Begin = Bd.FB.emit(Op::RegionBegin, L(6, 5));
      Begin.Region = RegionKind::Capture;
      Begin.A = Graph;
      Bd.use(Bd.field(Obj, "cu_seqlens", L(7, 20), "seqlen.cu_seqlens"),
             L(7, 20));
      Bd.FB.emit(Op::RegionEnd, L(8, 5)).Region = RegionKind::Capture;
      Bd.FB.ret(NoVar, L(9, 1));
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              Form != 0 ? ""
                        : "7:20 tether-graph-memory-dies-before-replay\n"
                          "  6:5 capture begins here\n"
                          "  8:5 capture ends here\n"
                          "  3:15 the memory is held only by the object made "
                          "here, and dies with it\n"
                          "  9:1 the last strong reference to the memory dies "
                          "here\n")
        << "form " << Form;
  }
}

/// numpy's assert_equal calls itself on `actual[k]`, `actual[0]`, ... : a
/// recursive summary applied to itself, each round one step deeper. Its
/// effects are one per site, their values joined, so the summary stays the
/// size of the body (it grew threefold per round, to gigabytes).
TEST(EngineTest, RecursiveCallsOnElementsKeepTheSummarySmall) {
  Prog Pr;
  FnId F = Pr.fn("assert_equal");
  {
    B Bd(Pr.P.Functions[F]);
    VarId Actual = Bd.FB.param("actual");
    VarId Desired = Bd.FB.param("desired");
    Bd.use(Actual, L(2, 5));
    for (uint32_t Call = 0; Call < 3; ++Call) {
      VarId A = Bd.get(Actual, L(3 + Call, 18), "actual[k]");
      VarId D = Bd.get(Desired, L(3 + Call, 29), "desired[k]");
      Bd.call(F, {A, D}, L(3 + Call, 5));
      Bd.storeElem(Desired, A, L(3 + Call, 40), "desired[k]");
    }
    Bd.FB.ret(NoVar, L(9, 1));
  }
  Context Cx(Pr.P, Options{});
  summarize(Cx);
  const Summary &S = Cx.Sums[F];
  // One use at 2:5 (what each call hands it, joined), and per store site
  // one store for each depth of the place stored (`desired[k]`, its
  // callee's `desired[k][k]`, ... cut at kMaxPath).
  EXPECT_EQ(S.Uses.size(), 1u);
  EXPECT_EQ(S.Stores.size(), 3u * kMaxPath);
  EXPECT_LT(S.size(), 200u);
}

/// sympy's polynomial code copies its arguments into lists it builds and
/// drops (`out = []; out.append(f[i])`): nothing a caller can see. Those
/// stores leave the summary; a store into a list the function returns or
/// hands to an operation stays, and so does one of a weak alias.
TEST(EngineTest, StoreIntoADroppedContainerIsNotInTheSummary) {
  Prog Pr;
  auto Build = [&](const std::string &Name, int Keep) {
    FnId F = Pr.fn(Name);
    B Bd(Pr.P.Functions[F]);
    VarId P = Bd.FB.param("f");
    VarId Out = Bd.alloc(AllocKind::Container, L(2, 5), "out");
    VarId Inner = Bd.alloc(AllocKind::Container, L(3, 5), "inner");
    VarId Stored = Keep == 3 ? Bd.weak(P, L(4, 5), "w") : P;
    Bd.storeElem(Inner, Stored, L(5, 5), "inner[0]");
    Bd.storeElem(Out, Inner, L(6, 5), "out[0]");
    if (Keep == 2)
      Bd.use(Out, L(7, 5));
    Bd.FB.ret(Keep == 1 ? Out : NoVar, L(8, 5));
    return F;
  };
  FnId Dropped = Build("dropped", 0);
  FnId Returned = Build("returned", 1);
  FnId Used = Build("used", 2);
  FnId Weak = Build("weak", 3);
  Context Cx(Pr.P, Options{});
  summarize(Cx);
  EXPECT_TRUE(Cx.Sums[Dropped].Stores.empty());
  // `inner` is reached through `out` (whose own store holds no parameter
  // and never was an effect): `inner[0] = f` stays.
  ASSERT_EQ(Cx.Sums[Returned].Stores.size(), 1u);
  EXPECT_EQ(Cx.Sums[Returned].Stores[0].At, L(5, 5));
  ASSERT_EQ(Cx.Sums[Used].Stores.size(), 1u);
  EXPECT_EQ(Cx.Sums[Used].Stores[0].At, L(5, 5));
  // The weak alias's store stays, though `inner` is dropped.
  EXPECT_EQ(Cx.Sums[Weak].Stores.size(), 1u);
}

TEST(EngineTest, ASummaryPastItsBudgetKeepsOnlyStoresCallersNeed) {
  // `out["k<i>"] = p` for N keys of a container it returns; also a weak
  // alias of p into it, and p into a field of p itself.
  Prog Pr;
  auto Build = [&](const std::string &Name, int N) {
    FnId F = Pr.fn(Name);
    B Bd(Pr.P.Functions[F]);
    VarId P = Bd.FB.param("p");
    VarId Out = Bd.alloc(AllocKind::Container, L(2, 5), "out");
    for (int I = 0; I < N; ++I)
      Bd.storeAt(Out, "'k" + std::to_string(I) + "'", P, L(10 + I, 5),
                 "out[k]");
    Bd.storeAt(Out, "'w'", Bd.weak(P, L(3, 5), "w"), L(4, 5), "out['w']");
    Bd.storeAt(P, "f", P, L(5, 5), "p.f", true);
    Bd.FB.ret(Out, L(6, 5));
    return F;
  };
  FnId Small = Build("small", 100);
  FnId Large = Build("large", 9000); // two atoms a store: past 16,384
  Context Cx(Pr.P, Options{});
  summarize(Cx);
  EXPECT_EQ(Cx.Sums[Small].Stores.size(), 102u);
  const Summary &S = Cx.Sums[Large];
  ASSERT_EQ(S.Stores.size(), 2u);
  std::vector<SrcLoc> Kept{S.Stores[0].At, S.Stores[1].At};
  llvm::sort(Kept);
  EXPECT_EQ(Kept, (std::vector<SrcLoc>{L(4, 5), L(5, 5)}));
  EXPECT_LT(S.size(), 100u);
}

TEST(EngineTest, ARunInsertedIntoASortedVectorIsEachInsertedInTurn) {
  std::mt19937 Rng(7);
  for (int Round = 0; Round < 2000; ++Round) {
    std::vector<std::pair<MemId, MemId>> To, One;
    for (int I = Rng() % 40; I > 0; --I)
      insertSorted(To, std::pair<MemId, MemId>{Rng() % 8, Rng() % 16});
    std::vector<std::pair<MemId, MemId>> Run;
    for (int I = Rng() % 12; I > 0; --I)
      Run.push_back({Rng() % 8, Rng() % 16});
    llvm::sort(Run); // repeats stay
    One = To;
    bool Added = false;
    for (const auto &X : Run)
      Added |= insertSorted(One, X);
    EXPECT_EQ(insertSortedRun(To, llvm::ArrayRef(Run)), Added);
    EXPECT_EQ(To, One);
  }
}

/// The language server's engine: after an edit of one function, a session
/// interprets again only what the edit can change, and answers as a cold
/// run of the edited program does, whether the edit moves positions,
/// changes the helper's summary (no weak reference: the finding goes), or
/// brings it back.
TEST(EngineTest, SessionAnswersAsAColdRunAfterEachEdit) {
  Prog Pr;
  FnId Update = fusedInferAttention(Pr);
  size_t N = Pr.P.Functions.size();
  Session S;
  std::vector<bool> Unchanged(N, false);
  EXPECT_EQ(render(S.analyze(Pr.P, Options{}, Unchanged)),
            render(analyze(Pr.P)));
  EXPECT_FALSE(S.Last.Warm);
  EXPECT_EQ(S.Last.Interpreted, N);
  Unchanged.assign(N, true);
  Unchanged[Update] = false;
  for (auto [Weak, Line] : {std::pair{true, 530u}, std::pair{false, 530u},
                            std::pair{true, 526u}}) {
    storeHelper(Pr.P.Functions[Update], Weak, Line);
    std::string Cold = render(analyze(Pr.P));
    EXPECT_EQ(render(S.analyze(Pr.P, Options{}, Unchanged)), Cold)
        << "weak " << Weak << " at line " << Line;
    EXPECT_TRUE(S.Last.Warm);
    // The helper and its caller, and the caller's caller when the caller's
    // summary changed; never the getters.
    EXPECT_LE(S.Last.Interpreted, 3u);
    EXPECT_EQ(Cold.empty(), !Weak);
  }
  // Nothing changed: nothing is interpreted, the findings stand.
  std::string Cold = render(analyze(Pr.P));
  Unchanged.assign(N, true);
  EXPECT_EQ(render(S.analyze(Pr.P, Options{}, Unchanged)), Cold);
  EXPECT_EQ(S.Last.Interpreted, 0u);
}

/// A loop builds a runner object per graph, keeps it in a global map and
/// hands it the static input, which it keeps in a field; its capture reads
/// the input (vLLM's CUDAGraphRunner, ScaleLLM's CudaGraph). On the loop's
/// entry the runner is not made yet: its field holds nothing there, which
/// says nothing about the runners the loop makes, so the input stays held
/// after the loop. Without the field store the input dies at the return.
static void runnerPerIteration(Prog &Pr, bool Kept) {
  FnId F = Pr.fn("capture_graphs");
  B Bd(Pr.P.Functions[F]);
  VarId Graph = Bd.FB.param("graph");
  VarId More = Bd.FB.param("more");
  VarId X = Bd.alloc(AllocKind::Tensor, L(2, 9), "x");
  uint32_t Head = Bd.FB.block(), Body = Bd.FB.block(), Exit = Bd.FB.block();
  Bd.FB.jump(Head, L(3, 5));
  Bd.FB.setBlock(Head);
  Bd.FB.branch(Bd.test(TestKind::IsNull, More, L(3, 11)), Exit, Body, L(3, 5));
  Bd.FB.setBlock(Body);
  VarId R = Bd.alloc(AllocKind::Object, L(4, 18), "runner");
  if (Kept)
    Bd.storeAt(R, "tokens", X, L(5, 9), "runner.tokens", /*Field=*/true);
  Bd.storeElem(Bd.read("t._RUNNERS", L(6, 9)), R, L(6, 9), "_RUNNERS");
  Bd.beginCapture(Graph, L(7, 9));
  Bd.use(X, L(8, 13));
  Bd.endCapture(L(9, 9));
  Bd.FB.jump(Head, L(3, 5));
  Bd.FB.setBlock(Exit);
  Bd.FB.ret(NoVar, L(10, 5));
  Bd.FB.finish();
}

TEST(EngineTest, FieldsOfObjectsALoopMakesHoldAfterTheLoop) {
  Prog Kept;
  runnerPerIteration(Kept, /*Kept=*/true);
  EXPECT_EQ(render(analyze(Kept.P)), "");
  Prog Lost;
  runnerPerIteration(Lost, /*Kept=*/false);
  EXPECT_EQ(render(analyze(Lost.P)),
            "8:13 tether-graph-memory-dies-before-replay\n"
            "  7:9 capture begins here\n"
            "  9:9 capture ends here\n"
            "  10:5 the last strong reference to the memory dies here\n");
}

/// A helper that builds a tensor and returns it in a container it made
/// (`return {"inputs_embeds": torch.zeros(n)}`) hands its caller the
/// container's slot holding the tensor: the caller's captured read of the
/// slot reads the tensor, which dies with the container at the return
/// unless the container is kept.
TEST(EngineTest, ReturnedContainerHoldsWhatTheHelperMade) {
  for (bool Kept : {false, true}) {
    Prog Pr;
    FnId Helper = Pr.fn("prepare_inputs");
    {
      B Bd(Pr.P.Functions[Helper]);
      VarId D = Bd.alloc(AllocKind::Container, L(2, 12), "d");
      Bd.storeAt(D, "inputs", Bd.alloc(AllocKind::Tensor, L(2, 23)), L(2, 13),
                 "d");
      Bd.FB.ret(D, L(2, 5));
      Bd.FB.finish();
    }
    FnId F = Pr.fn("capture_graph");
    {
      B Bd(Pr.P.Functions[F]);
      VarId Graph = Bd.FB.param("graph");
      VarId In = Bd.FB.var("inputs");
      Bd.copy(In, Bd.call(Helper, {}, L(5, 14)), L(5, 5));
      if (Kept)
        Bd.storeElem(Bd.read("t._INPUTS", L(6, 5)), In, L(6, 5), "_INPUTS");
      Bd.beginCapture(Graph, L(7, 5));
      Bd.use(Bd.readAt(In, "inputs", L(8, 20), "inputs"), L(8, 20));
      Bd.endCapture(L(9, 5));
      Bd.FB.ret(NoVar, L(10, 5));
      Bd.FB.finish();
    }
    EXPECT_EQ(render(analyze(Pr.P)),
              Kept ? ""
                   : "8:20 tether-graph-memory-dies-before-replay\n"
                     "  7:5 capture begins here\n"
                     "  9:5 capture ends here\n"
                     "  2:12 the memory is held only by the object made "
                     "here, and dies with it\n"
                     "  10:5 the last strong reference to the memory dies "
                     "here\n")
        << (Kept ? "kept" : "local");
  }
}

/// A read of a computed key may be any slot a constant key wrote (and the
/// other way round): `e = {**d}` copies `d[*]`, so e holds the tensor
/// stored at `d["a"]`, and the captured read of e's slot reads it; it dies
/// with both containers at the return.
TEST(EngineTest, ComputedKeyReadsWhatConstantKeysHold) {
  Prog Pr;
  FnId F = Pr.fn("capture");
  B Bd(Pr.P.Functions[F]);
  VarId Graph = Bd.FB.param("graph");
  VarId D = Bd.alloc(AllocKind::Container, L(2, 9), "d");
  Bd.storeAt(D, "a", Bd.alloc(AllocKind::Tensor, L(3, 14)), L(3, 5), "d");
  VarId E = Bd.alloc(AllocKind::Container, L(4, 9), "e");
  Bd.storeElem(E, Bd.readAt(D, "", L(4, 12), "d"), L(4, 10), "e");
  Bd.beginCapture(Graph, L(5, 5));
  Bd.use(Bd.get(E, L(6, 20), "e"), L(6, 20));
  Bd.endCapture(L(7, 5));
  Bd.FB.ret(NoVar, L(8, 5));
  Bd.FB.finish();
  EXPECT_EQ(render(analyze(Pr.P)),
            "6:20 tether-graph-memory-dies-before-replay\n"
            "  5:5 capture begins here\n"
            "  7:5 capture ends here\n"
            "  4:9 the memory is held only by the object made here, and "
            "dies with it\n"
            "  8:5 the last strong reference to the memory dies here\n");
}

/// Independent functions interpreted on several threads: the findings are
/// those of one thread, run after run, though the shared tables number
/// places, conversions and regions in another order each time. The program
/// has three copies of the fused-infer-attention path (their globals are
/// shared, so their facts meet) and several captures opened and closed by
/// the same two helpers, whose one region each caller ends at once.
TEST(EngineTest, ThreadsFindWhatOneThreadFinds) {
  Prog Pr;
  for (int Copy = 0; Copy < 3; ++Copy)
    fusedInferAttention(Pr);
  auto [Begin, End] = captureHelpers(Pr);
  for (uint32_t K = 0; K < 24; ++K) {
    FnId F = Pr.fn("capture" + std::to_string(K));
    B Bd(Pr.P.Functions[F]);
    uint32_t Line = 100 + 10 * K;
    Bd.storeGlobal("t._WS", Bd.alloc(AllocKind::Tensor, L(Line, 10)),
                   L(Line, 5));
    Bd.call(Begin, {}, L(Line + 1, 5));
    VarId W = Bd.weak(Bd.read("t._WS", L(Line + 2, 30)), L(Line + 2, 20));
    Bd.storeGlobal("t._CACHE" + std::to_string(K % 3), W, L(Line + 2, 5));
    Bd.storeGlobal("t._WS", Bd.alloc(AllocKind::Tensor, L(Line + 3, 10)),
                   L(Line + 3, 5));
    Bd.use(Bd.read("t._CACHE" + std::to_string(K % 3), L(Line + 4, 20)),
           L(Line + 4, 20));
    Bd.call(End, {}, L(Line + 5, 5));
    Bd.FB.finish();
  }
  std::string One = render(analyze(Pr.P));
  EXPECT_NE(One.find("capture ends here"), std::string::npos) << One;
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(4));
  for (int Run = 0; Run < 20; ++Run) {
    Options O;
    O.Pool = &Pool;
    ASSERT_EQ(render(analyze(Pr.P, O)), One) << "run " << Run;
  }
  // As many interpretations as one thread runs, on whichever thread.
  Context Serial(Pr.P, Options{});
  size_t Bodies = summarize(Serial);
  Options O;
  O.Pool = &Pool;
  Context Cx(Pr.P, O);
  EXPECT_EQ(summarize(Cx), Bodies);
}

// The IR's strings (Symbol.h): one copy of each text, equal by pointer.
TEST(EngineTest, SymbolsAreOneCopyOfEachText) {
  std::string Built = std::string("work") + "spaces";
  Symbol A("workspaces"), B(Built), C("workspace");
  EXPECT_EQ(A, B);
  EXPECT_EQ(A.c_str(), B.c_str()); // the same copy, not an equal one
  EXPECT_NE(A, C);
  EXPECT_EQ(A, "workspaces");
  EXPECT_EQ(A + "[0]", "workspaces[0]");
  EXPECT_TRUE(C < A); // by text, whatever order they were made in
  Symbol Empty, FromEmpty("");
  EXPECT_TRUE(Empty.empty());
  EXPECT_EQ(Empty, FromEmpty);
  EXPECT_EQ(Empty.str(), "");
  const std::string &Text = A;
  EXPECT_EQ(Text, "workspaces");
  A.clear();
  EXPECT_TRUE(A.empty());
}

// Lowering interns on the pool's threads: each text still has one copy
// (EngineTsanTest runs this under ThreadSanitizer).
TEST(EngineTest, ThreadsInternOneCopyOfEachText) {
  constexpr unsigned Texts = 2000;
  std::vector<std::vector<Symbol>> Seen(4, std::vector<Symbol>(Texts));
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(4));
  for (unsigned T = 0; T < Seen.size(); ++T)
    Pool.async([&, T] {
      for (unsigned I = 0; I < Texts; ++I) {
        unsigned K = T % 2 ? Texts - 1 - I : I; // two orders
        Seen[T][K] = Symbol("threaded_" + std::to_string(K));
      }
    });
  Pool.wait();
  for (unsigned I = 0; I < Texts; ++I) {
    EXPECT_EQ(Seen[0][I], "threaded_" + std::to_string(I));
    for (unsigned T = 1; T < Seen.size(); ++T)
      EXPECT_EQ(Seen[T][I].c_str(), Seen[0][I].c_str());
  }
}
