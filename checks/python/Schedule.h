//===- Schedule.h - Walk every function, callees first, in parallel -------===//
//
// The call graph (predicted, Walker.h) is cut into strongly connected
// components and those into levels: a component's level is one more than
// the highest level among the components it calls. Levels run in order,
// the components of one level in parallel; a recursive component iterates
// its members' walks to a fixpoint (summaries only grow; a member whose
// callee's summary grew is walked again; walks bounded).
// Every walk reads only summaries that are final, or (inside a recursive
// component, walked by one task in a fixed order) the previous walk's, so
// the result does not depend on the number of threads.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_SCHEDULE_H
#define TETHER_PYTHON_SCHEDULE_H

#include "Model.h"

namespace llvm {
class ThreadPoolInterface;
}

namespace tether::python {

/// Walks a recursive component may take, per member on average, before its
/// summaries are taken as they are.
inline constexpr unsigned MaxFixpointRounds = 8;

/// Walk every function of P: summaries, facts and the walks' own findings
/// (Facts::Findings) of each.
void analyzeFunctions(Package &P, llvm::ThreadPoolInterface &Pool);

} // namespace tether::python

#endif
