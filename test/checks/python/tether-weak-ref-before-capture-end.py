# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_WORKSPACES = {}


# A layer's forward under the capture predicate: the cache keeps only a weak
# reference, the local dies at the return, and the next layer reads the
# cache and hands the freed memory to its captured task.
def attention_layer(ctx, query, num_tokens):
    if ctx.capturing:
        workspace = _WORKSPACES.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            _WORKSPACES[num_tokens] = weak_ref_tensors(workspace)
            # CHECK: :[[@LINE-1]]:39: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: :[[@LINE-6]]:8: note: capture begins here
            # CHECK-NEXT: :[[@LINE-3]]:13: note: the weak reference is stored in '_WORKSPACES', read by other code during the capture
            # CHECK-NEXT: :[[@LINE+4]]:9: note: the last strong reference to the memory dies here
            # CHECK-NEXT: :[[@LINE+1]]:58: note: the weak reference is used by a later operation of the same capture here
        torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)
        # CHECK-NOT: note:
        return query
    return torch_npu.npu_fused_infer_attention_score(query)


# In a `with torch.npu.graph` body: rebinding drops the only strong
# reference, then a later op of the same capture uses the weak one.
def capture_rebinding(graph, runnable, x):
    with torch.npu.graph(graph):
        out = runnable(x)
        out = weak_ref_tensors(out)
        # CHECK: :[[@LINE-1]]:15: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: :[[@LINE-4]]:5: note: capture begins here
        # CHECK-NEXT: :[[@LINE-3]]:9: note: the last strong reference to the memory dies here
        # CHECK-NEXT: :[[@LINE+2]]:24: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: :[[@LINE+2]]:5: note: capture ends here
        y = torch.relu(out)
    return y


# In capture through a call chain: the capture region is in the caller.
_SHARED = {}


def stash(n, t):
    tmp = torch.empty_like(t)
    _SHARED[n] = weak_ref_tensors(tmp)
    # CHECK: :[[@LINE-1]]:18: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
    # CHECK-NEXT: :[[@LINE+19]]:5: note: capture begins here
    # CHECK-NEXT: :[[@LINE+19]]:9: note: 'decode_step' runs inside the capture through this call
    # CHECK-NEXT: :[[@LINE+12]]:5: note: 'stash' runs inside the capture through this call
    # CHECK-NEXT: :[[@LINE-5]]:5: note: the weak reference is stored in '_SHARED', read by other code during the capture
    # CHECK-NEXT: :[[@LINE-6]]:5: note: the last strong reference to the memory dies here
    # CHECK-NEXT: :[[@LINE+5]]:28: note: the weak reference is used by a later operation of the same capture here
    # CHECK-NEXT: :[[@LINE+15]]:5: note: capture ends here


def consume(n, q):
    return torch.matmul(q, _SHARED[n])


def decode_step(n, q):
    stash(n, q)
    return consume(n, q)


def capture_chain(graph, q):
    with torch.cuda.graph(graph):
        decode_step(4, q)
    return q


# --- Not flagged ---------------------------------------------------------

# Weak references made after the capture block.
def weak_after_capture(graph, runnable, x):
    with torch.npu.graph(graph):
        out = runnable(x)
    _SHARED[0] = weak_ref_tensors(out)
    return torch.relu(_SHARED[0])


# The memory is strongly held by a long-lived object's attribute.
class Layer:
    def forward(self, ctx, q, n):
        if ctx.capturing:
            ws = torch.empty(n)
            self.workspace = ws
            _WORKSPACES[n] = weak_ref_tensors(ws)
            torch_npu.npu_op(q, workspace=_WORKSPACES[n])


# A keep-alive list, cleared only after the capture, holds the memory.
_KEEP_ALIVE = []


def with_keep_alive(ctx, q, n):
    if ctx.capturing:
        ws = torch.empty(n)
        _KEEP_ALIVE.append(ws)
        _WORKSPACES[n] = weak_ref_tensors(ws)
        torch_npu.npu_op(q, workspace=_WORKSPACES[n])


def after_capture_cleanup():
    _KEEP_ALIVE.clear()


# vLLM Ascend's attn_params: aliases of this layer's own activations, used
# only at replay to re-point the same task.
_ATTN_PARAMS = {4: []}


def record_attn_params(ctx, query, key, output, n):
    if ctx.capturing:
        _ATTN_PARAMS[n].append((weak_ref_tensors(query), weak_ref_tensors(key),
                                weak_ref_tensors(output)))
        torch_npu.npu_attention(query, key, out=output)


def update_attn_params(stream, n):
    with torch.npu.stream(stream):
        for query, key, output in _ATTN_PARAMS[n]:
            torch_npu.npu_attention(query, key, out=output)


# vLLM's CUDA-graph wrapper: the output is weak-ref'd as the last step of
# the capture and again after it; nothing in the capture uses it.
class CUDAGraphWrapper:
    def __call__(self, graph, *args):
        with torch.cuda.graph(graph, pool=self.pool):
            output = self.runnable(*args)
            if self.weak_ref_output:
                output = weak_ref_tensors(output)
        self.output = weak_ref_tensors(output)
        return output


# Under `if not ctx.capturing:` the code runs outside any capture.
def eager_only(ctx, q, n):
    if not ctx.capturing:
        ws = torch.empty(n)
        _WORKSPACES[n] = weak_ref_tensors(ws)
        torch_npu.npu_op(q, workspace=_WORKSPACES[n])


# A weak reference of a new tensor made as its argument (LightLLM's KDA
# prefill wrapper: `tensor_to_no_ref_tensor(torch.empty(...))`): the
# temporary's one reference ends when the conversion returns, and the
# capture's later operations write memory the pool has taken back.
def weak_temporary(x):
    if not torch.npu.is_current_stream_capturing():
        return x
    out = weak_ref_tensors(torch.empty(x.shape))
    torch_npu.npu_op(x, out=out)
    return out
# CHECK: :[[@LINE-3]]:11: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends
# CHECK-NEXT: :[[@LINE-6]]:8: note: capture begins here
# CHECK-NEXT: :[[@LINE-5]]:11: note: the last strong reference to the memory dies here
# CHECK-NEXT: :[[@LINE-5]]:25: note: the weak reference is used by a later operation of the same capture here


# A view of a parameter shares memory its caller holds: silent.
def weak_view(x):
    if not torch.npu.is_current_stream_capturing():
        return x
    out = weak_ref_tensors(x.view(-1))
    torch_npu.npu_op(x, out=out)
    return out
