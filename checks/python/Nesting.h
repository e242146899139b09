//===- Nesting.h - How deep each function's syntax goes -------------------===//
//
// The walks recurse on the syntax tree (expressions nest, and so do the
// helpers that read dotted names), and valid Python nests as deep as its
// author likes: an `or` chain of 8,000 operands is a tree 8,000 deep. Rather
// than bound every recursive helper separately, each function (and each
// module's top level, and each class body, whose bases are read) is
// measured once, by an iterative pass, before anything recurses on it: a
// scope deeper than MaxNesting is not analysed, and its file gets the
// problem "... too deeply nested; not analysed".
//
// MaxNesting is chosen so that a walk at that depth needs well under 1 MiB
// of stack in a release build (about 2 MiB under ASan+UBSan): the walks run
// on ThreadPool threads, whose stacks are the platform default (8 MiB on
// Linux, from RLIMIT_STACK), and the budget must hold with a smaller limit
// too. Real code stays far below it: the deepest scope in the Python
// standard library and dist-packages of the development machine is 43.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_NESTING_H
#define TETHER_PYTHON_NESTING_H

#include <unordered_set>
#include <tree_sitter/api.h>

namespace tether::python {

inline constexpr unsigned MaxNesting = 400;

/// The scopes under Root (function_definition and class_definition nodes,
/// and Root itself for the top level) in which some node lies more than
/// MaxNesting levels below the scope's own node; nested functions and
/// classes are scopes of their own.
std::unordered_set<const void *> tooDeepScopes(TSNode Root);

} // namespace tether::python

#endif
