//===- WeakRefBeforeCaptureEndCheck.h - tether-weak-ref-before-capture-end ===//
#ifndef TETHER_CXX_WEAKREFBEFORECAPTUREENDCHECK_H
#define TETHER_CXX_WEAKREFBEFORECAPTUREENDCHECK_H

#include "CaptureCheck.h"

namespace tether::cxx {

/// Flags a weak reference made while a capture is active to memory whose
/// every strong reference can die before the capture ends, when a later
/// operation of the same capture uses the weak reference (read back from a
/// shared place, or used after the owner's death).
///
/// For the user-facing documentation see
/// docs/checks/tether-weak-ref-before-capture-end.md
class WeakRefBeforeCaptureEndCheck : public CaptureCheck {
public:
  using CaptureCheck::CaptureCheck;

protected:
  void run(const Analyses &A) override;
};

} // namespace tether::cxx

#endif
