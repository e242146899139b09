//===- Checks.cpp - Running every check -----------------------------------===//
#include "engine/checks/Checks.h"

namespace tether::engine {

void runChecks(Context &Cx, std::vector<Finding> &Out) {
  Query Q(Cx);
  checkWeakRefBeforeCaptureEnd(Q, Out);
  checkDoubleWeakRef(Q, Out);
  checkWorkspaceSharedAcrossLayers(Q, Out);
  checkWeakRefOfMaybeNull(Q, Out);
  checkGraphMemoryDiesBeforeReplay(Q, Out);
}

} // namespace tether::engine
