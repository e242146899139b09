//===- LowerDump.cpp - Print the Python lowering of some files ------------===//
//
// A developer's view of the IR the engine is handed: each file given is one
// module of a package (named by its file name), lowered as the CLI lowers
// it, and every function's IR is printed as engine::dump writes it.
//
//===----------------------------------------------------------------------===//
#include "Lower.h"
#include "Model.h"
#include "Syntax.h"
#include "engine/Dump.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>

using namespace tether;
using namespace tether::python;

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    llvm::errs() << "usage: tether-python-lower-dump FILE.py...\n";
    return 2;
  }
  CatalogProvider Cats;
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, Grammar::get().Lang);
  Package P;
  for (int A = 1; A < Argc; ++A) {
    auto Buf = llvm::MemoryBuffer::getFile(Argv[A]);
    auto Cat = Cats.forFile(Argv[A]);
    if (!Buf || !Cat) {
      llvm::errs() << "tether-python-lower-dump: cannot read " << Argv[A]
                   << "\n";
      return 2;
    }
    auto M = std::make_unique<Module>();
    M->Name = llvm::sys::path::stem(Argv[A]).str();
    M->Path = Argv[A];
    M->Source = (*Buf)->getBuffer().str();
    M->Cat = *Cat;
    M->Tree = parseSyntax(Parser, M->Source).release();
    P.ModuleByName.emplace(M->Name, (int)P.Modules.size());
    P.Modules.push_back(std::move(M));
  }
  ts_parser_delete(Parser);
  P.indexAll();
  engine::Program Prog = lowerPackage(P);
  llvm::outs() << engine::dump(Prog);
  return 0;
}
