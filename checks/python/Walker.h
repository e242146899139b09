//===- Walker.h - Flow-sensitive walk of one function ---------------------===//
//
// Walks a function's statements once, in order, with an abstract value per
// local (weak or strong, which local holds the memory, which place it was
// read from, may it be None) and the capture context of each statement. It
// produces the function's summary and facts, and reports the local findings
// (double weak refs, weak refs of maybe-None values) into its facts. The
// scheduler (Schedule.cpp) walks callees first, so their summaries are
// ready at the call; predictCallees gives it the call graph beforehand.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_WALKER_H
#define TETHER_PYTHON_WALKER_H

#include "Model.h"

namespace tether::python {

/// Walk function Fn, reading the published summaries of its predicted
/// callees (Function::Callees), into Sum and Out (cleared first by the
/// caller). Thread-safe for different functions once Package::resolveBases
/// has run, provided no callee's summary changes during the walk.
void walkFunction(Package &P, int Fn, Summary &Sum, Facts &Out);

/// The functions a walk of Fn can resolve a call to: a superset, found
/// without summaries (calls resolve by names, imports, classes and the
/// instances and function references locals may hold, none of which a
/// summary changes). Sorted, unique.
std::vector<int> predictCallees(Package &P, int Fn);

} // namespace tether::python

#endif
