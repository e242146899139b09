# Task updates of one call: cuda-python's node update (a default) and a
# project's own, named in the .tether.yaml beside this file.
import torch
from cuda import cuda
from my_engine import graphs


def update_nodes(graph, nodes, query, n):
    for node in nodes:
        workspace = torch.empty(n, dtype=torch.uint8, device="cuda")
        params = cuda.CUDA_KERNEL_NODE_PARAMS()
        params.kernelParams = (query.data_ptr(), workspace.data_ptr())
        cuda.cuGraphExecKernelNodeSetParams(graph.raw_cuda_graph_exec(), node, params)
# CHECK: :[[@LINE-1]]:80: warning: memory bound into a graph task by a task update can die before the graph's next replay
# CHECK-NEXT: :[[@LINE-3]]:50: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
# CHECK-NEXT: :[[@LINE-3]]:9: note: the captured task is updated here, in one call
# CHECK-NEXT: :[[@LINE-4]]:87: note: the last strong reference to the memory dies here


def update_own(node, n):
    workspace = torch.empty(n, dtype=torch.uint8, device="cuda")
    graphs.set_node_args(node, (workspace.data_ptr(), n))
# OWN: :[[@LINE-1]]:32: warning: memory bound into a graph task by a task update can die before the graph's next replay
# OWN-NEXT: :[[@LINE-2]]:33: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
# OWN-NEXT: :[[@LINE-3]]:5: note: the captured task is updated here, in one call
# OWN-NEXT: :[[@LINE-4]]:5: note: the last strong reference to the memory dies here


# Negative: each update's workspace kept beside the graph.
_kept = {}


def update_kept(graph, nodes, query, n):
    for node in nodes:
        workspace = torch.empty(n, dtype=torch.uint8, device="cuda")
        _kept[node] = workspace
        params = cuda.CUDA_KERNEL_NODE_PARAMS()
        params.kernelParams = (query.data_ptr(), workspace.data_ptr())
        cuda.cuGraphExecKernelNodeSetParams(graph.raw_cuda_graph_exec(), node, params)
