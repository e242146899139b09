// An allocator for node-based containers that recycles freed nodes. The
// ledger's block map gains and loses one node per alloc/free; with this the
// hot path reaches the heap only when the live set grows past its high-water
// mark (amortised allocation-free), and never under steady churn.
#ifndef TETHER_RUNTIME_NODE_POOL_H
#define TETHER_RUNTIME_NODE_POOL_H

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace tether::rt {

// Fixed-size slots, handed out from chunks that grow geometrically.
class NodePool {
public:
  NodePool() = default;
  NodePool(const NodePool &) = delete;
  NodePool &operator=(const NodePool &) = delete;
  ~NodePool() {
    for (void *c : chunks_)
      ::operator delete(c);
  }

  void *take(size_t bytes) {
    if (slot_ == 0)
      slot_ = bytes < sizeof(void *) ? sizeof(void *) : bytes;
    if (bytes > slot_)
      return ::operator new(bytes); // a different node type: not pooled
    if (free_) {
      void *p = free_;
      free_ = *static_cast<void **>(p);
      return p;
    }
    if (used_ == perChunk_) {
      perChunk_ = perChunk_ ? perChunk_ * 2 : 256;
      chunks_.push_back(::operator new(perChunk_ * slot_));
      used_ = 0;
    }
    return static_cast<char *>(chunks_.back()) + slot_ * used_++;
  }

  void give(void *p, size_t bytes) {
    if (bytes > slot_) {
      ::operator delete(p);
      return;
    }
    *static_cast<void **>(p) = free_;
    free_ = p;
  }

private:
  std::vector<void *> chunks_;
  void *free_ = nullptr;
  size_t slot_ = 0;
  size_t perChunk_ = 0;
  size_t used_ = 0;
};

template <class T> class PoolAllocator {
public:
  using value_type = T;
  explicit PoolAllocator(NodePool *pool) : pool_(pool) {}
  template <class U>
  PoolAllocator(const PoolAllocator<U> &o) : pool_(o.pool()) {}

  T *allocate(size_t n) {
    if (n != 1)
      return static_cast<T *>(::operator new(n * sizeof(T)));
    return static_cast<T *>(pool_->take(sizeof(T)));
  }
  void deallocate(T *p, size_t n) {
    if (n != 1) {
      ::operator delete(p);
      return;
    }
    pool_->give(p, sizeof(T));
  }
  NodePool *pool() const { return pool_; }
  template <class U> bool operator==(const PoolAllocator<U> &o) const {
    return pool_ == o.pool();
  }
  template <class U> bool operator!=(const PoolAllocator<U> &o) const {
    return pool_ != o.pool();
  }

private:
  NodePool *pool_;
};

} // namespace tether::rt

#endif
