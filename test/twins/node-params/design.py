# Twin design node-params, Python side (C++ side: design.cpp).
#
# Issue 12, road 1, as CUDA code writes it: a captured graph's kernel node
# is set to new parameters between replays in one call
# (cuGraphExecKernelNodeSetParams, here through cuda-python on the graph
# torch instantiated). The node's argument list holds the raw address of a
# workspace allocated for the update; the workspace's last strong reference
# dies at the next iteration and at the return, while the graph keeps the
# address for every later launch.
#
# Expected: `set-params` is tether-graph-memory-dies-before-replay. The fixed
# twin keeps each update's workspace beside the graph (`fixed-kept`);
# silent.
import torch
from cuda import cuda

_update_workspaces = {}


class NodeUpdater:
    def update(self, graph, nodes, query, num_tokens):
        for node in nodes:
            workspace = torch.empty(num_tokens, dtype=torch.uint8, device="cuda")
            params = cuda.CUDA_KERNEL_NODE_PARAMS()
            params.kernelParams = (query.data_ptr(), workspace.data_ptr())
            cuda.cuGraphExecKernelNodeSetParams(graph.raw_cuda_graph_exec(), node, params)  # TWIN: set-params

    def update_kept(self, graph, nodes, query, num_tokens):
        for node in nodes:
            workspace = torch.empty(num_tokens, dtype=torch.uint8, device="cuda")
            _update_workspaces[node] = workspace
            params = cuda.CUDA_KERNEL_NODE_PARAMS()
            params.kernelParams = (query.data_ptr(), workspace.data_ptr())
            cuda.cuGraphExecKernelNodeSetParams(graph.raw_cuda_graph_exec(), node, params)  # TWIN: fixed-kept
