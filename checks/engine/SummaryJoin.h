//===- SummaryJoin.h - The join of two summaries of one function ---------===//
//
// A recursive component of the call graph is summarised by rounds until no
// summary grows. A round's summary is joined into the last one rather than
// replacing it, so the sequence only ascends; from the third round on its
// values are also widened to the places at most one step below a root,
// which are finitely many, so the ascent ends (see docs/architecture.md,
// "Recursive components").
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_SUMMARYJOIN_H
#define TETHER_ENGINE_SUMMARYJOIN_H

#include "engine/Facts.h"

namespace tether::engine {

/// Drops from V every atom of a place more than one step below its root,
/// for "unknown" (the widening of values); whether it dropped any.
bool dropDeepPlaces(Value &V, const MemTable &M);

/// Into := Into joined with New (one effect per site, values joined).
/// Shallow: drop every atom of a place more than one step below its root
/// from the values, for "unknown". Returns whether Into grew.
bool joinSummary(Summary &Into, Summary &&New, const MemTable &M,
                 bool Shallow);

} // namespace tether::engine

#endif
