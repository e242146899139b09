//===- TreeAlloc.h - tree-sitter's memory, in large chunks ----------------===//
//
// A scan keeps every module's syntax tree (millions of small nodes) until
// the functions are walked. Through malloc, that memory arrives one 4 KiB
// page fault at a time, which on virtual machines costs more than parsing
// the nodes. installTreeAllocator() gives tree-sitter an allocator that
// carves small blocks out of 32 MiB chunks backed by transparent huge pages,
// with per-thread free lists (blocks freed by exiting threads are kept for
// the next ones). Chunks are kept for the life of the process. Under
// AddressSanitizer it is not installed, so that ASan checks tree memory.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_TREEALLOC_H
#define TETHER_PYTHON_TREEALLOC_H

namespace tether::python {

/// Install the allocator (once; before the first parser or tree exists).
void installTreeAllocator();

} // namespace tether::python

#endif
