// Task updates of one call (issue 12, road 1): the CUDA defaults, and an
// engine's own call named by the check option (TaskUpdateCalls) or a
// .tether.yaml (task_update_calls).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/update.cpp
// RUN: %clang_tidy --checks='-*,tether-graph-memory-dies-before-replay' \
// RUN:   --config="{CheckOptions: {tether-graph-memory-dies-before-replay.TaskUpdateCalls: 'engine::set_node_args'}}" \
// RUN:   %t/update.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --check-prefixes=CHECK,OWN --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: printf 'task_update_calls: [engine::set_node_args]\n' > %t/.tether.yaml
// RUN: not %tether check --checks=tether-graph-memory-dies-before-replay %t/update.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --check-prefixes=CHECK,OWN --implicit-check-not='warning:' --implicit-check-not='note:'
//
// Without them, only the CUDA call is an update.
// RUN: rm %t/.tether.yaml && not %tether check --checks=tether-graph-memory-dies-before-replay %t/update.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

#include "cuda_runtime_stub.h"
#include "torch_npu_stub.h"

namespace engine {
void set_node_args(void *node, void **args);
}

// A memcpy-free update: the node's argument array holds the workspace's
// address; the workspace dies at the return.
void update_node(cudaGraphExec_t exec, cudaGraphNode_t node, int64_t n) {
  at::Tensor workspace = at::empty({n});
  void *ws = workspace.data_ptr();
  void *args[] = {&ws};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  cudaGraphExecKernelNodeSetParams(exec, node, &params);
}
// CHECK: :[[@LINE-2]]:48: warning: memory bound into a graph task by a task update can die before the graph's next replay
// CHECK: :[[@LINE-7]]:14: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// CHECK: :[[@LINE-4]]:3: note: the captured task is updated here, in one call
// CHECK: :[[@LINE-4]]:1: note: the last strong reference to the memory dies here

// The engine's own update call, named by the project.
void update_own(void *node, int64_t n) {
  at::Tensor workspace = at::empty({n});
  void *ws = workspace.data_ptr();
  void *args[] = {&ws};
  engine::set_node_args(node, args);
}
// OWN: :[[@LINE-2]]:31: warning: memory bound into a graph task by a task update can die before the graph's next replay
// OWN: :[[@LINE-5]]:14: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
// OWN: :[[@LINE-4]]:3: note: the captured task is updated here, in one call
// OWN: :[[@LINE-4]]:1: note: the last strong reference to the memory dies here

// Negative: the parameters set on an eager launch's node are no update,
// and a workspace kept beside the graph is alive at the next launch.
static std::vector<at::Tensor> g_kept;
void update_kept(cudaGraphExec_t exec, cudaGraphNode_t node, int64_t n) {
  at::Tensor workspace = at::empty({n});
  g_kept.push_back(workspace);
  void *ws = workspace.data_ptr();
  void *args[] = {&ws};
  cudaKernelNodeParams params = {};
  params.kernelParams = args;
  cudaGraphExecKernelNodeSetParams(exec, node, &params);
}
