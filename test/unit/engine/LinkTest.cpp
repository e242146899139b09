//===- LinkTest.cpp - Linking programs across languages (engine/Link.h) ---===//
//
// Two C++ units (one registers, one defines) and the Python side that
// appends the library: which functions are copied, how a declared-only
// call becomes a call of its definition, how Python names are looked up.
//
//===----------------------------------------------------------------------===//
#include "engine/Builder.h"
#include "engine/Link.h"

#include "llvm/ADT/StringRef.h"

#include "gtest/gtest.h"

using namespace tether;
using namespace tether::engine;

namespace {

FnId addFunction(Program &P, const std::string &Name, uint32_t Params,
                 const std::string &Link = "") {
  P.Functions.emplace_back();
  Function &F = P.Functions.back();
  F.Name = F.QualName = Name;
  F.Link = Link;
  F.Loc = {0, uint32_t(P.Functions.size()), 1};
  F.EndLoc = {0, uint32_t(P.Functions.size()), 80};
  FunctionBuilder B(F);
  for (uint32_t I = 0; I < Params; ++I)
    B.param("p" + std::to_string(I));
  B.finish();
  return FnId(P.Functions.size() - 1);
}

/// kernels.cpp: weak_view(t) returns a from_blob of t; helper() calls it;
/// unused() is called by nobody bound.
Program kernels() {
  Program P;
  P.Files = {"csrc/kernels.cpp"};
  FnId WV = addFunction(P, "weak_view", 0, "_Z9weak_viewRKN2at6TensorE");
  {
    Function &F = P.Functions[WV];
    FunctionBuilder B(F);
    VarId T = B.param("t");
    VarId W = B.var();
    Inst &I = B.emit(Op::WeakRef, {0, 6, 10});
    I.Dst = W;
    I.A = T;
    I.Weak = WeakKind::FromBlob;
    B.ret(W, {0, 6, 3});
    B.finish();
  }
  FnId H = addFunction(P, "helper", 0, "_Z6helperv");
  {
    Function &F = P.Functions[H];
    FunctionBuilder B(F);
    VarId T = B.param("t");
    VarId R = B.var();
    Inst &C = B.emit(Op::Call, {0, 9, 3});
    C.Dst = R;
    C.Args = {T};
    C.Targets.push_back(CallTarget{WV, {T}});
    B.ret(R, {0, 9, 3});
    B.finish();
  }
  addFunction(P, "unused", 0, "_Z6unusedv");
  return P;
}

/// ops.cpp: binds helper (declared here only) and a lambda calling
/// weak_view (declared here only: an Alloc standing for the call).
Program ops() {
  Program P;
  P.Files = {"csrc/ops.cpp", "csrc/kernels.cpp"};
  FnId Lam = addFunction(P, "lambda@19", 0);
  {
    Function &F = P.Functions[Lam];
    FunctionBuilder B(F);
    B.param("this");
    VarId T = B.param("t");
    VarId R = B.var();
    Inst &A = B.emit(Op::Alloc, {0, 19, 50});
    A.Dst = R;
    A.Link = "_Z9weak_viewRKN2at6TensorE";
    A.Args = {T};
    B.ret(R, {0, 19, 43});
    B.finish();
  }
  P.Bindings.push_back({"torch.ops.myext.helper", -1, "_Z6helperv", 0, {0, 12, 3}});
  P.Bindings.push_back({"_C.weak_lambda", Lam, "", 1, {0, 20, 3}});
  P.Bindings.push_back({"_C.missing", -1, "_Z7missingv", 0, {0, 21, 3}});
  return P;
}

TEST(LinkTest, CopiesBoundFunctionsAndTheirCallees) {
  Library L = link({kernels(), ops()});
  // helper and weak_view from kernels.cpp, the lambda from ops.cpp; not
  // unused(), and not the binding nobody defines.
  ASSERT_EQ(L.Code.Functions.size(), 3u);
  std::vector<std::string> Names;
  for (const Function &F : L.Code.Functions) {
    Names.push_back(F.Name);
    EXPECT_TRUE(F.Foreign);
  }
  EXPECT_EQ(Names, (std::vector<std::string>{"weak_view", "helper", "lambda@19"}));
  EXPECT_EQ(L.ByName.count("_C.missing"), 0u);
  // One file table: kernels.cpp once.
  EXPECT_EQ(L.Code.Files,
            (std::vector<std::string>{"csrc/kernels.cpp", "csrc/ops.cpp"}));
  const Function &Lam = L.Code.Functions[2];
  EXPECT_EQ(Lam.Loc.File, 1u);
  // The lambda's declared-only call became a call of weak_view.
  const Inst &C = Lam.Blocks[0].Insts[0];
  EXPECT_EQ(C.Kind, Op::Call);
  ASSERT_EQ(C.Targets.size(), 1u);
  EXPECT_EQ(C.Targets[0].Fn, 0);
  EXPECT_TRUE(C.Link.empty());
  // helper's in-unit call is renumbered.
  EXPECT_EQ(L.Code.Functions[1].Blocks[0].Insts[0].Targets[0].Fn, 0);
}

TEST(LinkTest, LooksUpPythonNames) {
  Library L = link({kernels(), ops()});
  const auto *Op = L.lookup("torch.ops.myext.helper");
  ASSERT_NE(Op, nullptr);
  EXPECT_EQ(Op->front().Fn, 1);
  // An overload of the op is the op; a longer name is not.
  EXPECT_EQ(L.lookup("torch.ops.myext.helper.default"), Op);
  EXPECT_EQ(L.lookup("torch.ops.myext.helper.default.x"), nullptr);
  EXPECT_EQ(L.lookup("torch.ops.other.helper"), nullptr);
  // pybind11: the module's and the function's name, wherever the module
  // sits in the caller's package; the closure is not passed.
  const auto *Lam = L.lookup("vllm_ext._C.weak_lambda");
  ASSERT_NE(Lam, nullptr);
  EXPECT_EQ(Lam->front().FirstArg, 1u);
  EXPECT_EQ(L.lookup("_C.weak_lambda"), Lam);
  EXPECT_EQ(L.lookup("_D.weak_lambda"), nullptr);
  EXPECT_EQ(L.lookup("weak_lambda"), nullptr);
}

TEST(LinkTest, AppendRenumbersIntoTheCallersProgram) {
  Library L = link({kernels(), ops()});
  Program Py;
  Py.Files = {"pkg/layer.py"};
  Py.Classes.push_back(Class{"Layer", {}});
  addFunction(Py, "forward", 1);
  FnId Base = append(Py, L.Code);
  EXPECT_EQ(Base, 1);
  ASSERT_EQ(Py.Functions.size(), 4u);
  EXPECT_EQ(Py.Files.size(), 3u);
  // helper (now 2) calls weak_view (now 1), in kernels.cpp (now file 1).
  const Inst &C = Py.Functions[2].Blocks[0].Insts[0];
  EXPECT_EQ(C.Targets[0].Fn, 1);
  EXPECT_EQ(C.Loc.File, 1u);
  EXPECT_EQ(Py.Files[C.Loc.File], "csrc/kernels.cpp");
}

/// One C++ TU: `step()` (internal linkage, no link name) makes a Cache of
/// the TU's anonymous namespace and a SharedCache of a header, and stores
/// into the TU's `static` g_ws and the extern g_shared.
Program stepUnit(const std::string &File) {
  Program P;
  P.Files = {File};
  P.Classes.push_back(Class{"(anonymous namespace)::Cache", {}, true});
  P.Classes.push_back(Class{"SharedCache", {}, false});
  FnId S = addFunction(P, "step", 0);
  Function &F = P.Functions[S];
  FunctionBuilder B(F);
  for (ClassId C : {0, 1}) {
    Inst &A = B.emit(Op::Alloc, {0, 3, 3});
    A.Dst = B.var();
    A.Alloc = AllocKind::Object;
    A.Class = C;
  }
  for (bool Local : {true, false}) {
    Inst &St = B.emit(Op::Store, {0, 4, 3});
    St.A = 0;
    St.P.Name = St.P.Spelling = Local ? "g_ws" : "g_shared";
    St.P.Local = Local;
  }
  B.ret(NoVar, {0, 5, 1});
  B.finish();
  return P;
}

TEST(LinkTest, InternalLinkageIsEachUnitsOwn) {
  Program P = linkAll({stepUnit("a.cpp"), stepUnit("b.cpp")});
  // Both steps: neither has a link name to be one definition by.
  ASSERT_EQ(P.Functions.size(), 2u);
  const std::vector<Inst> &A = P.Functions[0].Blocks[0].Insts;
  const std::vector<Inst> &B = P.Functions[1].Blocks[0].Insts;
  // Two Caches, one SharedCache.
  EXPECT_EQ(P.Classes.size(), 3u);
  EXPECT_NE(A[0].Class, B[0].Class);
  EXPECT_EQ(A[1].Class, B[1].Class);
  EXPECT_EQ(P.Classes[B[0].Class].Name, "(anonymous namespace)::Cache");
  // Two g_ws, one g_shared; the spelling messages use is kept.
  EXPECT_NE(A[2].P.Name, B[2].P.Name);
  EXPECT_EQ(A[2].P.Spelling, B[2].P.Spelling);
  EXPECT_TRUE(llvm::StringRef(A[2].P.Name).ends_with("::g_ws"));
  EXPECT_EQ(A[3].P.Name, "g_shared");
  EXPECT_EQ(B[3].P.Name, "g_shared");
}

TEST(LinkTest, NothingBoundNothingCopied) {
  Program P = kernels();
  Library L = link({P});
  EXPECT_TRUE(L.empty());
  EXPECT_TRUE(L.Code.Functions.empty());
}

} // namespace
