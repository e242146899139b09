//===- Walker.h - Flow-sensitive walk of one function ---------------------===//
//
// Walks a function's statements once, in order, with an abstract value per
// local (weak or strong, which local holds the memory, which place it was
// read from, may it be None) and the capture context of each statement. It
// produces the function's summary and facts, and reports the local findings
// (double weak refs, weak refs of maybe-None values) directly. Callees are
// analysed first, on demand, so their summaries are ready at the call.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_WALKER_H
#define TETHER_PYTHON_WALKER_H

#include "Model.h"

namespace tether::python {

/// Analyse function Fn (and, first, the callees it needs), once.
void analyzeFunction(Package &P, int Fn, unsigned Depth = 0);

} // namespace tether::python

#endif
