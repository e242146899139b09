//===- SyntaxTree.h - A parsed module, flattened for the walks ------------===//
//
// tree-sitter hands out its tree through a cursor and through node handles
// that each recompute their position from the root's subtrees: a step to a
// sibling costs a few hundred instructions, and every pass of the frontend
// (validation, nesting, imports, the index, the type table, the lowering)
// walked the whole tree that way again. A SyntaxTree is the same tree read
// once, right after the parse, into one array in document order (a node's
// first child is the next entry; siblings are linked), after which the
// tree-sitter tree is freed. Only visible nodes are kept, as tree-sitter's
// node API shows them: named and anonymous, with the field each child has
// in its parent, and the error, missing and extra flags. Rows and columns
// are not kept per node: they follow from a node's byte offsets and the
// text's line starts (an entry of 28 bytes instead of 44; a run over a real
// package holds hundreds of thousands of entries, and on a virtual machine
// every fresh page costs a fault).
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_SYNTAXTREE_H
#define TETHER_PYTHON_SYNTAXTREE_H

#include "common/LineStarts.h"
#include <cstdint>
#include <memory>
#include <string_view>
#include <tree_sitter/api.h>
#include <vector>

namespace tether::python {

class SyntaxTree;

/// One node of a SyntaxTree, or the null node (no tree). Cheap to copy.
struct SyntaxNode {
  const SyntaxTree *Tree = nullptr;
  uint32_t Index = 0;

  /// What identifies the node while its tree lives (the scopes of
  /// Nesting.h are kept by it).
  const void *id() const;
  bool operator==(const SyntaxNode &O) const {
    return Tree == O.Tree && Index == O.Index;
  }
};

class SyntaxTree {
public:
  /// Reads the whole of Source (a tree tree-sitter parsed from Text, or
  /// from a rewrite of it with the same line breaks); Source may be deleted
  /// afterwards, and Text need not outlive the tree.
  SyntaxTree(const TSTree *Source, std::string_view Text);

  SyntaxNode root() const { return {this, 0}; }

  struct Entry {
    uint32_t StartByte, EndByte;
    uint32_t Parent;      ///< The root's is itself.
    uint32_t NextSibling; ///< 0: the last child (the root is no sibling).
    uint32_t ChildCount;  ///< Visible children; the first is the next entry.
    TSSymbol Symbol;
    TSFieldId Field; ///< In the parent; 0: none.
    uint8_t Flags;
  };
  enum : uint8_t { Named = 1, Missing = 2, Extra = 4, HasError = 8 };

  const Entry &at(uint32_t I) const { return Nodes[I]; }
  size_t size() const { return Nodes.size(); }
  /// Row and column (in bytes) of byte offset Byte, as tree-sitter counts
  /// them: a row ends at each '\n'.
  TSPoint pointAt(uint32_t Byte) const;

private:
  std::vector<Entry> Nodes;
  LineStarts Lines;
};

inline const void *SyntaxNode::id() const {
  return Tree ? &Tree->at(Index) : nullptr;
}

// The accessors tree-sitter's node API offers, on a SyntaxNode that is not
// null (NodeAccess.h has the null-safe forms).
inline const SyntaxTree::Entry &entryOf(SyntaxNode N) {
  return N.Tree->at(N.Index);
}
inline bool isNull(SyntaxNode N) { return N.Tree == nullptr; }
inline TSSymbol symbolOf(SyntaxNode N) { return entryOf(N).Symbol; }
inline uint32_t startByte(SyntaxNode N) { return entryOf(N).StartByte; }
inline uint32_t endByte(SyntaxNode N) { return entryOf(N).EndByte; }
inline TSPoint startPoint(SyntaxNode N) {
  return N.Tree->pointAt(entryOf(N).StartByte);
}
inline TSPoint endPoint(SyntaxNode N) {
  return N.Tree->pointAt(entryOf(N).EndByte);
}
inline uint32_t childCount(SyntaxNode N) { return entryOf(N).ChildCount; }
inline bool isNamed(SyntaxNode N) {
  return entryOf(N).Flags & SyntaxTree::Named;
}
inline bool isMissing(SyntaxNode N) {
  return entryOf(N).Flags & SyntaxTree::Missing;
}
inline bool isExtra(SyntaxNode N) {
  return entryOf(N).Flags & SyntaxTree::Extra;
}
inline bool hasError(SyntaxNode N) {
  return entryOf(N).Flags & SyntaxTree::HasError;
}
inline SyntaxNode parentNode(SyntaxNode N) {
  return N.Index == 0 ? SyntaxNode{} : SyntaxNode{N.Tree, entryOf(N).Parent};
}
/// The grammar's name of N's kind ("identifier", "==").
const char *typeName(SyntaxNode N);

/// Visit the children of N in order (named only when NamedOnly), with the
/// field each has in N.
template <typename Fn> void forEachChild(SyntaxNode N, bool NamedOnly, Fn &&F) {
  const SyntaxTree &T = *N.Tree;
  if (T.at(N.Index).ChildCount == 0)
    return;
  for (uint32_t C = N.Index + 1; C; C = T.at(C).NextSibling) {
    const SyntaxTree::Entry &E = T.at(C);
    if (!NamedOnly || (E.Flags & SyntaxTree::Named))
      F(SyntaxNode{&T, C}, E.Field);
  }
}

/// The first child of N with field F, or the null node.
inline SyntaxNode childByField(SyntaxNode N, TSFieldId F) {
  const SyntaxTree &T = *N.Tree;
  if (T.at(N.Index).ChildCount == 0 || F == 0)
    return {};
  for (uint32_t C = N.Index + 1; C; C = T.at(C).NextSibling)
    if (T.at(C).Field == F)
      return {&T, C};
  return {};
}

/// Text parsed as it is (no recovery step, no checks), flattened.
std::unique_ptr<SyntaxTree> parseSyntax(TSParser *Parser, std::string_view Text);

/// The I-th child of N (anonymous ones counted), or the null node.
SyntaxNode childAt(SyntaxNode N, uint32_t I);

} // namespace tether::python

#endif
