//===- WeakRefBeforeCaptureEndCheck.h - tether-weak-ref-before-capture-end ---===//
#ifndef TETHER_CXX_WEAKREFBEFORECAPTUREENDCHECK_H
#define TETHER_CXX_WEAKREFBEFORECAPTUREENDCHECK_H

#include "TetherCheck.h"

namespace tether::cxx {

/// Flags a weak reference made while a capture is active to memory whose
/// every strong reference can die before the capture ends, when a later
/// operation of the same capture uses the weak reference (read back from a
/// shared place, or used after the owner's death).
///
/// The reasoning is the engine's query, shared with the Python frontend:
/// checks/engine/checks/WeakRefBeforeCaptureEnd.cpp. For the user-facing documentation see
/// docs/checks/tether-weak-ref-before-capture-end.md
class WeakRefBeforeCaptureEndCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
};

} // namespace tether::cxx

#endif
