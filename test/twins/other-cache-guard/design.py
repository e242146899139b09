# Twin design other-cache-guard, Python side (C++ side: design.cpp).
#
# Issue 12, road 5: a layer looks its workspace up in one cache (the draft
# model's), finds it empty, allocates, and stores the new workspace into a
# different cache (the main model's). The lookup is always empty, so every
# layer allocates, and each store replaces the main cache's slot while tasks
# captured by earlier layers point at the old workspace. A guard on one cache
# proves nothing about the other.
#
# Expected: `replace` is tether-workspace-shared-across-layers. The fixed
# twin looks up the cache it fills (`fixed-fill`): silent.
import torch
import torch_npu

_draft_workspaces = {}
_workspaces = {}


def attention(query, num_tokens):
    workspace = _draft_workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        _workspaces[num_tokens] = workspace  # TWIN: replace
    return torch_npu.npu_fused_infer_attention_score(query, workspace=_workspaces[num_tokens])


def attention_fixed(query, num_tokens):
    workspace = _workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        _workspaces[num_tokens] = workspace  # TWIN: fixed-fill
    return torch_npu.npu_fused_infer_attention_score(query, workspace=_workspaces[num_tokens])


def capture(graph, layers, query):
    with torch.npu.graph(graph):
        for _ in layers:
            query = attention(query, 16)
            query = attention_fixed(query, 16)
    return query
