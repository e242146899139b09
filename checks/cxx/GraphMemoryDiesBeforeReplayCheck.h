//===- GraphMemoryDiesBeforeReplayCheck.h - tether-graph-memory-dies-before-replay
#ifndef TETHER_CXX_GRAPHMEMORYDIESBEFOREREPLAYCHECK_H
#define TETHER_CXX_GRAPHMEMORYDIESBEFOREREPLAYCHECK_H

#include "TetherCheck.h"

namespace tether::cxx {

/// Flags local memory that an operation inside a task update
/// (aclmdlRICaptureTaskUpdateBegin/End, the catalog's task-update pairs)
/// binds into the updated graph task, when its last strong reference dies
/// before the graph's next replay.
///
/// The reasoning is the engine's query, shared with the Python frontend:
/// checks/engine/checks/GraphMemoryDiesBeforeReplay.cpp. For the
/// user-facing documentation see
/// docs/checks/tether-graph-memory-dies-before-replay.md
class GraphMemoryDiesBeforeReplayCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
};

} // namespace tether::cxx

#endif
