//===- WorkspaceSharedAcrossLayersCheck.h ---------------------------------===//
#ifndef TETHER_CXX_WORKSPACESHAREDACROSSLAYERSCHECK_H
#define TETHER_CXX_WORKSPACESHAREDACROSSLAYERSCHECK_H

#include "CaptureCheck.h"

namespace tether::cxx {

/// Flags a workspace cache shared by the layers of a capture (a global,
/// static or singleton member place, keyed without the layer) that is
/// (a) replaced or cleared during capture after a read handed its workspace
/// to a captured task, (b) filled during capture with a size computed from
/// one caller's arguments and reused without a size check, or (c) used on
/// different streams inside the capture with no event between them.
///
/// For the user-facing documentation see
/// docs/checks/tether-workspace-shared-across-layers.md
class WorkspaceSharedAcrossLayersCheck : public CaptureCheck {
public:
  using CaptureCheck::CaptureCheck;

protected:
  void run(const Analyses &A) override;
};

} // namespace tether::cxx

#endif
