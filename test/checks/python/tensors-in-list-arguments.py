# A tensor written inside a list or tuple in a call is handed to the op as
# the container is: `op(q, [ws])`, `torch.cat((q, ws))`, and the
# `out=[output, lse]` of vLLM Ascend's fused-infer-attention `.out` calls.
# A later layer's use of the cached weak alias that way is the use the
# weak-ref check needs, and an update that binds a fresh buffer through
# `out=[...]` binds it into the task. autograd.grad reads its outputs'
# history, not their storage (Megatron-LM hands it weak references of a
# captured graph's outputs): no use.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_WS = {}
_GRAD = {}


def layer_list(q, n):
    ws = _WS.get(n)
    if ws is None:
        ws = torch.empty(n, device="npu")
        _WS[n] = weak_ref_tensors(ws)
    return torch.ops.mylib.attn_multi(q, [ws])


def layer_grad(q, n):
    out = _GRAD.get(n)
    if out is None:
        out = torch.empty(n, device="npu")
        _GRAD[n] = weak_ref_tensors(out)
    return torch.autograd.grad(outputs=(out,), inputs=(q,))


def capture(graph, q, n):
    with torch.npu.graph(graph):
        for _ in range(3):
            q = layer_list(q, n)
            layer_grad(q, n)


def update(update_stream, handles, q, k, v, output):
    with torch.npu.stream(update_stream):
        for handle in handles:
            lse = torch.empty(q.shape[0], device="npu")
            torch.npu.graph_task_update_begin(update_stream, handle)
            torch_npu.npu_fused_infer_attention_score.out(q, k, v, out=[output, lse])
            torch.npu.graph_task_update_end(update_stream)

# CHECK: tensors-in-list-arguments.py:22:18: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
# CHECK-NEXT: tensors-in-list-arguments.py:35:5: note: capture begins here
# CHECK-NEXT: tensors-in-list-arguments.py:37:17: note: 'layer_list' runs inside the capture through this call
# CHECK-NEXT: tensors-in-list-arguments.py:22:9: note: the weak reference is stored in '_WS', read by other code during the capture
# CHECK-NEXT: tensors-in-list-arguments.py:23:5: note: the last strong reference to the memory dies here
# CHECK-NEXT: tensors-in-list-arguments.py:23:42: note: the weak reference is used by a later operation of the same capture here
# CHECK-NEXT: tensors-in-list-arguments.py:38:29: note: capture ends here
# CHECK: tensors-in-list-arguments.py:46:68: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
# CHECK-NEXT: tensors-in-list-arguments.py:45:13: note: task update begins here
# CHECK-NEXT: tensors-in-list-arguments.py:47:13: note: task update ends here
# CHECK-NEXT: tensors-in-list-arguments.py:47:59: note: the last strong reference to the memory dies here
