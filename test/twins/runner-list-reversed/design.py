# Twin design runner-list-reversed, Python side (C++ side: design.cpp).
#
# The runner-list twin, with the backward graphs captured in reverse layer
# order, as training stacks do: the loop runs over a copy of the list
# (`reversed(runners)`), whose elements are still the runners of the
# parameter list. Every forward graph is captured, then every backward
# graph. Each runner keeps
# its forward output for its backward graph only as a weak reference, whose
# memory's last strong reference dies when the forward capture returns.
#
# Expected: `between` is tether-weak-ref-before-capture-end. The fixed
# runner keeps the output strongly (`fixed-strong`): silent.
import torch
from vllm_ascend.utils import weak_ref_tensors
from megatron.core.transformer.cuda_graphs import _set_capture_end, _set_capture_start


class GraphRunner:
    def __init__(self, weight, pool):
        self.weight = weight
        self.pool = pool
        self.fwd_graph = torch.cuda.CUDAGraph()
        self.bwd_graph = torch.cuda.CUDAGraph()
        self.fwd_out = None

    def create_fwd_graph(self, x):
        with torch.cuda.graph(self.fwd_graph, pool=self.pool):
            out = torch.matmul(x, self.weight)
        self.fwd_out = weak_ref_tensors(out)  # TWIN: between

    def create_bwd_graph(self):
        with torch.cuda.graph(self.bwd_graph, pool=self.pool):
            torch.autograd.backward(self.fwd_out)


def create_graphs(runners: list[GraphRunner], x):
    _set_capture_start()
    for runner in runners:
        runner.create_fwd_graph(x)
    for runner in reversed(runners):
        runner.create_bwd_graph()
    _set_capture_end()


class StrongRunner:
    def __init__(self, weight, pool):
        self.weight = weight
        self.pool = pool
        self.fwd_graph = torch.cuda.CUDAGraph()
        self.bwd_graph = torch.cuda.CUDAGraph()
        self.fwd_out = None

    def create_fwd_graph(self, x):
        with torch.cuda.graph(self.fwd_graph, pool=self.pool):
            out = torch.matmul(x, self.weight)
        self.fwd_out = out  # TWIN: fixed-strong

    def create_bwd_graph(self):
        with torch.cuda.graph(self.bwd_graph, pool=self.pool):
            torch.autograd.backward(self.fwd_out)


def create_graphs_strong(runners: list[StrongRunner], x):
    _set_capture_start()
    for runner in runners:
        runner.create_fwd_graph(x)
    for runner in reversed(runners):
        runner.create_bwd_graph()
    _set_capture_end()
