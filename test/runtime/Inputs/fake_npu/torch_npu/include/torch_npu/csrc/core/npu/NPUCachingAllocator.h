// The fake torch_npu's caching allocator header: the part of the real
// torch_npu/csrc/core/npu/NPUCachingAllocator.h a trace tracker sees
// (TraceEntry, attachAllocatorTraceTracker), so tether's trace adapter
// compiles against it as it does against the real one.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

namespace c10_npu {
namespace NPUCachingAllocator {

using MempoolId_t = std::pair<unsigned long long, unsigned long long>;

struct TraceEntry {
  enum Action {
    ALLOC,
    FREE_REQUESTED,
    FREE_COMPLETED,
    SEGMENT_ALLOC,
    SEGMENT_FREE,
    SNAPSHOT,
    OOM
  };
  Action action_;
  int device_;
  int64_t addr_;
  void *stream_; // aclrtStream
  int64_t size_;
  MempoolId_t mempool_; // (capture id, 0) for a graph's private pool
};

using AllocatorTraceTracker = std::function<void(const TraceEntry &)>;

void attachAllocatorTraceTracker(AllocatorTraceTracker tracker);

} // namespace NPUCachingAllocator
} // namespace c10_npu
