//===- Interpreter.h - Abstract interpretation of one function -----------===//
//
// A forward analysis over the function's CFG to a fixpoint: every variable
// holds a set of atoms (Memory.h), and the state also knows the capture
// state, the current stream, the places known empty or non-empty on this
// path and the memory whose last strong holder has died. Calls apply the
// callees' summaries. A last pass over the fixed states records the
// function's Summary and, when asked, its facts and direct findings.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_INTERPRETER_H
#define TETHER_ENGINE_INTERPRETER_H

#include "engine/Context.h"

namespace tether::engine {

/// Analyse F with the summaries now in Cx. Returns F's summary; with
/// RecordFacts, also fills Cx.Facts[F] and Cx.Contents.
Summary interpret(Context &Cx, FnId F, bool RecordFacts);

} // namespace tether::engine

#endif
