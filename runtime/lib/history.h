// Bounded event history: a ring that overwrites its oldest entries, so a
// long-running process keeps a fixed footprint while reports can still show
// the recent events that touched a range.
#ifndef TETHER_RUNTIME_HISTORY_H
#define TETHER_RUNTIME_HISTORY_H

#include "event.h"

#include <cstddef>
#include <vector>

namespace tether::rt {

class History {
public:
  // The capacity is rounded up to a power of two: push runs on every
  // allocator event, and a mask is a cycle where a division is dozens.
  explicit History(size_t capacity) : ring_(roundUp(capacity)) {
    mask_ = ring_.size() - 1;
  }

  void push(const Event &e) { ring_[next_++ & mask_] = e; }

  size_t capacity() const { return ring_.size(); }
  size_t size() const { return next_ < ring_.size() ? next_ : ring_.size(); }

  // Oldest to newest; F returns false to stop.
  template <class F> void forEach(F f) const {
    size_t n = size();
    for (size_t i = next_ - n; i < next_; ++i)
      if (!f(ring_[i & mask_]))
        return;
  }

private:
  static size_t roundUp(size_t n) {
    size_t c = 1;
    while (c < n && c < (size_t{1} << 40))
      c <<= 1;
    return c;
  }

  std::vector<Event> ring_;
  size_t mask_ = 0;
  size_t next_ = 0;
};

} // namespace tether::rt

#endif
