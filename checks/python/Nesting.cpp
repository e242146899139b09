//===- Nesting.cpp - How deep each function's syntax goes -----------------===//
#include "Nesting.h"
#include "NodeAccess.h"

#include <vector>

using namespace tether::python;

std::unordered_set<const void *> tether::python::tooDeepScopes(TSNode Root) {
  const Grammar &G = Grammar::get();
  struct Item {
    TSNode N;
    const void *Scope; ///< The id of the scope's node.
    unsigned Depth;    ///< Below the scope's node.
  };
  std::unordered_set<const void *> Out;
  std::vector<Item> Work{{Root, TopLevelScope, 0}};
  while (!Work.empty()) {
    Item It = Work.back();
    Work.pop_back();
    if (It.Depth > MaxNesting) {
      Out.insert(It.Scope);
      // No function or class lies below: statements nest at most 100 deep
      // (Validate.cpp), far less than MaxNesting levels of the tree.
      continue;
    }
    eachChild(It.N, true, [&](TSNode C, TSFieldId) {
      TSSymbol K = kindOf(C);
      if (K == G.FunctionDef || K == G.ClassDef)
        Work.push_back({C, C.id, 0});
      else
        Work.push_back({C, It.Scope, It.Depth + 1});
    });
  }
  return Out;
}
