// The allocator trace adapter `python3 -m tether_verify run` compiles at
// first use (tether_verify/_adapter.py), against the backend's own caching
// allocator header: torch's trace hooks give Python a block's address only,
// the C++ trace gives its size, stream and pool.
//
// Built with -DTETHER_ALLOCATOR_HEADER=<...> -DTETHER_ALLOCATOR_NS=..., e.g.
// <torch_npu/csrc/core/npu/NPUCachingAllocator.h> and
// c10_npu::NPUCachingAllocator. No exceptions are thrown or caught here.
#include TETHER_ALLOCATOR_HEADER

#include "tether/trace_tracker.hpp"

namespace allocator = TETHER_ALLOCATOR_NS;

// Loaded with ctypes: a plain C entry point, so no Python headers are needed.
extern "C" __attribute__((visibility("default"))) int
tether_trace_adapter_attach(void) {
  allocator::attachAllocatorTraceTracker(
      &tether::trace::feed<allocator::TraceEntry>);
  return 1;
}
