//===- Checks.h - The four checks, as queries over the engine's facts -----===//
//
// One file per check, named after it. Each reads Context::Facts (and the
// capture context of Query.h) and writes findings with the messages of
// common/Messages.h, the same for every language.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_CHECKS_CHECKS_H
#define TETHER_ENGINE_CHECKS_CHECKS_H

#include "engine/Context.h"
#include "engine/checks/Query.h"

namespace tether::engine {

void checkWeakRefBeforeCaptureEnd(const Query &Q, std::vector<Finding> &Out);
void checkDoubleWeakRef(const Query &Q, std::vector<Finding> &Out);
void checkWorkspaceSharedAcrossLayers(const Query &Q, std::vector<Finding> &Out);
void checkWeakRefOfMaybeNull(const Query &Q, std::vector<Finding> &Out);
void checkGraphMemoryDiesBeforeReplay(const Query &Q,
                                      std::vector<Finding> &Out);

/// Every check, in the order above.
void runChecks(Context &Cx, std::vector<Finding> &Out);

} // namespace tether::engine

#endif
