//===- LowerFuzzer.cpp - Bytes as one module, straight into the lowering --===//
//
// The lowering must not crash on any tree tree-sitter produces, so this
// harness skips the loader's validation (which rejects error trees and the
// shapes of Validate.cpp) and lowers whatever the parser made of the bytes:
// ERROR nodes, MISSING tokens and fields the grammar leaves out included.
//
//===----------------------------------------------------------------------===//
#include "Lower.h"
#include "Model.h"
#include "Syntax.h"

#include <memory>

using namespace tether;
using namespace tether::python;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static CatalogProvider Cats;
  static const std::shared_ptr<const CompiledCatalog> Cat = *Cats.forFile("m.py");
  static TSParser *Parser = [] {
    TSParser *P = ts_parser_new();
    ts_parser_set_language(P, Grammar::get().Lang);
    return P;
  }();
  Package P;
  auto M = std::make_unique<Module>();
  M->Name = "m";
  M->Path = "m.py";
  M->Source.assign(reinterpret_cast<const char *>(Data), Size);
  M->Cat = Cat;
  M->Tree = parseSyntax(Parser, M->Source).release();
  if (!M->Tree)
    return 0;
  P.ModuleByName.emplace("m", 0);
  P.Modules.push_back(std::move(M));
  Package::IndexOut O;
  P.indexModule(0, O);
  P.adopt(0, std::move(O));
  P.resolveBases();
  engine::Program Prog = lowerPackage(P);
  // Every variable an instruction names exists in its function.
  for (const engine::Function &F : Prog.Functions)
    for (const engine::Block &B : F.Blocks)
      for (const engine::Inst &I : B.Insts)
        for (engine::VarId V : {I.Dst, I.A, I.P.Base})
          if (V != engine::NoVar && size_t(V) >= F.VarNames.size())
            __builtin_trap();
  return 0;
}
