# Twin design capture-session, Python side (C++ side: design.cpp).
#
# Issue 12, road 3: a training stack captures every layer's forward graph,
# then every layer's backward graph, in one capture session: the graphs
# share one memory pool. Each layer's runner keeps its forward output for
# its backward graph only as a weak reference, made after the forward
# capture; the output's last strong reference dies when the forward capture
# returns. The pool then hands that memory to later captures' own tensors,
# and the backward graph reads whatever they put there.
#
# Expected: `between`, the weak reference made between two captures of the
# session, is tether-weak-ref-before-capture-end; so is `straight`, the
# same in one function. The fixed twins keep the output strongly until the
# backward graph is captured and weaken it then (`fixed-after-backward`,
# `fixed-straight`): silent.
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


def create_graphs(w1, w2, x, pool):
    _set_capture_start()
    first = GraphRunner(w1, pool)
    second = GraphRunner(w2, pool)
    first.create_fwd_graph(x)
    second.create_fwd_graph(x)
    second.create_bwd_graph()
    first.create_bwd_graph()
    _set_capture_end()
    return first, second


def capture_pair(w, x, pool):
    _set_capture_start()
    g1 = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g1, pool=pool):
        out = torch.matmul(x, w)
    weak = weak_ref_tensors(out)  # TWIN: straight
    del out
    g2 = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g2, pool=pool):
        grad = torch.relu(weak)
    _set_capture_end()
    return g1, g2, grad


# --- the fix -----------------------------------------------------------------
class FixedRunner:
    def __init__(self, weight, pool):
        self.weight = weight
        self.pool = pool
        self.fwd_graph = torch.cuda.CUDAGraph()
        self.bwd_graph = torch.cuda.CUDAGraph()
        self.fwd_out = None

    def create_fwd_graph(self, x):
        with torch.cuda.graph(self.fwd_graph, pool=self.pool):
            self.fwd_out = torch.matmul(x, self.weight)

    def create_bwd_graph(self):
        with torch.cuda.graph(self.bwd_graph, pool=self.pool):
            torch.autograd.backward(self.fwd_out)
        # No later graph of the session reads it any more.
        self.fwd_out = weak_ref_tensors(self.fwd_out)  # TWIN: fixed-after-backward


def create_fixed_graphs(w1, w2, x, pool):
    _set_capture_start()
    first = FixedRunner(w1, pool)
    second = FixedRunner(w2, pool)
    first.create_fwd_graph(x)
    second.create_fwd_graph(x)
    second.create_bwd_graph()
    first.create_bwd_graph()
    _set_capture_end()
    return first, second


def capture_pair_fixed(w, x, pool):
    _set_capture_start()
    g1 = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g1, pool=pool):
        out = torch.matmul(x, w)
    g2 = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g2, pool=pool):
        grad = torch.relu(out)
    _set_capture_end()
    weak = weak_ref_tensors(out)  # TWIN: fixed-straight
    del out
    return g1, g2, grad, weak
