//===- WorkspaceSharedAcrossLayersCheck.h - tether-workspace-shared-across-layers ---===//
#ifndef TETHER_CXX_WORKSPACESHAREDACROSSLAYERSCHECK_H
#define TETHER_CXX_WORKSPACESHAREDACROSSLAYERSCHECK_H

#include "TetherCheck.h"

namespace tether::cxx {

/// Flags a workspace cache shared by the layers of a capture (a global,
/// static or singleton member place, keyed without the layer) that is
/// replaced or cleared during capture after a read handed its workspace to
/// a captured task, filled with a size computed from one caller's
/// arguments and reused without a size check, or used on different streams
/// inside the capture with nothing ordering them.
///
/// The reasoning is the engine's query, shared with the Python frontend:
/// checks/engine/checks/WorkspaceSharedAcrossLayers.cpp. For the user-facing documentation see
/// docs/checks/tether-workspace-shared-across-layers.md
class WorkspaceSharedAcrossLayersCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
};

} // namespace tether::cxx

#endif
