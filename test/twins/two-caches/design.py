# Twin design two-caches, Python side (C++ side: design.cpp).
#
# Models vLLM Ascend's attention layers before #5522 (attention/attention_v1.py
# full_graph_fia, compilation/acl_graph.py): the layer's graph params come from
# one of two caches, `get_draft_graph_params() if draft else
# get_graph_params()`, a slot of it is read and handed to the captured task,
# and on a miss the workspace made here is stored by
# update_graph_params_workspaces, which keeps only a weak reference in the
# main model's cache. The value read may come from either cache, so the read
# of the main cache by the next layer must not be lost where the two paths
# join.
#
# Expected: `store-call` (the call that hands the helper the workspace, with a
# note at its `store`) is tether-weak-ref-before-capture-end (the draft model's
# strong store `draft-store` is silent). The fixed twin's helper stores
# strongly (`fixed-store`): silent. The stores are first fills (looked up
# first), not replacements.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


class GraphParams:
    def __init__(self):
        self.workspaces = {}


_graph_params = GraphParams()
_draft_graph_params = GraphParams()


def get_graph_params():
    return _graph_params


def get_draft_graph_params():
    return _draft_graph_params


def update_graph_params_workspaces(num_tokens, workspace):
    _graph_params.workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: store


def update_draft_graph_params_workspaces(num_tokens, workspace):
    _draft_graph_params.workspaces[num_tokens] = workspace  # TWIN: draft-store


def attention_layer(query, num_tokens, draft):
    graph_params = get_draft_graph_params() if draft else get_graph_params()
    workspace = graph_params.workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        if draft:
            update_draft_graph_params_workspaces(num_tokens, workspace)
        else:
            update_graph_params_workspaces(num_tokens, workspace)  # TWIN: store-call
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode(graph, query, num_layers, draft):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = attention_layer(query, 16, draft)
    return query


# --- the fix -----------------------------------------------------------------
_fixed_graph_params = GraphParams()
_fixed_draft_graph_params = GraphParams()


def get_fixed_graph_params():
    return _fixed_graph_params


def get_fixed_draft_graph_params():
    return _fixed_draft_graph_params


def update_graph_params_workspaces_fixed(num_tokens, workspace):
    _fixed_graph_params.workspaces[num_tokens] = workspace  # TWIN: fixed-store


def update_draft_graph_params_workspaces_fixed(num_tokens, workspace):
    _fixed_draft_graph_params.workspaces[num_tokens] = workspace


def attention_layer_fixed(query, num_tokens, draft):
    graph_params = get_fixed_draft_graph_params() if draft else get_fixed_graph_params()
    workspace = graph_params.workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
        if draft:
            update_draft_graph_params_workspaces_fixed(num_tokens, workspace)
        else:
            update_graph_params_workspaces_fixed(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode_fixed(graph, query, num_layers, draft):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = attention_layer_fixed(query, 16, draft)
    return query
