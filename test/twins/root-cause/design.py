# Twin design root-cause, Python side (C++ side: design.cpp).
#
# Issue 12, one finding per root cause: a store helper keeps only a weak
# reference of the workspace it is handed, and both attention paths (decode
# and prefill) hand it their local workspace, which dies at their return
# while later layers' captured tasks read it. The helper is the bug, once
# (`store`, with a note per call path; the calls themselves are not
# reported). A second helper is right for one caller, which keeps the
# workspace alive beside the cache, and wrong for the other: those are
# separate bugs, reported at the call that hands it dying memory
# (`dying-call`), silent at the other and at the helper (`alive-store`).
# A store replacing a shared workspace slot, reached from several layers,
# is one tether-workspace-shared-across-layers finding (`replace`).
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def update_workspaces(num_tokens, workspace):
    _workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: store


def decode_layer(query, num_tokens):
    workspace = _workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch.empty(num_tokens)
        update_workspaces(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def prefill_layer(query, num_tokens):
    workspace = _workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch.empty(num_tokens)
        update_workspaces(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = decode_layer(query, 16)
            query = prefill_layer(query, 32)
    return query


# --- a helper right for one caller --------------------------------------------
_aliases = {}
_owners = []


def keep_alias(num_tokens, workspace):
    _aliases[num_tokens] = weak_ref_tensors(workspace)  # TWIN: alive-store


def owning_layer(query, num_tokens):
    workspace = _aliases.get(num_tokens)
    if workspace is None:
        workspace = torch.empty(num_tokens)
        _owners.append(workspace)
        keep_alias(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def careless_layer(query, num_tokens):
    workspace = _aliases.get(num_tokens)
    if workspace is None:
        workspace = torch.empty(num_tokens)
        keep_alias(num_tokens, workspace)  # TWIN: dying-call
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_mixed(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = owning_layer(query, 16)
            query = careless_layer(query, 32)
    return query


# --- a replaced slot reached from three layers --------------------------------
# One store replaces the shared slot (`replace`), reached from three layers:
# one finding, with a note per further call path.
_fia_workspaces = {}


def set_workspace(num_tokens, workspace):
    _fia_workspaces[num_tokens] = workspace  # TWIN: replace


def grow_layer(query, num_tokens):
    workspace = _fia_workspaces.get(num_tokens)
    if workspace is None or workspace.numel() < num_tokens:
        workspace = torch.empty(num_tokens)
        set_workspace(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def fresh_layer(query, num_tokens):
    workspace = torch.empty(num_tokens)
    set_workspace(num_tokens, workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_three(graph, query):
    with torch.npu.graph(graph):
        query = grow_layer(query, 8)
        query = fresh_layer(query, 8)
        query = grow_layer(query, 8)
        query = fresh_layer(query, 16)
    return query
