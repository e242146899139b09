# Twin design weak-store, Python side (C++ side: design.cpp).
#
# Models vLLM Ascend just before #5522 (compilation/acl_graph.py and
# attention/attention_v1.py full_graph_fia): every attention layer takes the
# fused-infer-attention workspace for this token count from a cache shared by
# all layers; the first layer makes it during capture and stores it through
# update_graph_params_workspaces, which keeps only a weak reference. The
# layer's local dies at its return and the next layer hands the freed memory
# to its captured task.
#
# Expected: `store-call`, the call that hands the helper the workspace, is
# tether-weak-ref-before-capture-end, with a note at the helper's `store`
# (the helper is right for callers that keep the workspace). The fixed twin (the
# #5522 fix) stores the workspace strongly (`fixed-store`) and weakens the
# cache only after the capture block, skipping empty slots (`fixed-weaken`):
# both silent.
# Both stores are the slot's first fill (the caller looked it up first), not
# a replacement: no tether-workspace-shared-across-layers.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def update_graph_params_workspaces(num_tokens, workspace):
    _workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: store


def attention_layer(query, num_tokens):
    workspace = _workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        update_graph_params_workspaces(num_tokens, workspace)  # TWIN: store-call
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = attention_layer(query, 16)
    return query


# --- the fix -----------------------------------------------------------------
_fixed_workspaces = {}


def update_graph_params_workspaces_fixed(num_tokens, workspace):
    _fixed_workspaces[num_tokens] = workspace  # TWIN: fixed-store


def attention_layer_fixed(query, num_tokens):
    workspace = _fixed_workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        update_graph_params_workspaces_fixed(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def weak_ref_workspaces_fixed():
    for num_tokens in _fixed_workspaces:
        if _fixed_workspaces[num_tokens] is None:
            continue
        _fixed_workspaces[num_tokens] = weak_ref_tensors(_fixed_workspaces[num_tokens])  # TWIN: fixed-weaken


def capture_decode_fixed(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = attention_layer_fixed(query, 16)
    weak_ref_workspaces_fixed()
    return query
