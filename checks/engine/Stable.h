//===- Stable.h - A table whose elements never move ----------------------===//
//
// The engine's program-wide tables (places, strings, conversion sites,
// regions) are appended to while functions are interpreted, and when
// independent functions are interpreted on several threads one thread
// appends while another reads an element it was handed the index of. A
// std::vector moves its elements when it grows; this table keeps them in
// chunks that double in size and are never freed until the table is, so an
// element's address is fixed from its append on.
//
// Appends must be serialised by the owner (its lock); reading an element
// needs no lock once the reader learnt its index through that lock or
// through any other synchronisation (the element was written before).
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_STABLE_H
#define TETHER_ENGINE_STABLE_H

#include "llvm/Support/MathExtras.h"
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

namespace tether::engine {

template <typename T> class StableVector {
  /// Chunk k holds kFirst << k elements: 64 chunks are more than any index.
  static constexpr unsigned kFirstBits = 8;
  static constexpr size_t kFirst = size_t(1) << kFirstBits;
  static constexpr unsigned kChunks = 64 - kFirstBits;

public:
  StableVector() = default;
  StableVector(const StableVector &) = delete;
  StableVector &operator=(const StableVector &) = delete;
  ~StableVector() { clear(); }

  size_t size() const { return Size.load(std::memory_order_acquire); }

  T &operator[](size_t I) {
    auto [C, Off] = where(I);
    return Chunks[C].load(std::memory_order_acquire)[Off];
  }
  const T &operator[](size_t I) const {
    auto [C, Off] = where(I);
    return Chunks[C].load(std::memory_order_acquire)[Off];
  }

  /// Appends an element and returns its index (under the owner's lock).
  template <typename... Args> size_t emplace_back(Args &&...A) {
    size_t I = Size.load(std::memory_order_relaxed);
    auto [C, Off] = where(I);
    T *Chunk = Chunks[C].load(std::memory_order_relaxed);
    if (!Chunk) {
      Chunk = static_cast<T *>(::operator new(sizeof(T) * (kFirst << C)));
      Chunks[C].store(Chunk, std::memory_order_release);
    }
    new (Chunk + Off) T(std::forward<Args>(A)...);
    Size.store(I + 1, std::memory_order_release);
    return I;
  }
  size_t push_back(T V) { return emplace_back(std::move(V)); }

  void clear() {
    size_t N = size();
    for (size_t I = 0; I < N; ++I)
      (*this)[I].~T();
    for (auto &C : Chunks)
      ::operator delete(C.exchange(nullptr));
    Size.store(0);
  }

private:
  /// Chunk and offset of index I: I + kFirst's top bit names the chunk.
  static std::pair<unsigned, size_t> where(size_t I) {
    size_t X = I + kFirst;
    unsigned Top = llvm::Log2_64(X);
    return {Top - kFirstBits, X - (size_t(1) << Top)};
  }

  std::atomic<T *> Chunks[kChunks] = {};
  std::atomic<size_t> Size{0};
};

/// The lock of the tables that own StableVectors: taken only while several
/// threads use them (share(true)), so a run on one thread pays nothing.
class ShareLock {
public:
  void share(bool On) { Shared = On; }
  bool shared() const { return Shared; }
  std::unique_lock<std::mutex> guard() {
    return Shared ? std::unique_lock<std::mutex>(Mu)
                  : std::unique_lock<std::mutex>();
  }

private:
  std::mutex Mu;
  bool Shared = false;
};

} // namespace tether::engine

#endif
