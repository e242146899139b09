# Twin design capture-helper, Python side (C++ side: design.cpp).
#
# A capture opened and closed by helper methods of the program's own class
# (SGLang's breakable CUDA graph capture, vLLM Ascend's breakable ACL graph:
# `capture_begin()` in `begin()`, `capture_end()` in `end()`, entered through
# `__enter__`/`__exit__`). The layers run between the two calls, so they run
# inside the capture; the first layer keeps only a weak reference of the
# workspace it made in a shared cache, which later layers read.
#
# Expected: `weak-store` is tether-weak-ref-before-capture-end, reached
# through the helpers in both drivers. The fixed twin keeps the workspace
# itself (`kept-store`): silent.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


class Capture:
    def __init__(self, graph):
        self.graph = graph

    def begin(self):
        self.graph.capture_begin()

    def end(self):
        self.graph.capture_end()

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()


_workspaces = {}


def attention_layer(query, n):
    ws = _workspaces.get(n)
    if ws is None:
        ws = torch.empty(n)
        _workspaces[n] = weak_ref_tensors(ws)  # TWIN: weak-store
    torch_npu.npu_paged_attention(query, ws)


def run(graph, query, n):
    cap = Capture(graph)
    cap.begin()
    attention_layer(query, n)
    attention_layer(query, n)
    cap.end()


def run_with(graph, query, n):
    with Capture(graph):
        attention_layer(query, n)
        attention_layer(query, n)


# --- the fix ----------------------------------------------------------------
_MAX_WORKSPACE = 1 << 20  # the largest any layer needs
_kept_workspaces = {}


def attention_layer_fixed(query, n):
    ws = _kept_workspaces.get(n)
    if ws is None:
        ws = torch.empty(_MAX_WORKSPACE)
        _kept_workspaces[n] = ws  # TWIN: kept-store
    torch_npu.npu_paged_attention(query, ws)


def run_fixed(graph, query, n):
    with Capture(graph):
        attention_layer_fixed(query, n)
        attention_layer_fixed(query, n)
