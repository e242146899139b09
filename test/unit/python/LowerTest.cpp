//===- LowerTest.cpp - The Python lowering, shape by shape ----------------===//
//
// Each test lowers a small package and compares one function's IR, as
// engine::dump writes it, with what docs/engine.md says a lowering emits.
//
//===----------------------------------------------------------------------===//
#include "Lower.h"
#include "Model.h"
#include "Syntax.h"
#include "engine/Dump.h"

#include "llvm/Support/ThreadPool.h"
#include "gtest/gtest.h"
#include <memory>
#include <mutex>

using namespace tether;
using namespace tether::python;

namespace {

struct Lowered {
  Package P;
  engine::Program Prog;
  /// The dump of the function with this qualified name ("" if none).
  std::string fn(const std::string &Qual) const {
    for (const engine::Function &F : Prog.Functions)
      if (F.QualName == Qual)
        return engine::dump(Prog, F);
    return "";
  }
};

/// Lower modules given as (dotted name, source), in order.
std::unique_ptr<Lowered>
lower(const std::vector<std::pair<std::string, std::string>> &Mods) {
  auto L = std::make_unique<Lowered>();
  Package &P = L->P;
  CatalogProvider Cats;
  auto Cat = Cats.forFile("m.py");
  EXPECT_TRUE(bool(Cat));
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, Grammar::get().Lang);
  for (const auto &[Name, Src] : Mods) {
    auto M = std::make_unique<Module>();
    M->Name = Name;
    M->Path = Name + ".py";
    M->Source = Src;
    M->Cat = *Cat;
    M->Tree = parseSyntax(Parser, M->Source).release();
    P.ModuleByName.emplace(Name, (int)P.Modules.size());
    P.Modules.push_back(std::move(M));
  }
  ts_parser_delete(Parser);
  P.indexAll();
  L->Prog = lowerPackage(P);
  return L;
}

std::unique_ptr<Lowered> lower(const std::string &Src) {
  return lower({{"m", Src}});
}

/// Each of Want is a whole line of Dump (less its indentation), in order.
::testing::AssertionResult hasLines(const std::string &Dump,
                                    const std::vector<std::string> &Want) {
  std::vector<std::string> Lines;
  for (llvm::StringRef Rest = Dump; !Rest.empty();) {
    auto [Line, Tail] = Rest.split('\n');
    Lines.push_back(Line.trim().str());
    Rest = Tail;
  }
  size_t At = 0;
  for (const std::string &W : Want) {
    while (At < Lines.size() && Lines[At] != W)
      ++At;
    if (At == Lines.size())
      return ::testing::AssertionFailure()
             << "no line '" << W << "' (in this order) in:\n" << Dump;
    ++At;
  }
  return ::testing::AssertionSuccess();
}

bool hasLine(const std::string &Dump, const std::string &Line) {
  return bool(hasLines(Dump, {Line}));
}

const char *Prelude = "import functools\n"
                      "import torch\n"
                      "import torch_npu\n"
                      "from vllm_ascend.utils import weak_ref_tensors\n";

TEST(Lower, WithCaptureIsARegionEndingAtTheNextStatement) {
  auto L = lower(std::string(Prelude) +
                 "def capture(g, x):\n"               // 5
                 "    with torch.npu.graph(g):\n"     // 6
                 "        y = torch.empty(4)\n"       // 7
                 "        w = weak_ref_tensors(y)\n"  // 8
                 "    return w\n");                   // 9
  EXPECT_EQ(L->fn("m.capture"),
            "fn m.capture(%0:g, %1:x)\n"
            "bb0:\n"
            "  begin capture @6:5\n"
            "  %2 = const @6:10\n"
            "  %3 = const @7:25\n"
            "  %4 = alloc tensor \"torch.empty\" @7:13\n"
            "  %5:y = copy %4 @7:9\n"
            "  %6 = weak %5:y \"weak_ref_tensors\" @8:13\n"
            "  %7:w = copy %6 @8:9\n"
            "  end capture @9:5\n"
            "  ret %7:w @9:5\n");
}

TEST(Lower, ReturnInsideACaptureEndsItFirst) {
  auto L = lower(std::string(Prelude) +
                 "def f(g, x):\n"
                 "    with torch.cuda.graph(g):\n"
                 "        if x:\n"
                 "            return x\n"
                 "        torch.relu(x)\n");
  std::string D = L->fn("m.f");
  EXPECT_TRUE(hasLines(D, {"begin capture @6:5", "%3 = test is-null %1:x @7:12",
                           "br %3 bb3 bb2 @7:12", "bb2:", "end capture @8:13",
                           "ret %1:x @8:13"}));
  // The fall-through ends the region at the end of the `with`.
  EXPECT_TRUE(hasLines(D, {"use %1:x \"torch.relu\" @9:20", "end capture @9:22"}));
}

TEST(Lower, PredicateEarlyReturnBranchesOnTheTest) {
  auto L = lower(std::string(Prelude) +
                 "def early(ctx, x):\n"
                 "    if not ctx.capturing:\n"
                 "        return x\n"
                 "    return torch.relu(x)\n");
  std::string D = L->fn("m.early");
  // `not` swaps the successors: the test's true side is the fall-through.
  // The branch is at the whole condition, where a predicate region begins.
  EXPECT_TRUE(hasLines(D, {"bb0:", "%2 = test capturing %0:ctx @6:12",
                           "br %2 bb3 bb2 @6:8", "bb1:",
                           "use %1:x \"torch.relu\" @8:23", "bb2:",
                           "ret %1:x @7:9"}));
}

TEST(Lower, PredicateCallsAndGetattr) {
  auto L = lower(std::string(Prelude) +
                 "def f(ctx):\n"
                 "    a = torch.npu.is_current_stream_capturing()\n"
                 "    b = getattr(ctx, 'capturing', False)\n");
  std::string D = L->fn("m.f");
  EXPECT_TRUE(hasLines(D, {"%1 = test capturing @6:9", "%2:a = copy %1 @6:5",
                           "%3 = test capturing %0:ctx @7:9"}));
}

TEST(Lower, DictGetIsAReadThatMayFindNothing) {
  auto L = lower(std::string(Prelude) +
                 "_WS = {}\n"
                 "def getter(n):\n"
                 "    ws = _WS.get(n)\n"
                 "    c = _WS.get('k')\n"
                 "    if ws is None:\n"
                 "        ws = torch.empty(n)\n"
                 "        _WS[n] = ws\n"
                 "    return ws\n");
  std::string D = L->fn("m.getter");
  EXPECT_TRUE(hasLines(D, {"%1 = read m._WS @7:10",
                           "%2 = read %1[*] may-be-absent @7:10",
                           "%3:ws = copy %2 @7:5",
                           "%6 = read %4['k'] may-be-absent @8:9",
                           "%8 = test is-null %3:ws @9:8",
                           "%9 = alloc tensor \"torch.empty\" @10:14",
                           "store %10[*] <- %3:ws @11:9"}));
  EXPECT_TRUE(hasLines(L->fn("m"), {"%0 = alloc container @5:7",
                                    "store m._WS <- %0 @5:1"}));
}

TEST(Lower, ContainerMethodsAreElementPlaces) {
  auto L = lower(std::string(Prelude) +
                 "def f(l, d, t, k):\n"
                 "    l.append(t)\n"
                 "    d.setdefault(k, t)\n"
                 "    d.pop(k)\n"
                 "    d.clear()\n"
                 "    del d[0]\n");
  std::string D = L->fn("m.f");
  // setdefault fills only an absent key, then reads what the key holds.
  EXPECT_TRUE(hasLines(D, {"store %0:l[*] <- %2:t @6:5",
                           "store %1:d[*] <- %2:t if-absent @7:5",
                           "%5 = read %1:d[*] @7:5",
                           "%6 = read %1:d[*] may-be-absent @8:5",
                           "clear %1:d[*] @8:5", "clear %1:d[*] @9:5",
                           "clear %1:d[0] @10:5"}));
}

TEST(Lower, ForOverItemsBindsTheValueToEachSlot) {
  auto L = lower(std::string(Prelude) +
                 "def items(d):\n"
                 "    for k, v in d.items():\n"
                 "        torch.relu(v)\n"
                 "    for w in sorted(d.values()):\n"
                 "        torch.relu(w)\n");
  std::string D = L->fn("m.items");
  EXPECT_TRUE(hasLines(D, {"%1 = copy %0:d @6:17", "%4:k = copy %3 @6:9",
                           "%5 = read %0:d[each] @6:12", "%6:v = copy %5 @6:12",
                           "use %6:v \"torch.relu\" @7:20"}));
  EXPECT_TRUE(hasLines(D, {"%10 = read %0:d[each] @8:9", "%11:w = copy %10 @8:9"}));
}

TEST(Lower, UnboundContainerMethodsTakeTheirReceiverFirst) {
  auto L = lower(std::string(Prelude) +
                 "def f(d, k, t):\n"
                 "    dict.__setitem__(d, k, t)\n"
                 "    for _, v in dict.items(d):\n"
                 "        torch.relu(v)\n");
  EXPECT_TRUE(hasLines(L->fn("m.f"), {"store %0:d[*] <- %2:t @6:5",
                                      "%8 = read %0:d[each] @7:12", "%9:v = copy %8 @7:12"}));
}

TEST(Lower, ConstructorAllocatesThenCallsInit) {
  auto L = lower(std::string(Prelude) +
                 "class Cache:\n"
                 "    def fill(self, t):\n"
                 "        self.t = t\n"
                 "class Layer:\n"
                 "    def __init__(self, n):\n"
                 "        self.cache = Cache()\n"
                 "        self.n = n\n"
                 "    def run(self, x):\n"
                 "        self.cache.fill(x)\n"
                 "def make(n):\n"
                 "    return Layer(n)\n");
  EXPECT_TRUE(hasLines(L->fn("m.make"),
                       {"%1 = alloc object Layer \"Layer\" @15:12",
                        "call \"Layer.__init__\" (%1, %0:n) -> m.Layer.__init__(%1, %0:n) @15:12",
                        "ret %1 @15:5"}));
  EXPECT_TRUE(hasLines(L->fn("m.Layer.__init__"),
                       {"%2 = alloc object Cache \"Cache\" @10:22",
                        "store %0:self.cache <- %2 @10:9"}));
  // `self.cache` is a Cache (from __init__): its method is followed.
  EXPECT_TRUE(hasLines(L->fn("m.Layer.run"),
                       {"%2 = read %0:self.cache @13:9",
                        "%3 = call \"self.cache.fill\" (%2, %1:x) -> m.Cache.fill(%2, %1:x) @13:9"}));
}

TEST(Lower, DataclassFieldsTakeTheArguments) {
  auto L = lower(std::string(Prelude) +
                 "class Packed:\n"
                 "    workspace: int\n"
                 "    size: int\n"
                 "def f(t):\n"
                 "    return Packed(t, size=3)\n");
  EXPECT_TRUE(hasLines(L->fn("m.f"), {"%1 = alloc object Packed \"Packed\" @9:12",
                                      "store %1.workspace <- %0:t @9:19",
                                      "store %1.size <- %2 @9:22"}));
}

TEST(Lower, AnnotatedParametersAndAttributesResolveMethods) {
  auto L = lower(std::string(Prelude) +
                 "from typing import Optional\n"
                 "class Cache:\n"
                 "    def fill(self, t):\n"
                 "        pass\n"
                 "class Layer:\n"
                 "    store: Cache\n"
                 "    def run(self, x):\n"
                 "        self.store.fill(x)\n"
                 "class Model:\n"
                 "    layers: list[Layer]\n"
                 "    def forward(self, x):\n"
                 "        for layer in self.layers:\n"
                 "            layer.run(x)\n"
                 "def f(c: Optional['Cache'], d: \"Cache | None\", x):\n"
                 "    c.fill(x)\n"
                 "    d.fill(x)\n");
  std::string F = L->fn("m.f");
  EXPECT_TRUE(hasLines(F, {"fn m.f(%0:c: Cache, %1:d: Cache, %2:x)",
                           "%3 = call \"c.fill\" (%0:c, %2:x) -> m.Cache.fill(%0:c, %2:x) @19:5",
                           "%4 = call \"d.fill\" (%1:d, %2:x) -> m.Cache.fill(%1:d, %2:x) @20:5"}));
  EXPECT_TRUE(hasLine(L->fn("m.Layer.run"),
                      "%3 = call \"self.store.fill\" (%2, %1:x) -> m.Cache.fill(%2, %1:x) @12:9"));
  // list[Layer]: the loop variable is a Layer.
  EXPECT_TRUE(hasLine(L->fn("m.Model.forward"),
                      "%6 = call \"layer.run\" (%5:layer, %1:x) -> m.Layer.run(%5:layer, %1:x) @17:13"));
}

TEST(Lower, ReturnAnnotationsClassAndStaticMethods) {
  auto L = lower(std::string(Prelude) +
                 "class Cache:\n"
                 "    def fill(self, t):\n"
                 "        pass\n"
                 "    @classmethod\n"
                 "    def make(cls, n):\n"
                 "        return cls()\n"
                 "    @staticmethod\n"
                 "    def size(n):\n"
                 "        return n\n"
                 "def get() -> Cache:\n"
                 "    return Cache()\n"
                 "def f(c: Cache, x):\n"
                 "    get().fill(x)\n"
                 "    Cache.make(x)\n"
                 "    c.size(x)\n");
  // cls() constructs the class it is.
  EXPECT_TRUE(hasLines(L->fn("m.Cache.make"),
                       {"fn m.Cache.make(%0:cls, %1:n)",
                        "%2 = alloc object Cache \"cls\" @10:16"}));
  EXPECT_TRUE(hasLines(L->fn("m.f"),
                       {"%2 = call \"get\" () -> m.get() @17:5",
                        "%3 = call \"get().fill\" (%2, %1:x) -> m.Cache.fill(%2, %1:x) @17:5",
                        "%4 = call \"Cache.make\" (%1:x) -> m.Cache.make(_, %1:x) @18:5",
                        "%5 = call \"c.size\" (%1:x) -> m.Cache.size(%1:x) @19:5"}));
}

TEST(Lower, UnknownReceiverGetsNoTarget) {
  auto L = lower(std::string(Prelude) +
                 "class Cache:\n"
                 "    def fill(self, t):\n"
                 "        pass\n"
                 "def f(obj, x):\n"
                 "    obj.fill(x)\n");
  // A method named like an in-tree one is not guessed to be it.
  EXPECT_TRUE(hasLine(L->fn("m.f"), "%2 = call \"obj.fill\" (%0:obj, %1:x) @9:5"));
}

TEST(Lower, SelfAndSuperMethodsWithInheritance) {
  auto L = lower(std::string(Prelude) +
                 "class Base:\n"
                 "    def run(self, x):\n"
                 "        return x\n"
                 "    def helper(self, x):\n"
                 "        return x\n"
                 "class Sub(Base):\n"
                 "    def run(self, x):\n"
                 "        super().run(x)\n"
                 "        self.helper(x)\n");
  EXPECT_TRUE(hasLines(L->fn("m.Sub.run"),
                       {"%2 = call \"super().run\" (%0:self, %1:x) -> m.Base.run(%0:self, %1:x) @12:9",
                        "%3 = call \"self.helper\" (%0:self, %1:x) -> m.Base.helper(%0:self, %1:x) @13:9"}));
}

// `with` over a context manager of the program's own: its __enter__ gives
// the `as` value, its __exit__ runs at the end of the block and on a return
// from inside it.
TEST(Lower, WithCallsTheProgramsOwnEnterAndExit) {
  auto L = lower(std::string(Prelude) +
                 "class Cap:\n"
                 "    def __enter__(self):\n"
                 "        return self\n"
                 "    def __exit__(self, *exc):\n"
                 "        pass\n"
                 "def run(x):\n"
                 "    with Cap() as c:\n"
                 "        if x:\n"
                 "            return c\n"
                 "    return x\n");
  std::string D = L->fn("m.run");
  EXPECT_TRUE(hasLines(D, {"%2 = call \"__enter__\" (%1) -> m.Cap.__enter__(%1) @11:10",
                           "%3:c = copy %2 @11:19",
                           // the block's end (the join after the `if`)
                           "call \"__exit__\" (%1) -> m.Cap.__exit__(%1, _) @14:5",
                           "ret %0:x @14:5",
                           // the return from inside it
                           "call \"__exit__\" (%1) -> m.Cap.__exit__(%1, _) @13:13",
                           "ret %3:c @13:13"}))
      << D;
}

TEST(Lower, KeywordArgumentsMapToTheirParameters) {
  auto L = lower(std::string(Prelude) +
                 "def kw(a, b=None, *, c=None, **rest):\n"
                 "    return a\n"
                 "def call(x, y):\n"
                 "    kw(1, c=x, b=y)\n");
  EXPECT_TRUE(hasLine(L->fn("m.kw"), "fn m.kw(%0:a, %1:b, %2:*, %3:c, %4:**rest)"));
  EXPECT_TRUE(hasLine(L->fn("m.call"),
                      "%2 = call \"kw\" (%3, %0:x, %1:y) -> m.kw(%3, %1:y, _, %0:x, _) @8:5"));
}

TEST(Lower, PartialAndBoundMethodsHeldInLocals) {
  auto L = lower(std::string(Prelude) +
                 "class Layer:\n"
                 "    def run(self, x, y):\n"
                 "        pass\n"
                 "def g(a, b):\n"
                 "    pass\n"
                 "def f(m: Layer, a, b):\n"
                 "    h = functools.partial(m.run, a)\n"
                 "    h(b)\n"
                 "    k = m.run\n"
                 "    k(a, b)\n"
                 "    p = functools.partial(g, b=b)\n"
                 "    p(a)\n");
  std::string D = L->fn("m.f");
  EXPECT_TRUE(hasLines(D, {"%6 = call \"h\" (%0:m, %1:a, %2:b) -> m.Layer.run(%0:m, %1:a, %2:b) @12:5",
                           "%9 = call \"k\" (%0:m, %1:a, %2:b) -> m.Layer.run(%0:m, %1:a, %2:b) @14:5",
                           "%13 = call \"p\" (%2:b, %1:a) -> m.g(%1:a, %2:b) @16:5"}));
}

TEST(Lower, NestedDefsAndImportedFunctions) {
  auto L = lower({{"pkg.helpers", "def stash(t):\n    return t\n"},
                  {"pkg.main", "from pkg.helpers import stash\n"
                               "from . import helpers\n"
                               "def outer(x):\n"
                               "    def inner(y):\n"
                               "        return y\n"
                               "    stash(x)\n"
                               "    helpers.stash(x)\n"
                               "    return inner(x)\n"}});
  EXPECT_TRUE(hasLines(L->fn("pkg.main.outer"),
                       {"%1:inner = const @4:5",
                        "%2 = call \"stash\" (%0:x) -> pkg.helpers.stash(%0:x) @6:5",
                        "%3 = call \"helpers.stash\" (%0:x) -> pkg.helpers.stash(%0:x) @7:5",
                        "%4 = call \"inner\" (%0:x) -> pkg.main.outer.<locals>.inner(%0:x) @8:12"}));
}

TEST(Lower, TryBodiesReachTheirHandlers) {
  auto L = lower(std::string(Prelude) +
                 "def f(x):\n"
                 "    try:\n"
                 "        y = torch.relu(x)\n"
                 "    except ValueError:\n"
                 "        return None\n"
                 "    return y\n");
  std::string D = L->fn("m.f");
  // Entry and the body's end both branch to the handler dispatch (bb1).
  EXPECT_TRUE(hasLines(D, {"bb0:", "br %1 bb3 bb1 @6:5", "bb1:", "br %5 bb6 bb7 @8:5",
                           "bb3:", "%3:y = copy %2 @7:9", "br %4 bb4 bb1 @6:5",
                           "bb5:", "raise @6:5", "bb6:", "ret %6 @9:9"}));
}

TEST(Lower, RaiseInsideTryGoesToTheHandler) {
  auto L = lower(std::string(Prelude) +
                 "def f(g, x):\n"
                 "    try:\n"
                 "        with torch.npu.graph(g):\n"
                 "            raise ValueError()\n"
                 "    except ValueError:\n"
                 "        pass\n"
                 "    raise ValueError()\n");
  std::string D = L->fn("m.f");
  EXPECT_TRUE(hasLines(D, {"begin capture @7:9", "end capture @8:13", "goto bb1 @8:13"}));
  EXPECT_TRUE(hasLine(D, "raise @11:5"));
}

TEST(Lower, DelKillsALocalAndClearsAPlace) {
  auto L = lower(std::string(Prelude) +
                 "class C:\n"
                 "    def f(self, x, d, k):\n"
                 "        del x\n"
                 "        del d[k], self.ws\n");
  EXPECT_TRUE(hasLines(L->fn("m.C.f"), {"kill %1:x @7:9", "clear %2:d[*] @8:9",
                                        "clear %0:self.ws @8:9"}));
}

TEST(Lower, GlobalsOfAnotherModuleAreReadThroughTheirObject) {
  auto L = lower({{"pkg.state", "CACHE = {}\nclass P:\n    pass\nPARAMS = P()\n"},
                  {"pkg.main", "from pkg import state\n"
                               "def f(k, t):\n"
                               "    state.CACHE.get(k)\n"
                               "    state.PARAMS.ws = t\n"
                               "    return state.PARAMS.ws\n"}});
  EXPECT_TRUE(hasLines(L->fn("pkg.main.f"),
                       {"%2 = read pkg.state.CACHE @3:5",
                        "%3 = read %2[*] may-be-absent @3:5",
                        "%4 = read pkg.state.PARAMS @4:5", "store %4.ws <- %1:t @4:5",
                        "%5 = read pkg.state.PARAMS @5:12", "%6 = read %5.ws @5:12"}));
}

TEST(Lower, GlobalStatementStoresTheModuleGlobal) {
  auto L = lower(std::string(Prelude) +
                 "G = None\n"
                 "def f():\n"
                 "    global G\n"
                 "    G = torch.empty(1)\n"
                 "    return G\n");
  EXPECT_TRUE(hasLines(L->fn("m.f"), {"%1 = alloc tensor \"torch.empty\" @8:9",
                                      "store m.G <- %1 @8:5", "%2 = read m.G @9:12",
                                      "ret %2 @9:5"}));
  EXPECT_TRUE(hasLines(L->fn("m"), {"%0 = null @5:5", "store m.G <- %0 @5:1"}));
}

TEST(Lower, WeakRefOfATupleIsElementWise) {
  auto L = lower(std::string(Prelude) +
                 "def f(a, b):\n"
                 "    return weak_ref_tensors((a, b))\n");
  EXPECT_EQ(L->fn("m.f"), "fn m.f(%0:a, %1:b)\n"
                          "bb0:\n"
                          "  %2 = alloc container @6:29\n"
                          "  %3 = weak %0:a \"weak_ref_tensors\" @6:12\n"
                          "  store %2[0] <- %3 @6:30\n"
                          "  %4 = weak %1:b \"weak_ref_tensors\" @6:12\n"
                          "  store %2[1] <- %4 @6:33\n"
                          "  ret %2 @6:5\n");
}

TEST(Lower, NoneFilledContainers) {
  auto L = lower(std::string(Prelude) +
                 "from collections import defaultdict\n"
                 "A = {k: None for k in range(4)}\n"
                 "B = dict.fromkeys(range(4))\n"
                 "C = defaultdict(lambda: None)\n");
  std::string D = L->fn("m");
  EXPECT_TRUE(hasLines(D, {"%4 = read %2[each] @6:18", "%5:k = copy %4 @6:18",
                           "%6 = null @6:9", "store %0[*] <- %6 @6:9",
                           "store m.A <- %0 @6:1",
                           "%7 = alloc container \"dict.fromkeys\" @7:5",
                           "%8 = null @7:5", "store %7[*] <- %8 @7:5",
                           "%11 = alloc container \"defaultdict\" @8:5",
                           "%12 = null @8:25", "store %11[*] <- %12 @8:25"}));
}

TEST(Lower, CaptureBeginEndStreamsAndWorkspaces) {
  auto L = lower(std::string(Prelude) +
                 "def f(graph, s, q, n):\n"
                 "    graph.capture_begin()\n"
                 "    with torch.npu.stream(s):\n"
                 "        workspace = torch.empty(n)\n"
                 "    ws = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q)\n"
                 "    graph.capture_end()\n");
  std::string D = L->fn("m.f");
  EXPECT_TRUE(hasLines(D, {"begin capture @6:5", "begin stream s @7:5",
                           "%6 = alloc workspace sized \"torch.empty\" @8:21",
                           "end stream s @9:5",
                           "use %2:q \"torch_npu._npu_fused_infer_attention_score_get_max_workspace\" @9:71",
                           "%8 = alloc workspace \"torch_npu._npu_fused_infer_attention_score_get_max_workspace\" @9:10",
                           "end capture @10:5"}));
}

TEST(Lower, TestsOfNoneMembershipAndSize) {
  auto L = lower(std::string(Prelude) +
                 "def f(d, ws, need, x):\n"
                 "    if 'k' not in d:\n"
                 "        return 1\n"
                 "    if ws.numel() < need:\n"
                 "        return 2\n"
                 "    if x is not None:\n"
                 "        return 3\n");
  std::string D = L->fn("m.f");
  EXPECT_TRUE(hasLines(D, {"%4 = test empty %0:d['k'] @6:8", "br %4 bb2 bb3 @6:8",
                           "%6 = test size-check %1:ws @8:8",
                           "%8 = test is-null %3:x @10:8", "br %8 bb9 bb8 @10:8"}));
}

TEST(Lower, TooDeepFunctionsAreEmpty) {
  std::string Deep = "(" + std::string(1000, '(') + "x" + std::string(1000, ')') + ")";
  auto L = lower("def f(x):\n    return " + Deep + "\n");
  EXPECT_EQ(L->fn("m.f"), "fn m.f(%0:x)\nbb0:\n  ret _ @2:5\n");
}

TEST(Lower, NeverCrashesOnBrokenTrees) {
  // Shapes validation rejects, and error trees: lowered without a crash.
  for (const char *Src :
       {"x = a:b.c\ndef f(a):\n    x = a:b.c\n    y = z = w: int\n    return x\n",
        "def f(a, a=1, b):\n    x = y += 1\n    x += y = a\n    *s = a\n"
        "    t = a as b\n    with a as f(): pass\n    del f(), 1\n    g(k=1, a)\n"
        "    for *r in a: pass\n    return [q for q in a, b]\nclass C:\n"
        "    yield 1\nreturn 2\n",
        "def f(:\n  with (\n", "break\ncontinue\nreturn\nraise\n",
        "def f():\n    try:\n        pass\n    finally:\n        return\n",
        "match x:\n    case 1:\n        f()\n    case _:\n        g()\n",
        "def f(x):\n    return [y async for y in x if y] + {**x} + (*x,)\n"}) {
    auto L = lower(Src);
    EXPECT_FALSE(engine::dump(L->Prog).empty());
  }
}

TEST(Lower, APoolGivesTheSameProgram) {
  std::string Src = std::string(Prelude);
  for (int I = 0; I < 300; ++I)
    Src += "class C" + std::to_string(I) + ":\n    def run(self, x):\n"
           "        return weak_ref_tensors(x)\n"
           "def f" + std::to_string(I) + "(c: C" + std::to_string(I) + ", x):\n"
           "    with torch.npu.graph(g):\n        c.run(x)\n";
  auto Serial = lower(Src);
  {
    auto Again = lower(Src); // a fresh package, lowered again with a pool
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(4));
    EXPECT_EQ(engine::dump(lowerPackage(Again->P, &Pool)), engine::dump(Serial->Prog));
  }
}

TEST(Lower, ATreeFreedWhenItsModuleIsLoweredChangesNothing) {
  // Done frees each module's tree as the frontend does: a tree freed while
  // a function of its module was still to lower would leave that function
  // empty (or be read after it was freed, which the sanitizer build sees).
  std::vector<std::pair<std::string, std::string>> Mods;
  for (int M = 0; M < 12; ++M) {
    std::string Src = std::string(Prelude);
    for (int I = 0; I < 40; ++I)
      Src += "def f" + std::to_string(I) + "(x):\n"
             "    with torch.npu.graph(g):\n        y = weak_ref_tensors(x)\n"
             "    return y\n";
    Mods.push_back({"m" + std::to_string(M), Src});
  }
  auto Serial = lower(Mods);
  auto Again = lower(Mods);
  std::vector<int> Calls(Mods.size(), 0);
  std::mutex Mu;
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(4));
  engine::Program Prog = lowerPackage(
      Again->P, &Pool, nullptr, nullptr, [&](int Mod) {
        Module &M = *Again->P.Modules[Mod];
        delete M.Tree;
        M.Tree = nullptr;
        std::lock_guard<std::mutex> Lock(Mu);
        ++Calls[Mod];
      });
  EXPECT_EQ(engine::dump(Prog), engine::dump(Serial->Prog));
  for (int N : Calls)
    EXPECT_EQ(N, 1);
}

TEST(Lower, LongStatementsStayLinear) {
  // statement-size.test's shapes, each far below a second.
  std::string Tuple, Values;
  for (int I = 0; I < 30000; ++I) {
    Tuple += (I ? ", a" : "a") + std::to_string(I);
    Values += (I ? ", b" : "b") + std::to_string(I);
  }
  std::string Elif = "def f(x):\n    if x == 0:\n        y0 = 0\n";
  for (int I = 1; I < 5000; ++I)
    Elif += "    elif x == " + std::to_string(I) + ":\n        y = g(x)\n";
  std::string Kw = "def g(**k):\n    pass\ng(";
  for (int I = 0; I < 30000; ++I)
    Kw += "k" + std::to_string(I) + "=a" + std::to_string(I) + ", ";
  Kw += ")\n";
  for (const std::string &Src : {Tuple + " = " + Values + "\n", Elif, Kw}) {
    auto L = lower(Src);
    EXPECT_FALSE(L->Prog.Functions.empty());
  }
}

} // namespace
