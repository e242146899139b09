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
// MaxNesting bounds the stack a walk needs: measured on every construct of
// test/checks/python/deep-nesting.test at 396 levels, a release build walks
// each in a 1 MiB stack (`ulimit -s 1024`; about 1.3 KiB per level), the
// ASan+UBSan build in 4 MiB. The walks run on ThreadPool threads, which
// llvm::thread creates without a stack size on Linux, so with the pthread
// default (from RLIMIT_STACK: 8 MiB here, as the main thread's): the
// budget leaves most of it free. Real code stays far below it: over the
// 2,270 files of /usr/lib/python3* and dist-packages on the development
// machine, the deepest whole file is 88 levels (a generated table).
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_NESTING_H
#define TETHER_PYTHON_NESTING_H

#include <unordered_set>
#include "SyntaxTree.h"

namespace tether::python {

inline constexpr unsigned MaxNesting = 400;

/// The key of a module's top level in tooDeepScopes' set (every other
/// scope is keyed by its node's id).
inline constexpr const void *TopLevelScope = nullptr;

/// Where a node sits for the budget: its scope (as keyed in tooDeepScopes'
/// set) and how many levels below the scope's own node. The validation pass
/// (Validate.h) walks every node anyway and measures with it in that walk.
struct NestingLevel {
  const void *Scope = TopLevelScope;
  unsigned Depth = 0;
  bool tooDeep() const { return Depth > MaxNesting; }
  /// The level of C, a child of the node at this level.
  NestingLevel child(SyntaxNode C) const;
};

/// The scopes under Root (function_definition and class_definition nodes
/// by their ids, and TopLevelScope for Root's own level) in which some node
/// lies more than MaxNesting levels below the scope's own node; nested
/// functions and classes are scopes of their own.
std::unordered_set<const void *> tooDeepScopes(SyntaxNode Root);

} // namespace tether::python

#endif
