// The simulated ACL runtime's own interface (tests and examples only): host
// "kernels", and the caching allocator with the trace-tracker hook shaped
// like c10's / torch_npu's. The ACL entry points themselves are declared in
// acl/acl_api.h.
#ifndef ACL_SIM_SIM_H
#define ACL_SIM_SIM_H

#include "acl_api.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

namespace aclsim {

// A kernel's arguments, baked in at capture the way a device task's are.
struct KernelArgs {
  void *ptr[8] = {};
  int64_t i[4] = {};
};
using Kernel = void (*)(const KernelArgs &);

// Eager stream: runs now. Capturing stream: recorded into the graph (inside
// a task group if one is open). Stream in a task update: rewrites the next
// task of the group being updated.
aclError launch(aclrtStream stream, Kernel kernel, const KernelArgs &args);

// ---- caching allocator -----------------------------------------------------
// Blocks are carved from aclrtMalloc'd segments. While a stream captures,
// its allocations come from the graph's private pool, and a block freed
// there is handed to the next fitting allocation of the same capture, as the
// real NPU/CUDA caching allocators do.
void *allocate(size_t bytes, aclrtStream stream);
void release(void *ptr);

using MempoolId_t = std::pair<uint64_t, uint64_t>;

struct TraceEntry {
  enum Action {
    ALLOC,
    FREE_REQUESTED,
    FREE_COMPLETED,
    SEGMENT_ALLOC,
    SEGMENT_FREE,
  };
  Action action_;
  int device_;
  size_t addr_;
  size_t size_;
  aclrtStream stream_;
  MempoolId_t mempool_;
};
using AllocatorTraceTracker = std::function<void(const TraceEntry &)>;

// Called under the allocator lock for every action, like c10's.
void attachAllocatorTraceTracker(AllocatorTraceTracker tracker);

// Bytes the allocator currently holds in segments (for tests).
size_t reservedBytes();

} // namespace aclsim

#endif
