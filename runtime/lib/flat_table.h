// An open-addressing hash table of fixed-size entries, for the ledger's hot
// path. Each entry carries its own 64-bit key (0 marks an empty slot), probing
// is linear and deletion shifts the following entries back instead of leaving
// tombstones, so a lookup touches one or two adjacent cache lines and steady
// insert/erase churn never rehashes. The table only grows (doubling when half
// full): the heap is reached only when the live count passes its high-water
// mark, i.e. amortised allocation-free.
//
// Entry pointers are valid until the next insert or erase.
#ifndef TETHER_RUNTIME_FLAT_TABLE_H
#define TETHER_RUNTIME_FLAT_TABLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tether::rt {

template <class E> class FlatTable {
public:
  explicit FlatTable(unsigned log2Capacity = 10) { reset(log2Capacity); }

  E *find(uint64_t key) {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      E &e = slots_[i];
      if (e.key == key)
        return &e;
      if (e.key == 0)
        return nullptr;
    }
  }

  // The entry for `key`; a new one is value-initialised with its key set.
  // *fresh tells which.
  E &insert(uint64_t key, bool *fresh) {
    if (E *e = find(key)) {
      *fresh = false;
      return *e;
    }
    if (2 * (count_ + 1) > slots_.size())
      grow();
    *fresh = true;
    ++count_;
    return place(key);
  }

  void erase(E *e) {
    size_t hole = static_cast<size_t>(e - slots_.data());
    slots_[hole] = E{};
    --count_;
    // Backward shift: move up every later entry of the run whose home is
    // not cyclically in (hole, i].
    for (size_t i = (hole + 1) & mask_; slots_[i].key; i = (i + 1) & mask_) {
      size_t h = home(slots_[i].key);
      bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
      if (stays)
        continue;
      slots_[hole] = slots_[i];
      slots_[i] = E{};
      hole = i;
    }
  }

  // Starts loading the slot `key` probes first and the one after it: a
  // lookup that misses, an insert and an erase's backward shift all read at
  // least one more slot, which for line-sized entries is another line.
  void prefetch(uint64_t key) const {
    size_t i = home(key);
    __builtin_prefetch(&slots_[i]);
    __builtin_prefetch(&slots_[(i + 1) & mask_]);
  }

  size_t size() const { return count_; }
  size_t capacity() const { return slots_.size(); }

  // Every live entry; F must not insert or erase.
  template <class F> void forEach(F f) {
    for (E &e : slots_)
      if (e.key)
        f(e);
  }

private:
  size_t home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  E &place(uint64_t key) {
    size_t i = home(key);
    while (slots_[i].key)
      i = (i + 1) & mask_;
    slots_[i] = E{};
    slots_[i].key = key;
    return slots_[i];
  }

  void reset(unsigned log2Capacity) {
    slots_.assign(size_t{1} << log2Capacity, E{});
    mask_ = slots_.size() - 1;
    shift_ = 64 - log2Capacity;
  }

  void grow() {
    std::vector<E> old;
    old.swap(slots_);
    reset(64 - shift_ + 1);
    for (E &e : old)
      if (e.key)
        place(e.key) = e;
  }

  std::vector<E> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t count_ = 0;
};

} // namespace tether::rt

#endif
