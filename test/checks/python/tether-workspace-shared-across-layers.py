# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
import torch_npu

# A "keep the larger workspace" cache shared by every layer.
_WORKSPACE = None


def get_workspace(size):
    global _WORKSPACE
    if _WORKSPACE is None or _WORKSPACE.numel() < size:
        _WORKSPACE = torch.empty(size, dtype=torch.uint8, device="npu")
    return _WORKSPACE


class MLAImpl:
    def forward(self, ctx, q, size):
        if ctx.capturing:
            ws = get_workspace(size)
            return torch_npu.npu_mla(q, workspace=ws)
        return torch_npu.npu_mla(q)


# A workspace cache cleared in the middle of the capture.
_SHARED_WORKSPACES = {}


def reset_between_layers(ctx):
    if ctx.capturing:
        _SHARED_WORKSPACES.clear()


def layer_with_cache(ctx, q, n):
    if ctx.capturing:
        ws = _SHARED_WORKSPACES.get(n)
        if ws is None:
            ws = torch.empty(n * 2)
            _SHARED_WORKSPACES[n] = ws
        torch_npu.npu_op(q, workspace=ws)


# Sized from this layer's head count, cached for all layers without a check.
_SIZED_WORKSPACES = {}


class SlidingLayer:
    def forward(self, ctx, q, n):
        if ctx.capturing:
            ws = _SIZED_WORKSPACES.get(n)
            if ws is None:
                ws = torch.empty(n * self.num_heads * self.head_size)
                _SIZED_WORKSPACES[n] = ws
            torch_npu.npu_op(q, workspace=ws)


# Two layers use one slot on different streams inside the capture.
_STREAM_WORKSPACES = {}


def main_stream_layer(ctx, q, n):
    if ctx.capturing:
        torch_npu.npu_op(q, workspace=_STREAM_WORKSPACES[n])


def side_stream_layer(ctx, q, n, side):
    if ctx.capturing:
        with torch.npu.stream(side):
            torch_npu.npu_op(q, workspace=_STREAM_WORKSPACES[n])


# --- Not flagged ---------------------------------------------------------

# Filled once per key (first layer), read by the others: never replaced.
_FILLED_ONCE = {}


def first_fill(ctx, q, n):
    if ctx.capturing:
        ws = _FILLED_ONCE.get(n)
        if ws is None:
            ws = torch_npu._npu_paged_attention_get_workspace(q)
            _FILLED_ONCE[n] = ws
        torch_npu.npu_op(q, workspace=ws)


# Each layer's own attribute is not shared across layers.
class OwnWorkspace:
    def forward(self, ctx, q, size):
        if ctx.capturing:
            if self._workspace is None or self._workspace.numel() < size:
                self._workspace = torch.empty(size)
            torch_npu.npu_op(q, workspace=self._workspace)


# Streams ordered by an event wait.
_ORDERED = {}


def ordered_main(ctx, q, n):
    if ctx.capturing:
        torch_npu.npu_op(q, workspace=_ORDERED[n])


def ordered_side(ctx, q, n, side):
    if ctx.capturing:
        side.wait_stream(torch.npu.current_stream())
        with torch.npu.stream(side):
            torch_npu.npu_op(q, workspace=_ORDERED[n])


# Replaced only outside capture.
def resize_eagerly(size):
    global _WORKSPACE
    _WORKSPACE = torch.empty(size)

# CHECK: shared-across-layers.py:12:9: warning: workspace slot '_WORKSPACE' shared by several layers is replaced during graph capture; tasks captured by earlier layers still point at the old workspace [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:18:12: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:19:18: note: 'get_workspace' runs inside the capture through this call
# CHECK-NEXT: shared-across-layers.py:20:41: note: an earlier layer reads the slot and hands the workspace to a captured task here
# CHECK: shared-across-layers.py:30:9: warning: workspace slot '_SHARED_WORKSPACES' shared by several layers is replaced during graph capture{{.*}} [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:29:8: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:39:29: note: an earlier layer reads the slot and hands the workspace to a captured task here
# CHECK: shared-across-layers.py:52:17: warning: workspace cached in '_SIZED_WORKSPACES' is sized for the first caller and reused by other layers without a size check [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:48:12: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:51:22: note: the workspace size is computed from this caller's arguments here
# CHECK-NEXT: shared-across-layers.py:53:33: note: another layer reads the slot and hands the workspace to a captured task without a size check here
# CHECK: shared-across-layers.py:68:33: warning: workspace slot '_STREAM_WORKSPACES' is used on different streams inside the capture without ordering [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:66:8: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:62:29: note: the slot is also used on another stream here


# setdefault fills an absent key only, as `if k not in d: d[k] = v` does: a
# first fill with None (vLLM Ascend forks reserve their slots so) replaces
# no workspace. Silent.
_RESERVED_WORKSPACES = {}


def reserve_slot(cache, key):
    cache.setdefault(key, None)


class ReservedSlotLayer:
    def forward(self, ctx, q, out):
        if ctx.capturing:
            n = q.shape[0]
            reserve_slot(_RESERVED_WORKSPACES, n)
            ws = _RESERVED_WORKSPACES.get(n)
            if ws is None:
                ws = torch_npu._npu_paged_attention_get_workspace(q, out=out)
                _RESERVED_WORKSPACES[n] = ws
            torch_npu._npu_paged_attention(q, out=out, workspace=ws)
        return out


# Keep the larger workspace per graph size, replaced during the capture, as
# vLLM Ascend's cache_graph_workspace does. When a task update binds every
# captured task again to what the slot holds before each replay (its
# update_graph_params), no task keeps the old workspace: silent. When the
# update binds the workspace each task was captured with, the tasks of
# earlier layers keep the replaced one: reported.
class KeptGraphParams:
    def __init__(self):
        self.workspaces = {}
        self.attn_params = {}


_REBOUND_PARAMS = KeptGraphParams()
_CAPTURED_PARAMS = KeptGraphParams()


def keep_largest_rebound(n, candidate):
    current = _REBOUND_PARAMS.workspaces.get(n)
    if current is None or candidate.numel() > current.numel():
        _REBOUND_PARAMS.workspaces[n] = candidate
    return _REBOUND_PARAMS.workspaces[n]


def keep_largest_captured(n, candidate):
    current = _CAPTURED_PARAMS.workspaces.get(n)
    if current is None or candidate.numel() > current.numel():
        _CAPTURED_PARAMS.workspaces[n] = candidate
    return _CAPTURED_PARAMS.workspaces[n]


class KeepLargestLayer:
    def forward(self, ctx, q, out):
        n = q.shape[0]
        if ctx.capturing:
            candidate = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q, num_heads=self.num_heads)
            ws = keep_largest_rebound(n, candidate)
            torch_npu.npu_fused_infer_attention_score.out(q, workspace=ws, out=[out])
            _REBOUND_PARAMS.attn_params.setdefault(n, []).append((q, out))
            other = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q, num_heads=self.num_heads)
            kept = keep_largest_captured(n, other)
            torch_npu.npu_fused_infer_attention_score.out(q, workspace=kept, out=[out])
            _CAPTURED_PARAMS.attn_params.setdefault(n, []).append((q, out, kept))


def update_rebound(stream, handles, n):
    ws = _REBOUND_PARAMS.workspaces.get(n)
    for (q, out), handle in zip(_REBOUND_PARAMS.attn_params[n], handles):
        torch.npu.graph_task_update_begin(stream, handle)
        torch_npu.npu_fused_infer_attention_score.out(q, workspace=ws, out=[out])
        torch.npu.graph_task_update_end(stream)


def update_captured(stream, handles, n):
    for (q, out, ws), handle in zip(_CAPTURED_PARAMS.attn_params[n], handles):
        torch.npu.graph_task_update_begin(stream, handle)
        torch_npu.npu_fused_infer_attention_score.out(q, workspace=ws, out=[out])
        torch.npu.graph_task_update_end(stream)
# CHECK: shared-across-layers.py:181:9: warning: workspace slot '_CAPTURED_PARAMS.workspaces' shared by several layers is replaced during graph capture; tasks captured by earlier layers still point at the old workspace [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:188:12: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:191:62: note: an earlier layer reads the slot and hands the workspace to a captured task here


# Sizes written as a tuple are sizes: a one-slot workspace sized from the
# first layer's hidden size (reported, as the same sizes as arguments are).
# A slot keyed by every parameter that sized its workspace holds the size
# its key asks for (silent).
_TUPLE_SIZED_WORKSPACES = {}
_KEY_SIZED_WORKSPACES = {}


def tuple_sized_attention(q, num_tokens, hidden):
    ws = _TUPLE_SIZED_WORKSPACES.get("attn")
    if ws is None:
        ws = torch.empty((num_tokens, hidden))
        _TUPLE_SIZED_WORKSPACES["attn"] = ws
    torch_npu.npu_op(q, workspace=ws)


def key_sized_attention(q, num_tokens):
    ws = _KEY_SIZED_WORKSPACES.get(num_tokens)
    if ws is None:
        ws = torch.empty(num_tokens, 4096)
        _KEY_SIZED_WORKSPACES[num_tokens] = ws
    torch_npu.npu_op(q, workspace=ws)


def capture_sized_layers(graph, q, num_tokens):
    with torch.npu.graph(graph):
        tuple_sized_attention(q, num_tokens, 1024)
        tuple_sized_attention(q, num_tokens, 4096)
        key_sized_attention(q, num_tokens)
        key_sized_attention(q, num_tokens)
# CHECK: shared-across-layers.py:229:9: warning: workspace cached in '_TUPLE_SIZED_WORKSPACES' is sized for the first caller and reused by other layers without a size check [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:242:5: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:243:9: note: 'tuple_sized_attention' runs inside the capture through this call
# CHECK-NEXT: shared-across-layers.py:228:14: note: the workspace size is computed from this caller's arguments here
# CHECK-NEXT: shared-across-layers.py:230:25: note: another layer reads the slot and hands the workspace to a captured task without a size check here
# CHECK-NEXT: shared-across-layers.py:246:43: note: capture ends here


# The first fill done by a store helper of neutral name (vLLM Ascend fills
# through get_capture_resource / update_graph_params_workspaces), sized by
# the calling layer's head count; the layer names what it gets a workspace,
# which makes the helper's cache a workspace cache (reported).
_resources = {}


def get_capture_resource(key, size):
    if key not in _resources:
        _resources[key] = torch.empty(size)
    return _resources[key]


class ResourceAttention:
    def forward(self, query, num_tokens):
        workspace = get_capture_resource(num_tokens, num_tokens * self.num_heads * self.head_size)
        return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_resource_layers(graph, layers: list[ResourceAttention], query):
    with torch.npu.graph(graph):
        for layer in layers:
            query = layer.forward(query, 16)
    return query
# CHECK: shared-across-layers.py:264:9: warning: workspace cached in '_resources' is sized for the first caller and reused by other layers without a size check [tether-workspace-shared-across-layers]
# CHECK-NEXT: shared-across-layers.py:275:5: note: capture begins here
# CHECK-NEXT: shared-across-layers.py:277:21: note: 'ResourceAttention.forward' runs inside the capture through this call
# CHECK-NEXT: shared-across-layers.py:270:21: note: 'get_capture_resource' runs inside the capture through this call
# CHECK-NEXT: shared-across-layers.py:264:27: note: the workspace size is computed from this caller's arguments here
# CHECK-NEXT: shared-across-layers.py:271:65: note: another layer reads the slot and hands the workspace to a captured task without a size check here
# CHECK-NEXT: shared-across-layers.py:278:5: note: capture ends here
