//===- Checks.h - The capture checks over the whole package ---------------===//
//
// Once every function has been walked: which functions run inside a capture
// (a call from a capture region, transitively, with one witness chain each),
// then the judgments that need it: weak refs whose holder dies before the
// capture ends and that are used later in it; workspace slots replaced,
// reused unsized, or shared across streams during capture; weak-ref
// conversions of slots of places initialised with None.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_CHECKS_H
#define TETHER_PYTHON_CHECKS_H

#include "Model.h"

namespace tether::python {

void runPackageChecks(Package &P);

} // namespace tether::python

#endif
