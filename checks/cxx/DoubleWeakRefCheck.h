//===- DoubleWeakRefCheck.h - tether-double-weak-ref -----------------------===//
#ifndef TETHER_CXX_DOUBLEWEAKREFCHECK_H
#define TETHER_CXX_DOUBLEWEAKREFCHECK_H

#include "TetherCheck.h"

namespace tether::cxx {

/// Flags a weak-ref conversion applied to a value that is already a weak
/// reference: nested calls, a local that holds a weak reference on some
/// path, and a helper that weak-refs its parameter called with a weak
/// reference.
///
/// The reasoning is the engine's query, shared with the Python frontend:
/// checks/engine/checks/DoubleWeakRef.cpp. For the user-facing documentation see
/// docs/checks/tether-double-weak-ref.md
class DoubleWeakRefCheck : public TetherCheck {
public:
  using TetherCheck::TetherCheck;
};

} // namespace tether::cxx

#endif
