//===- Dump.h - The IR as text, for tests and for debugging lowerings ----===//
#ifndef TETHER_ENGINE_DUMP_H
#define TETHER_ENGINE_DUMP_H

#include "engine/Ir.h"
#include <string>

namespace tether::engine {

/// One line per instruction and terminator, stable across runs:
///   fn mod.f(a, b)
///   bb0:
///     %2 = alloc workspace sized @3:5
///     store mod.G <- %2 @4:5
///     ret %2 @5:5
/// Positions are line:col (the file is the function's). Variables are
/// written %N, or %N:name when they have a name.
std::string dump(const Program &P, const Function &F);
std::string dump(const Program &P);

} // namespace tether::engine

#endif
