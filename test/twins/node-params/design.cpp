// Twin design node-params, C++ side (Python side: design.py): a kernel node
// of an instantiated graph set to new parameters in one call, its argument
// array holding the address of a workspace that dies at the next iteration.
// See design.py.
//
// Expected: `set-params` is tether-graph-memory-dies-before-replay;
// `fixed-kept` is silent.
#include "cuda_runtime_stub.h"
#include "torch_npu_stub.h"

static std::unordered_map<int64_t, at::Tensor> g_update_workspaces;

struct NodeUpdater {
  void update(cudaGraphExec_t exec, const std::vector<cudaGraphNode_t> &nodes,
              const at::Tensor &query, int64_t num_tokens) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      at::Tensor workspace = at::empty({num_tokens});
      void *q = query.data_ptr();
      void *ws = workspace.data_ptr();
      void *args[] = {&q, &ws};
      cudaKernelNodeParams params = {};
      params.kernelParams = args;
      cudaGraphExecKernelNodeSetParams(exec, nodes[i], &params); // TWIN: set-params
    }
  }

  void update_kept(cudaGraphExec_t exec, const std::vector<cudaGraphNode_t> &nodes,
                   const at::Tensor &query, int64_t num_tokens) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      at::Tensor workspace = at::empty({num_tokens});
      g_update_workspaces[int64_t(i)] = workspace;
      void *q = query.data_ptr();
      void *ws = workspace.data_ptr();
      void *args[] = {&q, &ws};
      cudaKernelNodeParams params = {};
      params.kernelParams = args;
      cudaGraphExecKernelNodeSetParams(exec, nodes[i], &params); // TWIN: fixed-kept
    }
  }
};
