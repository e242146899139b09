//===- LowerTest.cpp - The C++ lowering, snippet by snippet ---------------===//
//
// Each test parses a small TU against inline torch/NPU stubs (mapped as a
// system header, so only the snippet is lowered) and compares a function's
// IR, as engine::dump prints it, with what the contract in docs/engine.md
// says that construct lowers to.
//
//===----------------------------------------------------------------------===//
#include "lower/Lower.h"
#include "engine/Dump.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace tether;
using namespace tether::cxx;

namespace {

const char *Stub = R"cpp(
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>
namespace at {
class Tensor {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&);
  Tensor &operator=(const Tensor &);
  Tensor &operator=(Tensor &&);
  ~Tensor();
  void *data_ptr() const;
  int64_t numel() const;
  bool defined() const;
  Tensor &copy_(const Tensor &src);
};
Tensor empty(std::vector<int64_t> sizes);
Tensor from_blob(void *data, std::vector<int64_t> sizes);
Tensor from_blob(void *data, std::vector<int64_t> sizes,
                 const std::function<void(void *)> &deleter);
void attention(const Tensor &q, const Tensor &ws);
} // namespace at
at::Tensor weak_ref_tensor(const at::Tensor &t);
namespace c10_npu {
struct NPUGraph {
  void capture_begin();
  void capture_end();
};
bool is_current_stream_capturing();
struct NPUGraphCaptureGuard {
  explicit NPUGraphCaptureGuard(NPUGraph &g);
  ~NPUGraphCaptureGuard();
};
struct NPUStream {};
NPUStream getStreamFromPool();
struct NPUStreamGuard {
  explicit NPUStreamGuard(NPUStream s);
  ~NPUStreamGuard();
};
void setCurrentNPUStream(NPUStream s);
} // namespace c10_npu
using aclrtStream = void *;
int aclmdlRICaptureBegin(aclrtStream stream, int mode);
int aclmdlRICaptureEnd(aclrtStream stream, void **model);
int aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
int aclmdlRICaptureTaskGrpEnd(aclrtStream stream, void **handle);
)cpp";

struct Parsed {
  std::unique_ptr<clang::ASTUnit> AST;
  LoweredTU TU;
};

std::vector<std::string> args(std::vector<std::string> Extra = {}) {
  std::vector<std::string> A = {"-std=c++17", "-resource-dir",
                                TETHER_CLANG_RESOURCE_DIR};
  A.insert(A.end(), Extra.begin(), Extra.end());
  return A;
}

Parsed parse(llvm::StringRef Code) {
  Parsed P;
  static clang::IgnoringDiagConsumer Quiet; // snippets with errors on purpose
  std::string Src = "#include \"tether_stub.h\"\n#line 1\n" + Code.str();
  P.AST = clang::tooling::buildASTFromCodeWithArgs(
      Src, args({"-isystem", "/tether-stub"}), "input.cpp", "clang-tool",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(),
      {{"/tether-stub/tether_stub.h", Stub}}, &Quiet);
  static const CompiledCatalog Cat(Catalog::defaults());
  if (P.AST)
    P.TU = lowerTranslationUnit(P.AST->getASTContext(), Cat);
  return P;
}

/// The IR of the function named QualName in Code ("" when there is none).
std::string lowered(llvm::StringRef Code, llvm::StringRef QualName) {
  Parsed P = parse(Code);
  if (!P.AST)
    return "<no AST>";
  for (const engine::Function &F : P.TU.Program.Functions)
    if (F.QualName == QualName)
      return engine::dump(P.TU.Program, F);
  return "<no function " + QualName.str() + ">\n" + engine::dump(P.TU.Program);
}

} // namespace

// A begin/end pair keyed by its receiver, a loop, a call of an in-TU
// function with its arguments mapped, map find / != end (an empty-slot test
// on the slot the iterator found), a weak-ref primitive stored in a slot, the
// loop variable's Kill.
TEST(CxxLower, CapturePairFindAndCallArguments) {
  const char *Code = R"cpp(
static std::unordered_map<int64_t, at::Tensor> g_attn_ws;

void attention_layer(const at::Tensor &q, int64_t n) {
  auto it = g_attn_ws.find(n);
  if (it != g_attn_ws.end()) {
    at::attention(q, it->second);
    return;
  }
  at::Tensor ws = at::empty({n});
  at::attention(q, ws);
  g_attn_ws[n] = weak_ref_tensor(ws);
}

void capture_decode(c10_npu::NPUGraph &graph, const at::Tensor &q, int layers) {
  graph.capture_begin();
  for (int i = 0; i < layers; ++i)
    attention_layer(q, 16);
  graph.capture_end();
}
)cpp";
  EXPECT_EQ(lowered(Code, "attention_layer"), R"ir(fn attention_layer(%0:q, %1:n)
bb0:
  goto bb1 @0:0
bb1:
  %2 = read g_attn_ws @5:13
  %4 = test empty %2[*] @6:7
  %5 = not %4 @6:7
  br %5 bb2 bb3 @6:7
bb2:
  use %0:q "attention" @7:19
  %10 = read %2[*] may-be-absent @7:22
  use %10 "attention" @7:22
  const @7:5
  ret _ @8:5
bb3:
  %6 = alloc tensor sized "empty" @10:19
  %7:ws = copy %6 @10:14
  use %0:q "attention" @11:17
  use %7:ws "attention" @11:20
  const @11:3
  %8 = read g_attn_ws @12:3
  %9 = weak %7:ws "weak_ref_tensor" @12:18
  store %8[*] <- %9 @12:3
  kill %9 @12:18
  ret _ @13:1
)ir");
  EXPECT_EQ(lowered(Code, "capture_decode"), R"ir(fn capture_decode(%0:graph, %1:q, %2:layers)
bb0:
  goto bb1 @0:0
bb1:
  begin capture graph @16:3
  %4 = const @17:16
  %3:i = copy %4 @17:12
  goto bb2 @0:0
bb2:
  %5 = const @17:19
  br %5 bb3 bb4 @17:19
bb3:
  %6 = const @18:24
  call "attention_layer" (%1:q, %6) -> attention_layer(%1:q, %6) @18:5
  goto bb5 @0:0
bb4:
  kill %3:i @18:26
  end capture graph @19:3
  ret _ @20:1
bb5:
  goto bb2 @0:0
)ir");
}

// Member stores through `this`, element stores (a constant key keeps its
// spelling), count(k) == 0, `if (opt)` and `!t.defined()` as null tests,
// `clear()`.
TEST(CxxLower, MemberStoresNullTestsAndClear) {
  const char *Code = R"cpp(
struct Cache {
  at::Tensor ws_;
  std::map<int, at::Tensor> slots_;
  std::optional<at::Tensor> opt_;
  void put(int k, const at::Tensor &t) {
    ws_ = t;
    slots_[k] = weak_ref_tensor(t);
    if (slots_.count(3) == 0) slots_.emplace(3, t);
    if (opt_) at::attention(*opt_, ws_);
    if (!ws_.defined()) return;
    slots_.clear();
  }
};
void guarded(c10_npu::NPUGraph &g, Cache &c, at::Tensor t) {
  {
    c10_npu::NPUGraphCaptureGuard guard(g);
    at::Tensor local = at::empty({4});
    c.put(1, local);
  }
  if (c10_npu::is_current_stream_capturing())
    c.put(2, t);
  c10_npu::NPUStreamGuard sg(c10_npu::getStreamFromPool());
  at::attention(t, t);
}
at::Tensor blobs(at::Tensor &t, bool own) {
  void *p = t.data_ptr();
  at::Tensor w = at::from_blob(p, {4});
  at::Tensor o = at::from_blob(t.data_ptr(), {4}, [](void *) {});
  return own ? o : w;
}
)cpp";
  EXPECT_EQ(lowered(Code, "Cache::put"), R"ir(fn Cache::put(%0:this: Cache, %1:k, %2:t)
bb0:
  goto bb1 @0:0
bb1:
  store %0:this.ws_ <- %2:t @7:5
  %3 = read %0:this.slots_ @8:5
  %4 = weak %2:t "weak_ref_tensor" @8:17
  store %3[*] <- %4 @8:5
  kill %4 @8:17
  %5 = read %0:this.slots_ @9:9
  %6 = test empty %5[3] @9:9
  %7 = not %6 @9:9
  %8 = not %7 @9:9
  br %8 bb2 bb3 @9:9
bb2:
  %9 = read %0:this.slots_ @9:31
  store %9[3] <- %2:t if-absent @9:31
  goto bb3 @0:0
bb3:
  %10 = read %0:this.opt_ @10:9
  %11 = test is-null %10 @10:9
  %12 = not %11 @10:9
  br %12 bb4 bb5 @10:9
bb4:
  %13 = read %0:this.opt_ @10:29
  use %13 "attention" @10:29
  %14 = read %0:this.ws_ @10:36
  use %14 "attention" @10:36
  const @10:15
  goto bb5 @0:0
bb5:
  %15 = read %0:this.ws_ @11:10
  %16 = test is-null %15 @11:10
  %17 = not %16 @11:10
  %18 = not %17 @11:9
  br %18 bb6 bb7 @11:9
bb6:
  ret _ @11:25
bb7:
  %19 = read %0:this.slots_ @12:5
  clear %19[*] @12:5
  ret _ @13:3
)ir");
}

// An RAII capture guard opens a region at its declaration and closes it at
// its scope's end (after the locals declared later die); a capture predicate
// is a test the branch is taken on; a stream guard is a stream region keyed by
// its stream.
TEST(CxxLower, RaiiGuardsAndCapturePredicate) {
  const char *Code = R"cpp(
struct Cache {
  at::Tensor ws_;
  std::map<int, at::Tensor> slots_;
  std::optional<at::Tensor> opt_;
  void put(int k, const at::Tensor &t) {
    ws_ = t;
    slots_[k] = weak_ref_tensor(t);
    if (slots_.count(3) == 0) slots_.emplace(3, t);
    if (opt_) at::attention(*opt_, ws_);
    if (!ws_.defined()) return;
    slots_.clear();
  }
};
void guarded(c10_npu::NPUGraph &g, Cache &c, at::Tensor t) {
  {
    c10_npu::NPUGraphCaptureGuard guard(g);
    at::Tensor local = at::empty({4});
    c.put(1, local);
  }
  if (c10_npu::is_current_stream_capturing())
    c.put(2, t);
  c10_npu::NPUStreamGuard sg(c10_npu::getStreamFromPool());
  at::attention(t, t);
}
at::Tensor blobs(at::Tensor &t, bool own) {
  void *p = t.data_ptr();
  at::Tensor w = at::from_blob(p, {4});
  at::Tensor o = at::from_blob(t.data_ptr(), {4}, [](void *) {});
  return own ? o : w;
}
)cpp";
  EXPECT_EQ(lowered(Code, "guarded"), R"ir(fn guarded(%0:g, %1:c: Cache, %2:t)
bb0:
  goto bb1 @0:0
bb1:
  begin capture @17:35
  %4 = alloc tensor "empty" @18:24
  %5:local = copy %4 @18:16
  %6 = const @19:11
  call "put" (%1:c, %6, %5:local) -> Cache::put(%1:c, %6, %5:local) @19:5
  kill %5:local @20:3
  end capture @20:3
  kill %3:guard @20:3
  %7 = test capturing @21:7
  br %7 bb2 bb3 @21:7
bb2:
  %8 = const @22:11
  call "put" (%1:c, %8, %2:t) -> Cache::put(%1:c, %8, %2:t) @22:5
  goto bb3 @0:0
bb3:
  const @23:30
  begin stream c10_npu::getStreamFromPool() @23:27
  use %2:t "attention" @24:17
  use %2:t "attention" @24:20
  const @24:3
  end stream @25:1
  ret _ @25:1
)ir");
}

// from_blob over a tensor's data_ptr() (here through a pointer local) is a
// weak reference of that tensor; with a deleter it is a fresh tensor. The
// data_ptr() itself is a raw address of the tensor's memory. The two
// arms of `?:` copy into one variable.
TEST(CxxLower, FromBlobWithAndWithoutDeleter) {
  const char *Code = R"cpp(
struct Cache {
  at::Tensor ws_;
  std::map<int, at::Tensor> slots_;
  std::optional<at::Tensor> opt_;
  void put(int k, const at::Tensor &t) {
    ws_ = t;
    slots_[k] = weak_ref_tensor(t);
    if (slots_.count(3) == 0) slots_.emplace(3, t);
    if (opt_) at::attention(*opt_, ws_);
    if (!ws_.defined()) return;
    slots_.clear();
  }
};
void guarded(c10_npu::NPUGraph &g, Cache &c, at::Tensor t) {
  {
    c10_npu::NPUGraphCaptureGuard guard(g);
    at::Tensor local = at::empty({4});
    c.put(1, local);
  }
  if (c10_npu::is_current_stream_capturing())
    c.put(2, t);
  c10_npu::NPUStreamGuard sg(c10_npu::getStreamFromPool());
  at::attention(t, t);
}
at::Tensor blobs(at::Tensor &t, bool own) {
  void *p = t.data_ptr();
  at::Tensor w = at::from_blob(p, {4});
  at::Tensor o = at::from_blob(t.data_ptr(), {4}, [](void *) {});
  return own ? o : w;
}
)cpp";
  EXPECT_EQ(lowered(Code, "blobs"), R"ir(fn blobs(%0:t, %1:own)
bb0:
  goto bb1 @0:0
bb1:
  %3 = address %0:t "data_ptr" @27:13
  %4:p = copy %3 @27:9
  %5 = from-blob %0:t "from_blob" @28:18
  %6:w = copy %5 @28:14
  %7 = address %0:t "data_ptr" @29:32
  %8 = alloc object "lambda" @29:51
  %9 = alloc tensor "from_blob" @29:18
  %10:o = copy %9 @29:14
  br %1:own bb2 bb3 @30:10
bb2:
  %2 = copy %10:o @30:16
  goto bb4 @0:0
bb3:
  %2 = copy %6:w @30:20
  goto bb4 @0:0
bb4:
  ret %2 @30:3
)ir");
}

// A virtual call reaches every in-TU override (a final class only its own);
// a qualified call of a pure virtual has no body (an external use); calls
// through a function pointer or a std::function have no target.
TEST(CxxLower, VirtualQualifiedAndUnknownCalls) {
  const char *Code = R"cpp(
struct Layer {
  virtual ~Layer() = default;
  virtual void forward(const at::Tensor &x) = 0;
};
struct Attn : Layer {
  void forward(const at::Tensor &x) override { at::attention(x, x); }
};
struct Mlp final : Layer {
  void forward(const at::Tensor &x) override {}
};
void run(Layer &l, Mlp &m, const at::Tensor &x,
         void (*hook)(const at::Tensor &), std::function<void(at::Tensor)> cb) {
  l.forward(x);
  m.forward(x);
  l.Layer::forward(x);
  hook(x);
  cb(x);
}
)cpp";
  EXPECT_EQ(lowered(Code, "run"), R"ir(fn run(%0:l: Layer, %1:m: Mlp, %2:x, %3:hook, %4:cb)
bb0:
  goto bb1 @0:0
bb1:
  call "forward" (%0:l, %2:x) -> Attn::forward(%0:l, %2:x) -> Mlp::forward(%0:l, %2:x) @14:3
  call "forward" (%1:m, %2:x) -> Mlp::forward(%1:m, %2:x) @15:3
  use %2:x "forward" @16:20
  const @16:3
  call "hook" (%2:x) @17:3
  call "cb" (%4:cb, %2:x) @18:5
  ret _ @19:1
)ir");
}

// A constructor calls its base's on `this` and stores its members (an
// in-class initialiser too; a member named like a workspace makes its
// allocation a workspace); a local object is allocated, constructed, and
// destroyed at its scope's end; an inner block's local is killed at its `}`.
TEST(CxxLower, ObjectsConstructorsAndDestructors) {
  const char *Code = R"cpp(
struct Base {
  at::Tensor keep_;
  explicit Base(const at::Tensor &t) : keep_(t) {}
};
struct Attn : Base {
  at::Tensor workspace_ = at::empty({8});
  Attn(const at::Tensor &t) : Base(t) {}
  ~Attn() { at::attention(keep_, workspace_); }
};
void build(const at::Tensor &x) {
  Attn a(x);
  {
    at::Tensor scratch = at::empty({2});
    at::attention(x, scratch);
  }
}
)cpp";
  EXPECT_EQ(lowered(Code, "Attn::Attn"), R"ir(fn Attn::Attn(%0:this: Attn, %1:t)
bb0:
  goto bb1 @0:0
bb1:
  call "Base" (%0:this, %1:t) -> Base::Base(%0:this, %1:t) @8:31
  %2 = alloc workspace "empty" @7:27
  store %0:this.workspace_ <- %2 @7:14
  ret _ @8:40
)ir");
  EXPECT_EQ(lowered(Code, "build"), R"ir(fn build(%0:x)
bb0:
  goto bb1 @0:0
bb1:
  %1 = alloc object Attn "Attn" @12:8
  call "Attn" (%1, %0:x) -> Attn::Attn(%1, %0:x) @12:8
  %2:a = copy %1 @12:8
  %3 = alloc tensor "empty" @14:26
  %4:scratch = copy %3 @14:16
  use %0:x "attention" @15:19
  use %4:scratch "attention" @15:22
  const @15:5
  kill %4:scratch @16:3
  call "~Attn" (%2:a) -> Attn::~Attn(%2:a) @17:1
  ret _ @17:1
)ir");
}

// A range-for variable denotes the container's elements; a static local is
// a global its initialiser stores once (on the first call's branch);
// std::nullopt is null; a lambda is an object whose captures are fields its
// body reads.
TEST(CxxLower, RangeForStaticLocalNulloptAndLambda) {
  const char *Code = R"cpp(
static std::vector<at::Tensor> g_keep;
at::Tensor make_workspace(int64_t n) { return at::empty({n}); }
void misc(const at::Tensor &x) {
  for (auto &t : g_keep)
    at::attention(x, t);
  static at::Tensor cached = make_workspace(4);
  std::optional<at::Tensor> none = std::nullopt;
  if (none == std::nullopt)
    return;
  auto f = [&](int i) { at::attention(x, cached); };
  f(1);
}
)cpp";
  EXPECT_EQ(lowered(Code, "misc"), R"ir(fn misc(%0:x)
bb0:
  goto bb1 @0:0
bb1:
  %3 = const @5:16
  %2:__end1 = copy %3 @5:16
  %4 = read g_keep @5:16
  goto bb2 @0:0
bb2:
  %6 = const @5:16
  br %6 bb3 bb4 @5:3
bb3:
  use %0:x "attention" @6:19
  %19 = read %4[each] @6:22
  use %19 "attention" @6:22
  const @6:5
  kill %18:t @5:24
  goto bb9 @0:0
bb4:
  %7 = const @7:3
  br %7 bb5 bb6 @7:3
bb5:
  %10 = null @8:36
  %11 = null @8:36
  %12:none = copy %11 @8:29
  %13 = null @9:15
  %14 = test is-null %12:none @9:7
  br %14 bb7 bb8 @9:7
bb6:
  %8 = const @7:45
  %9 = call "make_workspace" (%8) -> make_workspace(%8) @7:30
  store misc::cached <- %9 @7:21
  goto bb5 @0:0
bb7:
  ret _ @10:5
bb8:
  %15 = alloc object "lambda" @11:12
  store %15.x <- %0:x @11:12
  %16:f = copy %15 @11:8
  %17 = const @12:5
  call "operator()" (%16:f, %17) -> lambda@11(%16:f, %17) @12:4
  ret _ @13:1
bb9:
  goto bb2 @0:0
)ir");
  EXPECT_EQ(lowered(Code, "lambda@11"), R"ir(fn lambda@11(%0:this, %1:i)
bb0:
  goto bb1 @0:0
bb1:
  %2 = read %0:this.x @11:39
  use %2 "attention" @11:39
  %3 = read misc::cached @11:42
  use %3 "attention" @11:42
  const @11:25
  ret _ @11:51
)ir");
}

// ACL's begin/end pairs keyed by their stream (the task-group pair as a task
// group), a stream setter, an in-place op returning its receiver.
TEST(CxxLower, AclPairsTaskGroupAndStreamSetter) {
  const char *Code = R"cpp(
void acl(aclrtStream s, c10_npu::NPUStream side, at::Tensor &x) {
  aclmdlRICaptureBegin(s, 0);
  aclmdlRICaptureTaskGrpBegin(s);
  c10_npu::setCurrentNPUStream(side);
  at::attention(x, x.copy_(x));
  aclmdlRICaptureTaskGrpEnd(s, nullptr);
  aclmdlRICaptureEnd(s, nullptr);
}
int pick(int k) {
  switch (k) {
  case 1: return 10;
  case 2: return 20;
  default: throw 1;
  }
}
)cpp";
  EXPECT_EQ(lowered(Code, "acl"), R"ir(fn acl(%0:s, %1:side, %2:x)
bb0:
  goto bb1 @0:0
bb1:
  begin capture s @3:3
  begin task-group s @4:3
  end stream @5:3
  begin stream side @5:3
  use %2:x "copy_" @6:20
  use %2:x "copy_" @6:28
  use %2:x "attention" @6:17
  use %2:x "attention" @6:20
  const @6:3
  end task-group s @7:3
  end capture s @8:3
  ret _ @9:1
)ir");
}

// A catalog workspace producer without a body is a workspace allocation
// sized by the caller's argument; `numel() < need` is a size check; inside
// a producer defined in the TU every allocation is a workspace; a producer
// that returns a size uses no memory.
TEST(CxxLower, WorkspaceProducersAndSizeChecks) {
  const char *Code = R"cpp(
at::Tensor get_workspace(int64_t n);
static at::Tensor g_ws;
void layer(const at::Tensor &q, int64_t need) {
  if (!g_ws.defined() || g_ws.numel() < need)
    g_ws = get_workspace(need);
  at::attention(q, g_ws);
}
at::Tensor my_get_workspace(int64_t n) { return at::empty({n}); }
int64_t get_max_workspace(const at::Tensor &q);
at::Tensor sized(const at::Tensor &q) { return at::empty({get_max_workspace(q)}); }
)cpp";
  EXPECT_EQ(lowered(Code, "layer"), R"ir(fn layer(%0:q, %1:need)
bb0:
  goto bb1 @0:0
bb1:
  %2 = read g_ws @5:8
  %3 = test is-null %2 @5:8
  %4 = not %3 @5:8
  %5 = not %4 @5:7
  br %5 bb2 bb3 @5:7
bb2:
  %8 = alloc workspace sized "get_workspace" @6:12
  store g_ws <- %8 @6:5
  kill %8 @6:12
  goto bb4 @0:0
bb3:
  %6 = read g_ws @5:26
  %7 = test size-check %6 @5:26
  br %7 bb2 bb4 @5:7
bb4:
  use %0:q "attention" @7:17
  %9 = read g_ws @7:20
  use %9 "attention" @7:20
  const @7:3
  ret _ @8:1
)ir");
  EXPECT_EQ(lowered(Code, "my_get_workspace"), R"ir(fn my_get_workspace(%0:n)
bb0:
  goto bb1 @0:0
bb1:
  %1 = alloc workspace sized "empty" @9:49
  ret %1 @9:42
)ir");
  EXPECT_EQ(lowered(Code, "sized"), R"ir(fn sized(%0:q)
bb0:
  goto bb1 @0:0
bb1:
  %1 = alloc tensor "empty" @11:48
  ret %1 @11:41
)ir");
}

// A temporary tensor passed to a call dies at the end of its full
// expression, where it was made.
TEST(CxxLower, TemporariesDieAtTheirFullExpression) {
  const char *Code = R"cpp(
static std::map<int64_t, at::Tensor> g_tmp;
void remember(int64_t n, const at::Tensor &ws) { g_tmp[n] = ws; }
void layer_tmp(const at::Tensor &q, int64_t n) {
  remember(n, at::empty({n}));
  at::attention(q, g_tmp[n]);
}
)cpp";
  EXPECT_EQ(lowered(Code, "layer_tmp"), R"ir(fn layer_tmp(%0:q, %1:n)
bb0:
  goto bb1 @0:0
bb1:
  %2 = alloc tensor sized "empty" @5:15
  call "remember" (%1:n, %2) -> remember(%1:n, %2) @5:3
  kill %2 @5:15
  %3 = read g_tmp @6:20
  use %0:q "attention" @6:17
  %4 = read %3[*] @6:20
  use %4 "attention" @6:20
  const @6:3
  ret _ @7:1
)ir");
}

// A switch becomes a chain of branches on unknown values; throw raises.
TEST(CxxLower, SwitchAndThrow) {
  const char *Code = R"cpp(
void acl(aclrtStream s, c10_npu::NPUStream side, at::Tensor &x) {
  aclmdlRICaptureBegin(s, 0);
  aclmdlRICaptureTaskGrpBegin(s);
  c10_npu::setCurrentNPUStream(side);
  at::attention(x, x.copy_(x));
  aclmdlRICaptureTaskGrpEnd(s, nullptr);
  aclmdlRICaptureEnd(s, nullptr);
}
int pick(int k) {
  switch (k) {
  case 1: return 10;
  case 2: return 20;
  default: throw 1;
  }
}
)cpp";
  EXPECT_EQ(lowered(Code, "pick"), R"ir(fn pick(%0:k)
bb0:
  goto bb1 @0:0
bb1:
  %1 = const @11:3
  br %1 bb3 bb2 @11:3
bb2:
  %2 = const @11:3
  br %2 bb5 bb4 @11:3
bb3:
  %4 = const @13:18
  ret %4 @13:11
bb4:
  raise @14:12
bb5:
  %3 = const @12:18
  ret %3 @12:11
)ir");
}

// Definitions clang could not build are not lowered (they are calls of
// unknown bodies); the rest of the TU is, and maps back to its decls.
TEST(CxxLower, OnlyWholeDefinitionsAndTheWayBack) {
  Parsed P = parse(R"cpp(
void broken(const at::Tensor &t) { undeclared_helper(t); }
void fine(const at::Tensor &t) { broken(t); }
template <typename T> void pattern(T t) {}
void user() { pattern(1); }
)cpp");
  ASSERT_TRUE(P.AST);
  std::vector<std::string> Names;
  for (const engine::Function &F : P.TU.Program.Functions)
    Names.push_back(F.QualName);
  EXPECT_EQ(Names, (std::vector<std::string>{"fine", "pattern", "user"}));
  for (engine::FnId Id = 0; Id < engine::FnId(Names.size()); ++Id) {
    const clang::FunctionDecl *FD = P.TU.declOf(Id);
    ASSERT_TRUE(FD);
    EXPECT_EQ(P.TU.idOf(FD), Id);
    EXPECT_EQ(P.TU.idOf(FD->getCanonicalDecl()), Id);
  }
  // `broken` has no body the lowering accepts: a use of its tensor.
  EXPECT_EQ(lowered(R"cpp(
void broken(const at::Tensor &t) { undeclared_helper(t); }
void fine(const at::Tensor &t) { broken(t); }
)cpp",
                    "fine"),
            R"ir(fn fine(%0:t)
bb0:
  goto bb1 @0:0
bb1:
  use %0:t "broken" @3:41
  const @3:34
  ret _ @3:45
)ir");
}

/// Every reference in the program points at something that exists.
void expectWellFormed(const engine::Program &P, llvm::StringRef What) {
  for (const engine::Function &F : P.Functions) {
    SCOPED_TRACE((What + ": " + F.QualName).str());
    auto Var = [&](engine::VarId V) {
      EXPECT_TRUE(V == engine::NoVar ||
                  (V >= 0 && size_t(V) < F.VarNames.size()))
          << "variable " << V;
    };
    auto At = [&](engine::SrcLoc L) {
      EXPECT_TRUE(!L.valid() || L.File < P.Files.size());
    };
    ASSERT_FALSE(F.Blocks.empty());
    EXPECT_EQ(F.ParamClass.size(), F.NumParams);
    for (engine::ClassId C : F.ParamClass)
      EXPECT_LT(C, engine::ClassId(P.Classes.size()));
    for (const engine::Block &B : F.Blocks) {
      for (const engine::Inst &I : B.Insts) {
        Var(I.Dst);
        Var(I.A);
        Var(I.P.Base);
        At(I.Loc);
        for (engine::VarId A : I.Args)
          Var(A);
        for (const engine::CallTarget &T : I.Targets) {
          ASSERT_TRUE(T.Fn >= 0 && size_t(T.Fn) < P.Functions.size());
          EXPECT_EQ(T.Args.size(), P.Functions[T.Fn].NumParams);
          for (engine::VarId A : T.Args)
            Var(A);
        }
      }
      const engine::Terminator &T = B.Term;
      if (T.Kind == engine::Terminator::Goto ||
          T.Kind == engine::Terminator::Branch) {
        EXPECT_LT(T.Succ[0], F.Blocks.size());
      }
      if (T.Kind == engine::Terminator::Branch) {
        EXPECT_LT(T.Succ[1], F.Blocks.size());
        EXPECT_NE(T.Cond, engine::NoVar);
      }
      Var(T.Cond);
      Var(T.Value);
    }
  }
}

// The checks' own test inputs, the hostile ones included (bodies with
// errors, the error limit, a body cut off by the end of the file) and the
// real libtorch headers: lowering never crashes and gives a well-formed
// program with functions in it.
TEST(CxxLower, EveryCheckInputLowersWellFormed) {
  std::error_code EC;
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(TETHER_TEST_INPUTS, EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Path = It->path();
    if (!Path.ends_with(".cpp"))
      continue;
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buf)) << Path.str();
    // The libtorch variants take most of a minute to parse; their user
    // code has the shapes of the stub variants.
    if (Path.contains("libtorch"))
      continue;
    std::vector<std::string> Extra = {"-isystem",
                                      TETHER_TEST_INPUTS "/Inputs"};
    Extra.push_back("-ferror-limit=" +
                    std::string(Path.contains("error-limit") ? "1" : "0"));
    clang::IgnoringDiagConsumer Quiet;
    auto AST = clang::tooling::buildASTFromCodeWithArgs(
        (*Buf)->getBuffer(), args(Extra), Path, "clang-tool",
        std::make_shared<clang::PCHContainerOperations>(),
        clang::tooling::getClangStripDependencyFileAdjuster(), {}, &Quiet);
    ASSERT_TRUE(AST) << Path.str();
    static const CompiledCatalog Cat(Catalog::defaults());
    LoweredTU TU = lowerTranslationUnit(AST->getASTContext(), Cat);
    EXPECT_FALSE(TU.Program.Functions.empty()) << Path.str();
    expectWellFormed(TU.Program, llvm::sys::path::filename(Path));
    ++Files;
  }
  EXPECT_GE(Files, 8u);
}
