# Twin design rebound-slot, Python side (C++ side: design.cpp).
#
# Models vLLM Ascend's keep-the-largest workspace per graph size
# (cache_graph_workspace) with its task update (update_graph_params): a
# layer that needs more replaces the shared workspace during the capture,
# and before every replay a task update binds each captured task again to
# the workspace the slot holds then, so no task keeps the replaced one.
#
# Expected: silent on the re-bound design (`fixed-rebound`). The twin whose
# update binds the workspace each task was captured with (kept beside the
# task's other arguments) leaves the earlier layers' tasks on the replaced
# workspace: `replace` is tether-workspace-shared-across-layers.
import torch
import torch_npu

_rebound_workspaces = {}
_rebound_args = {}
_captured_workspaces = {}
_captured_args = {}


def keep_largest_rebound(n, size):
    current = _rebound_workspaces.get(n)
    if current is None or current.numel() < size:
        _rebound_workspaces[n] = torch.empty(size, dtype=torch.uint8)  # TWIN: fixed-rebound
    return _rebound_workspaces[n]


def keep_largest_captured(n, size):
    current = _captured_workspaces.get(n)
    if current is None or current.numel() < size:
        _captured_workspaces[n] = torch.empty(size, dtype=torch.uint8)  # TWIN: replace
    return _captured_workspaces[n]


def capture(graph, query, n, num_layers):
    with torch.npu.graph(graph):
        for i in range(num_layers):
            ws = keep_largest_rebound(n, 64 * (i + 1))
            torch_npu._npu_paged_attention(query, ws)
            kept = keep_largest_captured(n, 64 * (i + 1))
            torch_npu._npu_paged_attention(query, kept)
            _captured_args.setdefault(n, []).append(kept)


def update_rebound(stream, handles, query, n):
    ws = _rebound_workspaces[n]
    for handle in handles:
        torch.npu.graph_task_update_begin(stream, handle)
        torch_npu._npu_paged_attention(query, ws)
        torch.npu.graph_task_update_end(stream)


def update_captured(stream, handles, query, n):
    for ws, handle in zip(_captured_args[n], handles):
        torch.npu.graph_task_update_begin(stream, handle)
        torch_npu._npu_paged_attention(query, ws)
        torch.npu.graph_task_update_end(stream)
