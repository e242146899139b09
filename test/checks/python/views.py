# A view of a tensor (`t[:n]`, `t.view(-1)`, `t.narrow(...)`, `t.detach()`,
# `torch.transpose(t, ...)`) is another handle of t's memory: what it is
# handed to reads t, t's holders keep it, and a view of a weak reference is
# as weak (TensorRT-LLM's make_weak_ref ends in `.view(dtype)`).
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_WS = {}
_KEPT = {}


# A runner whose capture method keeps its graph (ScaleLLM's CudaGraph): the
# caller allocates the static inputs and hands it views of them.
class GraphRunner:
    def capture(self, tokens, block_tables):
        self.tokens = tokens
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.out = torch.matmul(tokens, block_tables)


class ModelRunner:
    def __init__(self):
        self.runners = {}

    def capture_graphs(self, max_bs):
        token_ids = torch.zeros(max_bs, 64)
        block_tables = torch.zeros(max_bs, 64)
        bs = max_bs
        while bs > 0:
            runner = GraphRunner()
            runner.capture(token_ids[:bs], block_tables[:bs].view(bs, 64))
# CHECK: :[[@LINE-1]]:13: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
# CHECK-NEXT: :[[@LINE-16]]:9: note: capture begins here
# CHECK-NEXT: :[[@LINE-16]]:45: note: the memory is used by a captured task here
# CHECK-NEXT: :[[@LINE-17]]:58: note: capture ends here
# CHECK-NEXT: :[[@LINE+2]]:21: note: the last strong reference to the memory dies here
            self.runners[bs] = runner
            bs //= 2

    # Both inputs kept beside the runners: silent.
    def capture_graphs_kept(self, max_bs):
        self.token_ids = torch.zeros(max_bs, 64)
        self.block_tables = torch.zeros(max_bs, 64)
        bs = max_bs
        while bs > 0:
            runner = GraphRunner()
            runner.capture(self.token_ids[:bs],
                           torch.narrow(self.block_tables, 0, 0, bs))
            self.runners[bs] = runner
            bs //= 2


# A view of a weak reference is weak (TensorRT-LLM's make_weak_ref ends in
# `.view(dtype)`): converting its result again is a double conversion.
def make_weak_view(t):
    if isinstance(t, torch.Tensor):
        return weak_ref_tensors(t).view(t.dtype)
    return t


def weak_of_weak_view(x):
    w = make_weak_view(x)
    return weak_ref_tensors(w)
# CHECK: :[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: :[[@LINE-3]]:9: note: first weak reference made here


# A slot keyed by the size, filled through a helper that hands the
# workspace back (a detached view): the key carries the size; silent.
def detached(t):
    if isinstance(t, torch.Tensor):
        return t.detach()
    return t


def attention(q, num_tokens):
    ws = _WS.get(num_tokens)
    if ws is None:
        ws = torch.empty((num_tokens, 4096), device="npu")
        _WS[num_tokens] = detached(ws)
    torch_npu.npu_op(q, ws)


def capture(graph, q, num_tokens):
    with torch.npu.graph(graph):
        attention(q, num_tokens)
        attention(q, num_tokens)

