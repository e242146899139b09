// libtorch_npu.so of the fake torch_npu, built by the tests that need it
// (test/verifier/run-adapter.test): the C++ side of its caching allocator
// as a trace tracker sees it. The Python allocator (torch_npu/_allocator.py)
// announces each event through fake_npu_trace, which calls every attached
// tracker, as torch_npu's allocator calls its trackers.
#include "torch_npu/csrc/core/npu/NPUCachingAllocator.h"

#include <mutex>
#include <vector>

namespace c10_npu {
namespace NPUCachingAllocator {
namespace {
std::mutex mu;
// Leaked on purpose: trackers may be called during interpreter exit.
std::vector<AllocatorTraceTracker> &trackers() {
  static auto *t = new std::vector<AllocatorTraceTracker>();
  return *t;
}
} // namespace

void attachAllocatorTraceTracker(AllocatorTraceTracker tracker) {
  std::lock_guard<std::mutex> lock(mu);
  trackers().push_back(std::move(tracker));
}

} // namespace NPUCachingAllocator
} // namespace c10_npu

using c10_npu::NPUCachingAllocator::TraceEntry;

extern "C" __attribute__((visibility("default"))) void
fake_npu_trace(int action, uintptr_t addr, size_t size, uintptr_t stream,
               unsigned long long pool_a, unsigned long long pool_b) {
  TraceEntry e{static_cast<TraceEntry::Action>(action), 0,
               static_cast<int64_t>(addr), reinterpret_cast<void *>(stream),
               static_cast<int64_t>(size), {pool_a, pool_b}};
  std::vector<c10_npu::NPUCachingAllocator::AllocatorTraceTracker> copy;
  {
    std::lock_guard<std::mutex> lock(c10_npu::NPUCachingAllocator::mu);
    copy = c10_npu::NPUCachingAllocator::trackers();
  }
  for (auto &t : copy)
    t(e);
}
