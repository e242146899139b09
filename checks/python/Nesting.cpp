//===- Nesting.cpp - How deep each function's syntax goes -----------------===//
#include "Nesting.h"
#include "NodeAccess.h"

#include <vector>

using namespace tether::python;

NestingLevel NestingLevel::child(SyntaxNode C) const {
  const Grammar &G = Grammar::get();
  TSSymbol K = kindOf(C);
  // Past the budget the scope stays the one that went too deep (no
  // function or class lies there: statements nest at most 100 deep,
  // Validate.cpp, far less than MaxNesting levels of the tree).
  if (!tooDeep() && (K == G.FunctionDef || K == G.ClassDef))
    return {C.id(), 0};
  return {Scope, Depth + 1};
}

std::unordered_set<const void *> tether::python::tooDeepScopes(SyntaxNode Root) {
  struct Item {
    SyntaxNode N;
    NestingLevel L;
  };
  std::unordered_set<const void *> Out;
  std::vector<Item> Work{{Root, {}}};
  while (!Work.empty()) {
    Item It = Work.back();
    Work.pop_back();
    if (It.L.tooDeep()) {
      Out.insert(It.L.Scope);
      continue; // the scope is not analysed: nothing below matters
    }
    eachChild(It.N, true, [&](SyntaxNode C, TSFieldId) {
      Work.push_back({C, It.L.child(C)});
    });
  }
  return Out;
}
