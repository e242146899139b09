//===- Engine.h - One analysis for every frontend ------------------------===//
//
// analyze() runs the whole engine on a lowered program: summaries and facts
// bottom-up over the call graph's strongly connected components (each
// iterated to a fixpoint; with Options::Pool, independent components at
// once on its threads), then the checks as queries over the facts. The
// result is the same for a C++ translation unit and a Python package: only
// the lowering differs.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_ENGINE_H
#define TETHER_ENGINE_ENGINE_H

#include "common/Finding.h"
#include "engine/Context.h"
#include "engine/Ir.h"
#include <memory>
#include <vector>

namespace tether::engine {

/// The findings of every check on P, in no particular order.
std::vector<Finding> analyze(const Program &P, Options O = {});

/// Compute every function's summary into Cx.Sums and its facts into
/// Cx.Facts (callees first; without Dirty, on Cx.Opts.Pool's threads when
/// it has more than one). With Dirty (after Context::update), only the
/// components holding a dirty function or calling one whose summary came
/// out changed are interpreted; the rest keep what an earlier run found.
/// Returns how many interpretations of a body it ran.
size_t summarize(Context &Cx, const std::vector<bool> *Dirty = nullptr);

/// An engine run kept for the next one over the same program, whose
/// functions change between runs (a language server's package, edited):
/// what a function's summary and facts depend on is its body, its callees'
/// summaries and whether it has callers, so only the functions where one
/// of those changed are interpreted again. The findings are those of a
/// cold analyze() of the same program.
class Session {
public:
  /// P must be the object of the last call, or the run is cold;
  /// Unchanged[F] says F's body is the one the last call saw.
  std::vector<Finding> analyze(const Program &P, Options O,
                               const std::vector<bool> &Unchanged);
  struct Stats {
    size_t Functions = 0, Interpreted = 0;
    bool Warm = false;
  };
  Stats Last;

private:
  std::unique_ptr<Context> Cx;
  size_t ColdInsts = 0;
};

} // namespace tether::engine

#endif
