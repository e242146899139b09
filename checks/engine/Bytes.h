//===- Bytes.h - A compact binary coding for what caches keep -------------===//
//
// Unsigned varints and length-prefixed strings. A reader never trusts its
// input: every read is bounds-checked, a count larger than the bytes left
// fails the read, and a failed reader stays failed, so that a truncated or
// scrambled cache file is one `false`, never a crash or a huge allocation.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_BYTES_H
#define TETHER_ENGINE_BYTES_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace tether::engine {

class ByteWriter {
public:
  explicit ByteWriter(std::string &Out) : Out(Out) {}
  void u(uint64_t V) {
    while (V >= 0x80) {
      Out.push_back(char(V | 0x80));
      V >>= 7;
    }
    Out.push_back(char(V));
  }
  /// A signed value of the IR (ids that may be -1).
  void i(int64_t V) { u((uint64_t(V) << 1) ^ uint64_t(V >> 63)); }
  void b(bool V) { Out.push_back(V ? 1 : 0); }
  void s(llvm::StringRef V) {
    u(V.size());
    Out.append(V.data(), V.size());
  }

private:
  std::string &Out;
};

class ByteReader {
public:
  explicit ByteReader(llvm::StringRef In) : In(In) {}
  bool ok() const { return Ok; }
  bool atEnd() const { return In.empty(); }
  /// The bytes not read yet.
  llvm::StringRef rest() const { return In; }
  uint64_t u() {
    uint64_t V = 0;
    for (unsigned Shift = 0; Ok; Shift += 7) {
      if (In.empty() || Shift > 63)
        return fail();
      uint8_t C = uint8_t(In.front());
      In = In.drop_front();
      V |= uint64_t(C & 0x7F) << Shift;
      if (!(C & 0x80))
        return V;
    }
    return 0;
  }
  int64_t i() {
    uint64_t V = u();
    return int64_t(V >> 1) ^ -int64_t(V & 1);
  }
  bool b() {
    uint64_t V = u();
    if (V > 1)
      fail();
    return V == 1;
  }
  std::string s() {
    uint64_t N = u();
    if (!Ok || N > In.size())
      return fail(), std::string();
    std::string V = In.take_front(N).str();
    In = In.drop_front(N);
    return V;
  }
  /// A count of elements that each take at least one byte.
  size_t count() {
    uint64_t N = u();
    if (N > In.size())
      return fail(), 0;
    return size_t(N);
  }
  /// A value that must be below Limit (an enum's number of kinds).
  uint64_t below(uint64_t Limit) {
    uint64_t V = u();
    if (V >= Limit)
      return fail(), 0;
    return V;
  }
  uint64_t fail() {
    Ok = false;
    In = llvm::StringRef();
    return 0;
  }

private:
  llvm::StringRef In;
  bool Ok = true;
};

} // namespace tether::engine

#endif
