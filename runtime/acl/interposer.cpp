// The LD_PRELOAD interposer: each wrapped ACL call forwards to the next
// definition and feeds the verifier what the call means. The logic lives in
// the verifier behind the C ABI; this file only translates.
#include "acl_api.h"
#include "handle_map.h"
#include "next_symbol.h"

#include "tether/verify.h"

namespace tether::acl {
namespace {

HandleMap &graphs() {
  static HandleMap *m = new HandleMap; // used until the very end of the run
  return *m;
}
HandleMap &taskGroups() {
  static HandleMap *m = new HandleMap;
  return *m;
}

int currentDevice() {
  static const auto getDevice =
      reinterpret_cast<decltype(&aclrtGetDevice)>(dlsym(RTLD_NEXT,
                                                        "aclrtGetDevice"));
  int32_t dev = 0;
  if (!getDevice || getDevice(&dev) != ACL_SUCCESS)
    return 0;
  return dev;
}

} // namespace
} // namespace tether::acl

using namespace tether::acl;

extern "C" {

// Raw device memory. When a caching allocator's trace is attached, its
// segments are announced right after and stop counting as blocks.
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  TETHER_NEXT(aclrtMalloc);
  aclError rc = real_aclrtMalloc(devPtr, size, policy);
  if (rc == ACL_SUCCESS && devPtr && *devPtr)
    tether_verify_alloc(currentDevice(), *devPtr, size, nullptr, 0);
  return rc;
}

aclError aclrtFree(void *devPtr) {
  TETHER_NEXT(aclrtFree);
  tether_verify_free(currentDevice(), devPtr);
  return real_aclrtFree(devPtr);
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  TETHER_NEXT(aclmdlRICaptureBegin);
  aclError rc = real_aclmdlRICaptureBegin(stream, mode);
  if (rc == ACL_SUCCESS)
    tether_verify_capture_begin(currentDevice(), stream);
  return rc;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI) {
  TETHER_NEXT(aclmdlRICaptureEnd);
  aclError rc = real_aclmdlRICaptureEnd(stream, modelRI);
  if (rc == ACL_SUCCESS) {
    int dev = currentDevice();
    uint64_t g = tether_verify_capture_end(dev, stream);
    if (modelRI)
      graphs().put(*modelRI, VerifierId{dev, g});
  }
  return rc;
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
  TETHER_NEXT(aclmdlRICaptureTaskGrpBegin);
  aclError rc = real_aclmdlRICaptureTaskGrpBegin(stream);
  if (rc == ACL_SUCCESS)
    tether_verify_task_group_begin(currentDevice(), stream);
  return rc;
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle) {
  TETHER_NEXT(aclmdlRICaptureTaskGrpEnd);
  aclError rc = real_aclmdlRICaptureTaskGrpEnd(stream, handle);
  if (rc == ACL_SUCCESS) {
    int dev = currentDevice();
    uint64_t task = tether_verify_task_group_end(dev, stream);
    if (handle)
      taskGroups().put(*handle, VerifierId{dev, task});
  }
  return rc;
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream,
                                        aclrtTaskGrp handle) {
  TETHER_NEXT(aclmdlRICaptureTaskUpdateBegin);
  aclError rc = real_aclmdlRICaptureTaskUpdateBegin(stream, handle);
  VerifierId t = taskGroups().get(handle);
  if (rc == ACL_SUCCESS && t.id)
    tether_verify_task_update_begin(t.device, stream, t.id);
  return rc;
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
  TETHER_NEXT(aclmdlRICaptureTaskUpdateEnd);
  aclError rc = real_aclmdlRICaptureTaskUpdateEnd(stream);
  tether_verify_task_update_end(currentDevice(), stream);
  return rc;
}

// Checked before the launch: the report must precede the corruption.
aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  TETHER_NEXT(aclmdlRIExecuteAsync);
  VerifierId g = graphs().get(modelRI);
  if (g.id)
    tether_verify_replay(g.device, g.id);
  return real_aclmdlRIExecuteAsync(modelRI, stream);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  TETHER_NEXT(aclmdlRIDestroy);
  VerifierId g = graphs().take(modelRI);
  if (g.id)
    tether_verify_graph_destroy(g.device, g.id);
  return real_aclmdlRIDestroy(modelRI);
}

} // extern "C"
