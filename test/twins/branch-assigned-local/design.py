# Twin design branch-assigned-local, Python side (C++ side: design.cpp).
#
# Models a vLLM Ascend attention layer's workspace lookup written as an
# if/else (attention/attention_v1.py, attention_cp.py): the layer's workspace
# local is assigned in both branches, from the cache every layer reads when
# the slot is there, else freshly made and handed to a store helper that
# keeps only a weak reference in that cache. The local dies at the layer's
# return and the next layer hands the freed memory to its captured task. (In
# C++ the local is declared before the if/else.)
#
# Expected: `store-call`, the call that hands the helper the workspace, is
# tether-weak-ref-before-capture-end (with a note at the helper's `store`).
# The fixed twin's helper stores strongly (`fixed-store`): silent. The store
# is the slot's first fill (looked up first), not a replacement.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def remember_workspace(num_tokens, workspace):
    _workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: store


def attention_layer(query, num_tokens):
    if num_tokens in _workspaces:
        workspace = _workspaces[num_tokens]
    else:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        remember_workspace(num_tokens, workspace)  # TWIN: store-call
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = attention_layer(query, 16)
    return query


# --- the fix -----------------------------------------------------------------
_fixed_workspaces = {}


def remember_workspace_fixed(num_tokens, workspace):
    _fixed_workspaces[num_tokens] = workspace  # TWIN: fixed-store


def attention_layer_fixed(query, num_tokens):
    if num_tokens in _fixed_workspaces:
        workspace = _fixed_workspaces[num_tokens]
    else:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        remember_workspace_fixed(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode_fixed(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = attention_layer_fixed(query, 16)
    return query
