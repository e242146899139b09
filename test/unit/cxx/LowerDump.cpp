//===- LowerDump.cpp - A developer's dump of the C++ lowering -------------===//
//
//   tether-cxx-lower-dump FILE [-- COMPILER_ARGS...]
//
// Prints the IR every function of FILE lowers to (engine::dump), for
// iterating on inputs without the checks. Compiler arguments default to
// -std=c++17.
//
//===----------------------------------------------------------------------===//
#include "engine/Dump.h"
#include "lower/Lower.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tether;

int main(int argc, char **argv) {
  if (argc < 2 || llvm::StringRef(argv[1]).starts_with("-")) {
    llvm::errs() << "usage: tether-cxx-lower-dump FILE [-- COMPILER_ARGS...]\n";
    return 2;
  }
  auto Buf = llvm::MemoryBuffer::getFile(argv[1]);
  if (!Buf) {
    llvm::errs() << "tether-cxx-lower-dump: cannot read " << argv[1] << ": "
                 << Buf.getError().message() << "\n";
    return 2;
  }
  std::vector<std::string> Args = {"-resource-dir", TETHER_CLANG_RESOURCE_DIR};
  int First = argc > 2 && llvm::StringRef(argv[2]) == "--" ? 3 : argc;
  for (int I = First; I < argc; ++I)
    Args.push_back(argv[I]);
  if (First == argc)
    Args.push_back("-std=c++17");
  auto AST = clang::tooling::buildASTFromCodeWithArgs((*Buf)->getBuffer(), Args,
                                                      argv[1]);
  if (!AST) {
    llvm::errs() << "tether-cxx-lower-dump: clang could not parse " << argv[1]
                 << "\n";
    return 2;
  }
  const CompiledCatalog Cat(Catalog::defaults());
  cxx::LoweredTU TU = cxx::lowerTranslationUnit(AST->getASTContext(), Cat);
  llvm::outs() << engine::dump(TU.Program);
  return 0;
}
