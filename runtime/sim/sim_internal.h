// Glue between the simulated runtime's allocator and its graph module.
#ifndef ACL_SIM_INTERNAL_H
#define ACL_SIM_INTERNAL_H

#include "acl_api.h"

#include <cstdint>

namespace aclsim::detail {

// The private pool allocations on `stream` go to, 0 when it is not capturing.
uint64_t capturePoolOf(aclrtStream stream);
// The graph owning pool `pool` is gone: its segments go back once free.
void releasePool(uint64_t pool);

} // namespace aclsim::detail

#endif
