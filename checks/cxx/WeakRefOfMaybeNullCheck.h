//===- WeakRefOfMaybeNullCheck.h - tether-weak-ref-of-maybe-null -----------===//
#ifndef TETHER_CXX_WEAKREFOFMAYBENULLCHECK_H
#define TETHER_CXX_WEAKREFOFMAYBENULLCHECK_H

#include "TetherCheck.h"

namespace tether::cxx {

/// Flags a weak-ref conversion of a value that may be empty on some path:
/// `*opt` of an unchecked std::optional<at::Tensor>, an at::Tensor that may
/// be undefined, a container slot some code fills with an empty value, with
/// no `defined()` / `has_value()` test on the path.
///
/// The reasoning is the engine's query, shared with the Python frontend:
/// checks/engine/checks/WeakRefOfMaybeNull.cpp. For the user-facing documentation see
/// docs/checks/tether-weak-ref-of-maybe-null.md
class WeakRefOfMaybeNullCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
};

} // namespace tether::cxx

#endif
