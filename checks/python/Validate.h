//===- Validate.h - Trees tree-sitter accepts and CPython rejects ---------===//
//
// tree-sitter-python's grammar is looser than CPython's: it parses
// `x = a:b.c` without an error node, as an assignment whose right side is an
// annotated assignment, and accepts targets, argument orders and nestings
// that CPython refuses. Such a file is not Python; the walks must not meet
// it. One iterative pass over the tree (no recursion: the tree may be as
// deep as the input allows) finds the first such shape, and the file gets
// the one-line syntax error every other broken file gets. Each rule is one
// CPython's compile() enforces (checked against it; see the regression
// inputs in test/checks/python/Inputs/rejected-shapes/).
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_VALIDATE_H
#define TETHER_PYTHON_VALIDATE_H

#include <string>
#include <string_view>
#include "SyntaxTree.h"
#include <unordered_set>

namespace tether::python {

/// Whether CPython would accept the error-free tree Root of Src. When not,
/// Problem is set to the file's one-line problem ("syntax error at line L,
/// column C (why); not analysed"). When accepted and TooDeep is given, it
/// is set to tooDeepScopes(Root), measured in the same walk (Nesting.h).
bool acceptedByCPython(SyntaxNode Root, std::string_view Src, std::string &Problem,
                       std::unordered_set<const void *> *TooDeep = nullptr);

} // namespace tether::python

#endif
