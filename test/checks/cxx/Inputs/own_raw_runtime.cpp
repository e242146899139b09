// An own runtime's raw memory calls, named by raw-device-memory.cpp's
// check options or .tether.yaml (not a test of its own: Inputs/).
#include "torch_npu_stub.h"
namespace rt {
int alloc(void **p, unsigned long n);
int release(void *p);
int drop_graph(void *g);
} // namespace rt

void own_update_release(void *handle, void *graph, aclrtStream stream,
                        uint64_t size) {
  void *ws = nullptr;
  rt::alloc(&ws, size);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  aclnnAdd(ws, size, nullptr, stream);
  // OWN: :[[@LINE-1]]:12: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
  // OWN: :[[@LINE-3]]:3: note: task update begins here
  aclmdlRICaptureTaskUpdateEnd(stream);
  // OWN: :[[@LINE-1]]:3: note: task update ends here
  rt::release(ws);
  // OWN: :[[@LINE-1]]:3: note: the memory is freed here, while the graph can still be replayed
}

void own_update_drop_release(void *handle, void *graph, aclrtStream stream,
                             uint64_t size) {
  void *ws = nullptr;
  rt::alloc(&ws, size);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  aclnnAdd(ws, size, nullptr, stream);
  aclmdlRICaptureTaskUpdateEnd(stream);
  rt::drop_graph(graph);
  rt::release(ws);
}
