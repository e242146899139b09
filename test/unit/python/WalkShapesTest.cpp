//===- WalkShapesTest.cpp - The lowering meets shapes validation rejects --===//
//
// load() rejects `x = a:b.c` and the other shapes of Validate.cpp before any
// lowering, but the lowering must not depend on it: a tree with a field
// missing where one was expected (the right side of the inner assignment of
// `x = a:b.c` crashed the old walk) is lowered and analysed here directly,
// bypassing load().
//
//===----------------------------------------------------------------------===//
#include "Lower.h"
#include "Model.h"
#include "Syntax.h"
#include "engine/Engine.h"

#include "gtest/gtest.h"
#include <memory>

using namespace tether;
using namespace tether::python;

namespace {

void walkUnvalidated(const std::string &Src) {
  Package P;
  auto M = std::make_unique<Module>();
  M->Name = "m";
  M->Path = "m.py";
  M->Source = Src;
  CatalogProvider Cats;
  auto Cat = Cats.forFile("m.py");
  ASSERT_TRUE(bool(Cat));
  M->Cat = *Cat;
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, Grammar::get().Lang);
  M->Tree = parseSyntax(Parser, M->Source).release();
  ts_parser_delete(Parser);
  P.ModuleByName.emplace("m", 0);
  P.Modules.push_back(std::move(M));
  P.indexAll();
  engine::Program Prog = lowerPackage(P);
  engine::analyze(Prog);
}

TEST(WalkShapes, AnnotatedAssignmentInChainAtTopLevelAndInFunctions) {
  walkUnvalidated("x = a:b.c\n"
                  "def f(a):\n"
                  "    x = a:b.c\n"
                  "    y = z = w: int\n"
                  "    return x\n");
}

TEST(WalkShapes, AugmentedAndStarredAndAsShapes) {
  walkUnvalidated("def f(a, a=1, b):\n"
                  "    x = y += 1\n"
                  "    x += y = a\n"
                  "    *s = a\n"
                  "    t = a as b\n"
                  "    with a as f(): pass\n"
                  "    del f(), 1\n"
                  "    g(k=1, a)\n"
                  "    for *r in a: pass\n"
                  "    return [q for q in a, b]\n"
                  "class C:\n"
                  "    yield 1\n"
                  "return 2\n");
}

} // namespace
