//===- Engine.h - One analysis for every frontend ------------------------===//
//
// analyze() runs the whole engine on a lowered program: summaries and facts
// bottom-up over the call graph's strongly connected components (each
// iterated to a fixpoint), then the four checks as queries over the facts. The result is the same for a C++ translation
// unit and a Python package: only the lowering differs.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_ENGINE_H
#define TETHER_ENGINE_ENGINE_H

#include "common/Finding.h"
#include "engine/Context.h"
#include "engine/Ir.h"
#include <vector>

namespace tether::engine {

/// The findings of every check on P, in no particular order.
std::vector<Finding> analyze(const Program &P, Options O = {});

/// Compute every function's summary into Cx.Sums and its facts into
/// Cx.Facts (callees first).
void summarize(Context &Cx);

} // namespace tether::engine

#endif
