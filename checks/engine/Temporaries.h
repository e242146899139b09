//===- Temporaries.h - Where a function's temporaries stop being read ----===//
//
// A frontend lowers nested expressions into temporaries. Kept in the state
// after their last read they cost nothing in meaning (a temporary holds no
// memory strongly: only named locals and places do) but everything in size:
// generated code of one function (sympy's rubi tests: 3,500 blocks, 350,000
// temporaries) carried every temporary into every block's state, 8 GB. The
// interpreter drops a temporary after its last read instead.
//
// Only temporaries all of whose definitions and reads lie in one block, the
// first of them a definition, are dropped: nothing else can read them after
// the last one. The rest (the value of a conditional expression, defined on
// two branches and read where they meet) stay, as before.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_TEMPORARIES_H
#define TETHER_ENGINE_TEMPORARIES_H

#include "engine/Ir.h"
#include <utility>
#include <vector>

namespace tether::engine {

struct TemporaryEnds {
  /// Per block: (instruction index, temporary), by index: the temporary is
  /// read by no instruction after that one.
  std::vector<std::vector<std::pair<uint32_t, VarId>>> AfterInst;
  /// Per block: the temporaries its terminator reads last (a branch's
  /// condition): they end on the block's out-edges.
  std::vector<std::vector<VarId>> AfterTerm;
};

TemporaryEnds temporaryEnds(const Function &Fn);

} // namespace tether::engine

#endif
