//===- Serialize.h - A lowered function as bytes, and back ----------------===//
//
// A frontend that keeps its lowering between runs (the Python frontend's
// module cache) stores each function in this form. readFunction accepts only
// what writeFunction can produce for a program of the given size: every
// variable, block, function, class and file number in range, so that a
// damaged cache file is refused, never interpreted.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_SERIALIZE_H
#define TETHER_ENGINE_SERIALIZE_H

#include "Bytes.h"
#include "Ir.h"

namespace tether::engine {

void writeFunction(ByteWriter &W, const Function &F);

/// The numbers a function read back may use.
struct ProgramShape {
  size_t Functions = 0, Classes = 0, Files = 0;
};
/// False (and R failed) when the bytes are not a function of that shape.
bool readFunction(ByteReader &R, const ProgramShape &Shape, Function &F);

} // namespace tether::engine

#endif
