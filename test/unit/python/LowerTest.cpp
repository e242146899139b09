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

#include "gtest/gtest.h"
#include <memory>

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
    M->Tree = ts_parser_parse_string(Parser, nullptr, M->Source.data(),
                                     (uint32_t)M->Source.size());
    P.ModuleByName.emplace(Name, (int)P.Modules.size());
    P.Modules.push_back(std::move(M));
  }
  ts_parser_delete(Parser);
  for (size_t I = 0; I < P.Modules.size(); ++I) {
    Package::IndexOut O;
    P.indexModule((int)I, O);
    P.adopt((int)I, std::move(O));
  }
  P.resolveBases();
  L->Prog = lowerPackage(P);
  return L;
}

std::unique_ptr<Lowered> lower(const std::string &Src) {
  return lower({{"m", Src}});
}

TEST(Lower, Smoke) {
  auto L = lower("import torch\n"
                 "from vllm_ascend.utils import weak_ref_tensors\n"
                 "_WS = {}\n"
                 "class C:\n"
                 "    def __init__(self, n):\n"
                 "        self.n = n\n"
                 "    def m(self, x):\n"
                 "        return torch.relu(x)\n"
                 "def f(ctx, q, n):\n"
                 "    if ctx.capturing:\n"
                 "        ws = _WS.get(n)\n"
                 "        if ws is None:\n"
                 "            ws = torch.empty(n)\n"
                 "            _WS[n] = weak_ref_tensors(ws)\n"
                 "        c = C(n)\n"
                 "        c.m(q)\n"
                 "        return q\n"
                 "    with torch.npu.graph(g):\n"
                 "        for k, v in _WS.items():\n"
                 "            torch.relu(v, out=q)\n"
                 "    return None\n");
  std::string S = engine::dump(L->Prog);
  llvm::errs() << S;
}

} // namespace
