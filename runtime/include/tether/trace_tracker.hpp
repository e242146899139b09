// Adapter from a PyTorch-style allocator trace to the verifier.
//
// c10's CUDACachingAllocator and torch_npu's NPUCachingAllocator both offer
//   void attachAllocatorTraceTracker(std::function<void(const TraceEntry&)>);
// with a TraceEntry carrying action_ (ALLOC, FREE_REQUESTED, FREE_COMPLETED,
// SEGMENT_ALLOC, SEGMENT_FREE, ...), device_, addr_, size_, stream_ and
// mempool_ (a pair of ids). This header is written against that shape only,
// so it compiles against either allocator's header (or the simulated one):
//
//   c10_npu::NPUCachingAllocator::attachAllocatorTraceTracker(
//       &tether::trace::feed<c10_npu::NPUCachingAllocator::TraceEntry>);
#ifndef TETHER_TRACE_TRACKER_HPP
#define TETHER_TRACE_TRACKER_HPP

#include "tether/verify.h"

#include <cstdint>
#include <type_traits>

namespace tether::trace {

template <class T> const void *asPointer(T v) {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<const void *>(v);
  else
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(v));
}

// c10 names a graph's private pool (capture id, 0) and a user pool
// (0, id); fold both into one 64-bit id, 0 staying "the default pool".
template <class PoolId> uint64_t poolId(const PoolId &p) {
  uint64_t a = static_cast<uint64_t>(p.first);
  uint64_t b = static_cast<uint64_t>(p.second);
  if (a)
    return a;
  return b ? (b | (uint64_t{1} << 63)) : 0;
}

template <class Entry> void feed(const Entry &e) {
  const int device = static_cast<int>(e.device_);
  const void *ptr = asPointer(e.addr_);
  switch (e.action_) {
  case Entry::ALLOC:
    tether_verify_alloc(device, ptr, static_cast<size_t>(e.size_),
                        asPointer(e.stream_), poolId(e.mempool_));
    break;
  case Entry::FREE_COMPLETED:
    // Not FREE_REQUESTED: the block is handed out again only once the
    // streams that used it are done, and that is what the ledger tracks.
    tether_verify_free(device, ptr);
    break;
  case Entry::SEGMENT_ALLOC:
  case Entry::SEGMENT_FREE:
    tether_verify_segment(device, ptr, static_cast<size_t>(e.size_));
    break;
  default:
    break;
  }
}

} // namespace tether::trace

#endif
