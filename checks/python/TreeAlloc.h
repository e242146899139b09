//===- TreeAlloc.h - tree-sitter's memory, in large chunks ----------------===//
//
// A scan keeps every module's syntax tree (millions of small nodes) until
// the functions are walked. Through malloc, that memory arrives one 4 KiB
// page fault at a time, which on virtual machines costs more than parsing
// the nodes. installTreeAllocator() gives tree-sitter an allocator that
// carves small blocks out of 32 MiB chunks backed by transparent huge pages,
// with per-thread free lists (blocks freed by exiting threads are kept for
// the next ones), and per-thread arenas for parses whose trees are dropped
// whole (TreeArena). Chunks are kept for the life of the process. Under
// AddressSanitizer it is not installed, so that ASan checks tree memory.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_TREEALLOC_H
#define TETHER_PYTHON_TREEALLOC_H

namespace tether::python {

/// Install the allocator (once; before the first parser or tree exists).
void installTreeAllocator();

/// While a TreeArena lives, what tree-sitter allocates on this thread is
/// carved from the thread's arena and never freed one by one: when it ends,
/// the whole parse (parser, trees, cursors) is garbage, and the next
/// TreeArena on the thread reuses the memory. A parse whose tree is
/// flattened right away (SyntaxTree.h) so skips ts_tree_delete, a walk over
/// every subtree that cost about a twentieth of a cold run. When
/// discards() is false (the allocator is not installed: under ASan, or
/// before installTreeAllocator) tree-sitter's objects must be deleted as
/// usual. Not nested; whatever tree-sitter object is made inside must not
/// be used after it.
class TreeArena {
public:
  TreeArena();
  ~TreeArena();
  TreeArena(const TreeArena &) = delete;
  TreeArena &operator=(const TreeArena &) = delete;
  bool discards() const { return Discards; }

private:
  bool Discards;
};

} // namespace tether::python

#endif
