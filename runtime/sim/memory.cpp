// Device memory of the simulated runtime: plain host memory, zero-filled so
// runs are deterministic.
#include "acl_api.h"

#include <cstdlib>
#include <cstring>

extern "C" {

aclError aclrtMalloc(void **devPtr, size_t size,
                     aclrtMemMallocPolicy /*policy*/) {
  if (!devPtr || size == 0)
    return ACL_ERROR_INVALID_PARAM;
  void *p = nullptr;
  if (posix_memalign(&p, 512, size) != 0)
    return ACL_ERROR_RT_FAILURE;
  std::memset(p, 0, size);
  *devPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr) {
  std::free(devPtr);
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
  if (!deviceId)
    return ACL_ERROR_INVALID_PARAM;
  *deviceId = 0; // one simulated device
  return ACL_SUCCESS;
}

} // extern "C"
