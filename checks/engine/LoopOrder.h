//===- LoopOrder.h - The order in which a function's fixpoint visits blocks ===//
//
// The interpreter's worklist takes the waiting block that comes first in an
// order. Reverse post-order puts a loop's exit (and all that follows it)
// before the loop's own body when the depth-first walk enters the body first,
// so every back edge of a loop sent the worklist through the rest of the
// function again: a function of n loops in sequence (generated code, or n
// comprehensions) cost O(n^2) visits and ran out of its visit budget at a
// few hundred, with a state of every live local copied at each visit
// (1,000 comprehensions in one function: 28 s).
//
// This order keeps each loop contiguous, its head first and every loop
// nested in it contiguous inside it (a weak topological order, after
// Bourdoncle: the strongly connected components of the graph in topological
// order, each decomposed again without the edges into its head). A back
// edge then re-queues a block that comes before everything after the loop,
// so the loop is stable before the blocks after it are visited again.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_LOOPORDER_H
#define TETHER_ENGINE_LOOPORDER_H

#include "engine/Ir.h"
#include <cstdint>
#include <vector>

namespace tether::engine {

/// The blocks of Fn reachable from its entry (block 0), in a weak
/// topological order. Iterative: no recursion on the depth of nesting.
std::vector<uint32_t> loopOrder(const Function &Fn);

} // namespace tether::engine

#endif
