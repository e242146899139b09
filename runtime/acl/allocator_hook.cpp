// Attaches the verifier to a caching allocator's trace when one is in the
// process, so block-level events (not just aclrtMalloc segments) reach the
// ledger. The simulated runtime's allocator is found through a weak
// reference to its attach function; for torch_npu or c10 CUDA, compile
// tether/trace_tracker.hpp against their headers and attach
// tether::trace::feed<TraceEntry> the same way.
#include "acl_sim/sim.h"

#include "tether/trace_tracker.hpp"

namespace aclsim {
// Weak: null unless libacl_sim.so is loaded in this process.
__attribute__((weak)) void
attachAllocatorTraceTracker(AllocatorTraceTracker tracker);
} // namespace aclsim

namespace {

__attribute__((constructor)) void attachToKnownAllocators() {
  if (&aclsim::attachAllocatorTraceTracker)
    aclsim::attachAllocatorTraceTracker(
        &tether::trace::feed<aclsim::TraceEntry>);
}

} // namespace
