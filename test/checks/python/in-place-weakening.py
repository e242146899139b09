# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
#
# A place weakened in place (`P[k] = weak(P[k])`, `_ws = weak(_ws)`) gives
# up the strong reference it held. Inside a capture, when that place was
# the memory's only holder and a later layer of the same capture reads it,
# the memory dies while the capture still hands it to operations.
from dataclasses import dataclass, field

import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


@dataclass
class GraphParams:
    workspaces: dict = field(default_factory=dict)


_graph_params = GraphParams()


def attention(q, out, num_tokens):
    workspace = _graph_params.workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q)
        _graph_params.workspaces[num_tokens] = workspace
    torch_npu.npu_fused_infer_attention_score.out(q, workspace=workspace, out=[out])


# vLLM Ascend's helper, handed the params: every slot becomes a weak alias.
def weak_ref_workspaces(params):
    for num_tokens in params.workspaces:
        params.workspaces[num_tokens] = weak_ref_tensors(params.workspaces[num_tokens])


# Called between two layers of one capture: the second layer's task reads
# memory the pool has taken back. Reported where the caller hands the
# helper its params.
def capture_weakening_between_layers(graph, q, out, n):
    with torch.npu.graph(graph):
        attention(q, out, n)
        weak_ref_workspaces(_graph_params)
        attention(q, out, n)
# CHECK: :[[@LINE-2]]:9: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
# CHECK-NEXT: :[[@LINE-5]]:5: note: capture begins here
# CHECK-NEXT: :[[@LINE-21]]:21: note: the memory is allocated here and kept only by 'params.workspaces'
# CHECK-NEXT: :[[@LINE-14]]:9: note: the weak reference replaces the last strong reference, in 'params.workspaces', here
# CHECK-NEXT: :[[@LINE-21]]:54: note: the weak reference is used by a later operation of the same capture here
# CHECK-NEXT: :[[@LINE-6]]:29: note: capture ends here


# After the capture (vLLM Ascend after #5522): the graph's pool keeps what
# the capture allocated. Silent.
def capture_then_weaken(graph, q, out, n):
    with torch.npu.graph(graph):
        attention(q, out, n)
        attention(q, out, n)
    weak_ref_workspaces(_graph_params)


# A module global weakened by another function, between two layers.
_ws = None


def layer(q, out):
    global _ws
    if _ws is None:
        _ws = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q)
    torch_npu.npu_fused_infer_attention_score.out(q, workspace=_ws, out=[out])


def weaken_global():
    global _ws
    if _ws is not None:
        _ws = weak_ref_tensors(_ws)
        # CHECK: :[[@LINE-1]]:15: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: :[[@LINE+9]]:5: note: capture begins here
        # CHECK-NEXT: :[[@LINE+10]]:9: note: 'weaken_global' runs inside the capture through this call
        # CHECK-NEXT: :[[@LINE-11]]:15: note: the memory is allocated here and kept only by '_ws'
        # CHECK-NEXT: :[[@LINE-5]]:9: note: the weak reference replaces the last strong reference, in '_ws', here
        # CHECK-NEXT: :[[@LINE-12]]:54: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: :[[@LINE+7]]:22: note: capture ends here


def capture_global(graph, q, out):
    with torch.npu.graph(graph):
        layer(q, out)
        weaken_global()
        layer(q, out)


# Weakened after the last layer, still inside the capture: no later
# operation of this capture reads the slot. Silent.
_tail = {}


def tail_layer(q, out, n):
    ws = _tail.get(n)
    if ws is None:
        ws = torch.empty(n)
        _tail[n] = ws
    torch_npu.npu_op(q, workspace=ws, out=out)


def weaken_tail(n):
    _tail[n] = weak_ref_tensors(_tail[n])


def capture_weakening_last(graph, q, out, n):
    with torch.npu.graph(graph):
        tail_layer(q, out, n)
        tail_layer(q, out, n)
        weaken_tail(n)


# Another place keeps the workspace too (a keep-alive list): weakening the
# cache leaves it alive. Silent.
_kept = {}
_KEEP_ALIVE = []


def kept_layer(q, out, n):
    ws = _kept.get(n)
    if ws is None:
        ws = torch.empty(n)
        _kept[n] = ws
        _KEEP_ALIVE.append(ws)
    torch_npu.npu_op(q, workspace=ws, out=out)


def weaken_kept(n):
    _kept[n] = weak_ref_tensors(_kept[n])


def capture_kept(graph, q, out, n):
    with torch.npu.graph(graph):
        kept_layer(q, out, n)
        weaken_kept(n)
        kept_layer(q, out, n)


# In one function: the slot that held the workspace gets its weak alias,
# and the local dies at the return; the next layer reads the slot.
_same = {}


def same_function_layer(q, out, n):
    ws = _same.get(n)
    if ws is None:
        ws = torch.empty(n)
        _same[n] = ws
    torch_npu.npu_op(q, workspace=ws, out=out)
    _same[n] = weak_ref_tensors(ws)


def capture_same_function(graph, q, out, n):
    with torch.npu.graph(graph):
        same_function_layer(q, out, n)
        same_function_layer(q, out, n)
# CHECK: :[[@LINE-7]]:16: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
# CHECK-NEXT: :[[@LINE-4]]:5: note: capture begins here
# CHECK-NEXT: :[[@LINE-4]]:9: note: 'same_function_layer' runs inside the capture through this call
# CHECK-NEXT: :[[@LINE-10]]:5: note: the weak reference is stored in '_same', read by other code during the capture
# CHECK-NEXT: :[[@LINE-11]]:5: note: the last strong reference to the memory dies here
# CHECK-NEXT: :[[@LINE-13]]:25: note: the weak reference is used by a later operation of the same capture here
# CHECK-NEXT: :[[@LINE-7]]:39: note: capture ends here


# Weakened in the loop over the layers: the next turn's layer reads it.
_looped = {}


def looped_layer(q, out, n):
    ws = _looped.get(n)
    if ws is None:
        ws = torch.empty(n)
        _looped[n] = ws
    torch_npu.npu_op(q, workspace=ws, out=out)


def weaken_looped(n):
    _looped[n] = weak_ref_tensors(_looped[n])


def capture_loop(graph, q, out, n, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            looped_layer(q, out, n)
            weaken_looped(n)
# CHECK: :[[@LINE-8]]:18: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
# CHECK-NEXT: :[[@LINE-5]]:5: note: capture begins here
# CHECK-NEXT: :[[@LINE-3]]:13: note: 'weaken_looped' runs inside the capture through this call
# CHECK-NEXT: :[[@LINE-17]]:14: note: the memory is allocated here and kept only by '_looped'
# CHECK-NEXT: :[[@LINE-12]]:5: note: the weak reference replaces the last strong reference, in '_looped', here
# CHECK-NEXT: :[[@LINE-17]]:25: note: the weak reference is used by a later operation of the same capture here
# CHECK-NEXT: :[[@LINE-7]]:29: note: capture ends here
