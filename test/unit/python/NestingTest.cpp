//===- NestingTest.cpp - Scopes too deep to walk are left out -------------===//
#include "Model.h"
#include "Nesting.h"
#include "Syntax.h"

#include "gtest/gtest.h"
#include <memory>

using namespace tether::python;

namespace {

/// A package of one module "m" holding Src, indexed.
std::unique_ptr<Package> indexed(const std::string &Src) {
  auto P = std::make_unique<Package>();
  auto M = std::make_unique<Module>();
  M->Name = "m";
  M->Path = "m.py";
  M->Source = Src;
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, Grammar::get().Lang);
  M->Tree = parseSyntax(Parser, M->Source).release();
  ts_parser_delete(Parser);
  P->ModuleByName.emplace("m", 0);
  P->Modules.push_back(std::move(M));
  Package::IndexOut O;
  P->indexModule(0, O);
  P->adopt(0, std::move(O));
  return P;
}

const Function *named(const Package &P, const std::string &Name) {
  for (const Function &F : P.Functions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

std::string callChain(unsigned N) {
  std::string S = "f";
  for (unsigned I = 0; I < N; ++I)
    S += "()";
  return S;
}

TEST(Nesting, FunctionDeeperThanTheBudgetIsLeftOutWithOneProblem) {
  auto P = indexed("def deep(x):\n    return " + callChain(MaxNesting + 10) +
                   "\n\ndef shallow(x):\n    return f(x)\n");
  ASSERT_TRUE(named(*P, "deep") && named(*P, "shallow"));
  EXPECT_TRUE(named(*P, "deep")->TooDeep);
  EXPECT_FALSE(named(*P, "shallow")->TooDeep);
  EXPECT_FALSE(P->Functions[P->Modules[0]->Body].TooDeep);
  ASSERT_EQ(P->Modules[0]->Problems.size(), 1u);
  EXPECT_EQ(P->Modules[0]->Problems[0],
            "function 'deep' at line 1 is too deeply nested; not analysed");
}

TEST(Nesting, NestingWithinTheBudgetIsWalked) {
  // A module, a def, a block and a return statement sit above the chain.
  auto P = indexed("def f(x):\n    return " + callChain(MaxNesting - 10) + "\n");
  EXPECT_FALSE(named(*P, "f")->TooDeep);
  EXPECT_TRUE(P->Modules[0]->Problems.empty());
}

TEST(Nesting, TopLevelAndClassBasesHaveBudgetsOfTheirOwn) {
  std::string Attrs = "x";
  for (unsigned I = 0; I < MaxNesting + 10; ++I)
    Attrs += ".a";
  auto P = indexed("y = " + callChain(MaxNesting + 10) + "\nclass C(" + Attrs +
                   "):\n    def m(self):\n        return 1\n");
  const Module &M = *P->Modules[0];
  EXPECT_TRUE(P->Functions[M.Body].TooDeep);
  // The class's methods are scopes of their own, still indexed and walked.
  ASSERT_TRUE(named(*P, "m"));
  EXPECT_FALSE(named(*P, "m")->TooDeep);
  ASSERT_EQ(M.Problems.size(), 2u);
  EXPECT_EQ(M.Problems[0], "class 'C' at line 2 is too deeply nested; not analysed");
  EXPECT_EQ(M.Problems[1],
            "the top-level code at line 1 is too deeply nested; not analysed");
  ASSERT_EQ(P->Classes.size(), 1u);
  EXPECT_TRUE(P->Classes[0].BaseNames.empty());
}

} // namespace
