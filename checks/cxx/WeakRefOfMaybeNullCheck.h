//===- WeakRefOfMaybeNullCheck.h - tether-weak-ref-of-maybe-null ----------===//
#ifndef TETHER_CXX_WEAKREFOFMAYBENULLCHECK_H
#define TETHER_CXX_WEAKREFOFMAYBENULLCHECK_H

#include "CaptureCheck.h"

namespace tether::cxx {

/// Flags a weak-ref conversion of a value that may be empty on some path:
/// `*opt` of an unchecked std::optional<at::Tensor>, an at::Tensor that may
/// be undefined (default-constructed, `value_or({})`, a container slot that
/// some write fills with an empty tensor), with no `defined()` / `has_value()`
/// test on the path. Capture does not matter: the weak reference of nothing
/// is wrong anywhere.
///
/// For the user-facing documentation see
/// docs/checks/tether-weak-ref-of-maybe-null.md
class WeakRefOfMaybeNullCheck : public CaptureCheck {
public:
  using CaptureCheck::CaptureCheck;

protected:
  void run(const Analyses &A) override;
};

} // namespace tether::cxx

#endif
