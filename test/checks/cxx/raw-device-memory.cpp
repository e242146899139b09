// Raw device memory (aclrtMalloc/aclrtFree, cudaMalloc/cudaFree): no
// reference owns it, so it dies where it is freed, not where its pointer
// goes. Freed after a task update or a capture bound its address into a
// graph that can still be replayed, it is reported; freed after the graph
// is destroyed (here or in a helper), or never freed, it is not.
// RUN: %clang_tidy --checks='-*,tether-graph-memory-dies-before-replay' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: not %tether check --checks='tether-graph-memory-dies-before-replay' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
//
// An own runtime's calls, named by the check options (RawAllocators,
// RawFrees, GraphDestroys) or a .tether.yaml; without them, silent.
// RUN: rm -rf %t && mkdir -p %t && cp %S/Inputs/own_raw_runtime.cpp %t/own.cpp
// RUN: %clang_tidy --checks='-*,tether-graph-memory-dies-before-replay' \
// RUN:   --config="{CheckOptions: {tether-graph-memory-dies-before-replay.RawAllocators: 'rt::alloc', tether-graph-memory-dies-before-replay.RawFrees: 'rt::release', tether-graph-memory-dies-before-replay.GraphDestroys: 'rt::drop_graph'}}" \
// RUN:   %t/own.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %S/Inputs/own_raw_runtime.cpp --check-prefix=OWN --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: printf 'raw_allocators: [rt::alloc]\nraw_frees: [rt::release]\ngraph_destroys: [rt::drop_graph]\n' > %t/.tether.yaml
// RUN: not %tether check --checks=tether-graph-memory-dies-before-replay %t/own.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %S/Inputs/own_raw_runtime.cpp --check-prefix=OWN --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: rm %t/.tether.yaml && %tether check --checks=tether-graph-memory-dies-before-replay %t/own.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty --implicit-check-not='warning:' --implicit-check-not='note:'
// NONE-NOT: {{warning|note}}:

#include "cuda_runtime_stub.h"
#include "torch_npu_stub.h"

//===--- a task update's workspace freed while the graph lives on ---------===//
void update_and_free(void *handle, aclrtStream stream, uint64_t size) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  aclnnAdd(ws, size, nullptr, stream);
  // CHECK: :[[@LINE-1]]:12: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
  // CHECK: :[[@LINE-3]]:3: note: task update begins here
  aclmdlRICaptureTaskUpdateEnd(stream);
  // CHECK: :[[@LINE-1]]:3: note: task update ends here
  aclrtFree(ws);
  // CHECK: :[[@LINE-1]]:3: note: the memory is freed here, while the graph can still be replayed
}

//===--- CANN's model-update sample: the graph is destroyed first ---------===//
void capture_update_destroy_free(aclrtStream stream, aclrtStream update,
                                 uint64_t size, int loops) {
  void *ws = nullptr, *update_ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&update_ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclmdlRI model;
  void *handle = nullptr;
  aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  aclmdlRICaptureTaskGrpBegin(stream);
  aclnnAdd(ws, size, nullptr, stream);
  aclmdlRICaptureTaskGrpEnd(stream, &handle);
  aclmdlRICaptureEnd(stream, &model);
  for (int i = 0; i < loops; ++i) {
    aclmdlRIExecuteAsync(model, stream);
    aclmdlRICaptureTaskUpdateBegin(update, handle);
    aclnnAdd(update_ws, size, nullptr, update);
    aclmdlRICaptureTaskUpdateEnd(update);
  }
  aclmdlRIDestroy(model);
  aclrtFree(ws);
  aclrtFree(update_ws);
}

// A free before the destroy with no replay between: the graph never runs
// again, so nothing reads the freed memory.
void free_then_destroy(aclrtStream stream, void *handle, aclmdlRI model,
                       uint64_t size) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  aclnnAdd(ws, size, nullptr, stream);
  aclmdlRICaptureTaskUpdateEnd(stream);
  aclrtFree(ws);
  aclmdlRIDestroy(model);
}

// Freed inside the replay loop: the next replay reads it, whatever the
// destroy after the loop does.
void free_in_replay_loop(aclrtStream stream, void *handle, aclmdlRI model,
                         uint64_t size, int loops) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  for (int i = 0; i < loops; ++i) {
    aclmdlRIExecuteAsync(model, stream);
    if (i == 1) {
      aclmdlRICaptureTaskUpdateBegin(stream, handle);
      aclnnAdd(ws, size, nullptr, stream);
      // CHECK: :[[@LINE-1]]:16: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
      // CHECK: :[[@LINE-3]]:7: note: task update begins here
      aclmdlRICaptureTaskUpdateEnd(stream);
      // CHECK: :[[@LINE-1]]:7: note: task update ends here
      aclrtFree(ws);
      // CHECK: :[[@LINE-1]]:7: note: the memory is freed here, while the graph can still be replayed
    }
  }
  aclmdlRIDestroy(model);
}

// A workspace per iteration, bound before the replay that reads it and
// freed after it: each replay reads live memory.
void workspace_per_replay(aclrtStream stream, void *handle, aclmdlRI model,
                          uint64_t size, int loops) {
  for (int i = 0; i < loops; ++i) {
    void *ws = nullptr;
    aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    aclnnAdd(ws, size, nullptr, stream);
    aclmdlRICaptureTaskUpdateEnd(stream);
    aclmdlRIExecuteAsync(model, stream);
    aclrtFree(ws);
  }
  aclmdlRIDestroy(model);
}

//===--- the destroy in a helper ------------------------------------------===//
struct Runner {
  aclmdlRI model = nullptr;
  void *handle = nullptr;
  void teardown() { aclmdlRIDestroy(model); }
};

void update_teardown_free(Runner &r, aclrtStream stream, uint64_t size) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclmdlRICaptureTaskUpdateBegin(stream, r.handle);
  aclnnAdd(ws, size, nullptr, stream);
  aclmdlRICaptureTaskUpdateEnd(stream);
  r.teardown();
  aclrtFree(ws);
}

// Destroyed on one path only: the other frees memory a live graph uses.
void destroy_on_one_path(Runner &r, aclrtStream stream, uint64_t size,
                         bool last) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclmdlRICaptureTaskUpdateBegin(stream, r.handle);
  aclnnAdd(ws, size, nullptr, stream);
  // CHECK: :[[@LINE-1]]:12: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
  // CHECK: :[[@LINE-3]]:3: note: task update begins here
  aclmdlRICaptureTaskUpdateEnd(stream);
  // CHECK: :[[@LINE-1]]:3: note: task update ends here
  if (last)
    r.teardown();
  aclrtFree(ws);
  // CHECK: :[[@LINE-1]]:3: note: the memory is freed here, while the graph can still be replayed
}

//===--- raw memory no one frees, or kept beside the graph ----------------===//
// A pointer going out of scope frees nothing: the memory leaks, and the
// graph's address stays valid.
void update_and_leak(void *handle, aclrtStream stream, uint64_t size) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  aclnnAdd(ws, size, nullptr, stream);
  aclmdlRICaptureTaskUpdateEnd(stream);
}

struct Updater {
  void *ws_ = nullptr;
  void update(void *handle, aclrtStream stream, uint64_t size) {
    aclrtMalloc(&ws_, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    aclnnAdd(ws_, size, nullptr, stream);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
};

//===--- an op that frees the workspace it made, run inside an update -----===//
void add_with_own_workspace(aclrtStream stream, uint64_t size) {
  void *ws = nullptr;
  aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclnnAdd(ws, size, nullptr, stream);
  aclrtFree(ws);
}

void update_through_op(void *handle, aclrtStream stream, uint64_t size) {
  aclmdlRICaptureTaskUpdateBegin(stream, handle);
  add_with_own_workspace(stream, size);
  aclmdlRICaptureTaskUpdateEnd(stream);
  // CHECK: :[[@LINE-2]]:3: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
  // CHECK: :[[@LINE-4]]:3: note: task update begins here
  // CHECK: :[[@LINE-10]]:12: note: the memory is bound into the updated task here
  // CHECK: :[[@LINE-4]]:3: note: task update ends here
  // CHECK: :[[@LINE-11]]:3: note: the memory is freed here, while the graph can still be replayed
}

//===--- a sample's main: its own graph, error returns between -----------===//
#define CHECK_ERROR(x)                                                         \
  do {                                                                         \
    if ((x) != 0)                                                              \
      return 1;                                                                \
  } while (0)

// The graph is this function's and is kept nowhere: it is replayed only
// here, so a free after the last replay is harmless, even with an error
// return between it and the destroy.
int sample_main(aclrtStream stream, aclrtStream update, uint64_t size) {
  void *ws = nullptr;
  CHECK_ERROR(aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST));
  aclmdlRI model;
  void *handle = nullptr;
  CHECK_ERROR(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  CHECK_ERROR(aclmdlRICaptureTaskGrpBegin(stream));
  aclnnAdd(ws, size, nullptr, stream);
  CHECK_ERROR(aclmdlRICaptureTaskGrpEnd(stream, &handle));
  CHECK_ERROR(aclmdlRICaptureEnd(stream, &model));
  for (int i = 0; i < 3; ++i) {
    CHECK_ERROR(aclmdlRIExecuteAsync(model, stream));
    CHECK_ERROR(aclmdlRICaptureTaskUpdateBegin(update, handle));
    aclnnAdd(ws, size, nullptr, update);
    CHECK_ERROR(aclmdlRICaptureTaskUpdateEnd(update));
  }
  CHECK_ERROR(aclrtFree(ws));
  CHECK_ERROR(aclmdlRIDestroy(model));
  return 0;
}

// A graph the caller made: updated, replayed, then the buffer freed and
// the graph destroyed, each call checked with an early return. A return
// between the free and the destroy is an error path, not a live graph.
int update_launch_free_destroy(cudaGraphExec_t exec, cudaGraphNode_t node,
                               cudaStream_t s, size_t n) {
  float *buf = nullptr;
  CHECK_ERROR(cudaMalloc(reinterpret_cast<void **>(&buf), n));
  void *args[] = {&buf};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  CHECK_ERROR(cudaGraphExecKernelNodeSetParams(exec, node, &params));
  CHECK_ERROR(cudaGraphLaunch(exec, s));
  CHECK_ERROR(cudaFree(buf));
  CHECK_ERROR(cudaGraphExecDestroy(exec));
  return 0;
}

//===--- a capture's raw input, freed while the kept graph lives ----------===//
struct AclRunner {
  aclmdlRI model_ = nullptr;
  void capture(aclrtStream s, uint64_t n) {
    void *in = nullptr;
    aclrtMalloc(&in, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    // CHECK: :[[@LINE+1]]:14: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
    aclnnAdd(in, n, nullptr, s);
    // CHECK: :[[@LINE-3]]:5: note: capture begins here
    aclmdlRICaptureEnd(s, &model_);
    // CHECK: :[[@LINE-1]]:5: note: capture ends here
    aclrtFree(in);
    // CHECK: :[[@LINE-1]]:5: note: the memory is freed here, while the graph can still be replayed
  }
  // Never freed: the address stays valid for the graph.
  void capture_leaked(aclrtStream s, uint64_t n) {
    void *in = nullptr;
    aclrtMalloc(&in, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    aclnnAdd(in, n, nullptr, s);
    aclmdlRICaptureEnd(s, &model_);
  }
};

//===--- CUDA: a node's new parameters, and a stream capture --------------===//
void set_node_then_free(cudaGraphExec_t exec, cudaGraphNode_t node,
                        size_t n) {
  float *buf = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&buf), n);
  void *args[] = {&buf};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  cudaGraphExecKernelNodeSetParams(exec, node, &params);
  // CHECK: :[[@LINE-1]]:48: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
  // CHECK: :[[@LINE-2]]:3: note: the captured task is updated here, in one call
  cudaFree(buf);
  // CHECK: :[[@LINE-1]]:3: note: the memory is freed here, while the graph can still be replayed
}

void set_node_destroy_free(cudaGraphExec_t exec, cudaGraphNode_t node,
                           size_t n) {
  float *buf = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&buf), n);
  void *args[] = {&buf};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  cudaGraphExecKernelNodeSetParams(exec, node, &params);
  cudaGraphExecDestroy(exec);
  cudaFree(buf);
}

void kernel_launch(float *in, cudaStream_t s);

struct CudaRunner {
  cudaGraph_t graph_ = nullptr;
  void capture(cudaStream_t s, size_t n) {
    float *in = nullptr;
    cudaMalloc(reinterpret_cast<void **>(&in), n);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    // CHECK: :[[@LINE+1]]:19: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
    kernel_launch(in, s);
    // CHECK: :[[@LINE-3]]:5: note: capture begins here
    cudaStreamEndCapture(s, &graph_);
    // CHECK: :[[@LINE-1]]:5: note: capture ends here
    cudaFree(in);
    // CHECK: :[[@LINE-1]]:5: note: the memory is freed here, while the graph can still be replayed
  }
};

// A workspace grown between replays: freed, allocated anew and bound
// again before the next replay, which reads the new one.
void grow_between_replays(cudaGraphExec_t exec, cudaGraphNode_t node,
                          cudaStream_t s, size_t n, size_t m) {
  float *buf = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&buf), n);
  void *args[] = {&buf};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  cudaGraphExecKernelNodeSetParams(exec, node, &params);
  cudaGraphLaunch(exec, s);
  if (m > n) {
    cudaFree(buf);
    cudaMalloc(reinterpret_cast<void **>(&buf), m);
    cudaGraphExecKernelNodeSetParams(exec, node, &params);
  }
  cudaGraphLaunch(exec, s);
  cudaGraphExecDestroy(exec);
  cudaFree(buf);
}

// CUDA's jacobi sample: the function updates and replays an executable it
// instantiated itself, frees the buffer after the last replay and leaks
// the executable. It drives the replays; none comes after the free.
double replay_then_free(cudaGraphExec_t graph_exec, cudaGraphNode_t node,
                        cudaStream_t s, int iters) {
  double *d_sum = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&d_sum), sizeof(double));
  void *args[] = {&d_sum};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  for (int k = 0; k < iters; ++k) {
    cudaGraphExecKernelNodeSetParams(graph_exec, node, &params);
    cudaGraphLaunch(graph_exec, s);
  }
  cudaFree(d_sum);
  return 0.0;
}

// CUDA's own header wraps its allocator in a template with a body
// (`cudaMalloc(T **, size_t)`): the caller's call is still the allocation.
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc(reinterpret_cast<void **>(devPtr), size);
}

// A captured input freed, then the local graph replayed: the replay reads
// freed memory whether or not the graph is kept.
void free_before_local_replay(cudaStream_t s, size_t n) {
  float *in = nullptr;
  cudaMalloc(&in, n);
  cudaGraph_t graph = nullptr;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  kernel_launch(in, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec = nullptr;
  cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  cudaFree(in);
  cudaGraphLaunch(exec, s);
  cudaGraphExecDestroy(exec);
  // CHECK: :[[@LINE-7]]:17: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
  // CHECK: :[[@LINE-9]]:3: note: capture begins here
  // CHECK: :[[@LINE-8]]:3: note: capture ends here
  // CHECK: :[[@LINE-6]]:3: note: the memory is freed here, while the graph can still be replayed
}
