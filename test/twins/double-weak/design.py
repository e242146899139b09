# Twin design double-weak, Python side (C++ side: design.cpp).
#
# Models vLLM Ascend's paged-attention path before #5522
# (attention/attention_v1.py full_graph_pa): the call site hands
# `weak_ref_tensors(workspace)` to update_graph_params_workspaces, which
# weak-refs its parameter again before storing it.
#
# Expected: `call`, the helper's call with an argument that is already a weak
# reference, is tether-double-weak-ref; the helper's own conversion
# (`helper-weak`) and the argument's conversion are not separate findings.
# The fixed twin passes the strong workspace (`fixed-call`): silent.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def update_graph_params_workspaces(num_tokens, workspace):
    _workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: helper-weak


def paged_attention(query, num_tokens):
    workspace = torch_npu._npu_paged_attention_get_workspace(query)
    update_graph_params_workspaces(num_tokens, weak_ref_tensors(workspace))  # TWIN: call
    return torch_npu._npu_paged_attention(query, workspace=workspace)


# --- the fix -----------------------------------------------------------------
def paged_attention_fixed(query, num_tokens):
    workspace = torch_npu._npu_paged_attention_get_workspace(query)
    update_graph_params_workspaces(num_tokens, workspace)  # TWIN: fixed-call
    return torch_npu._npu_paged_attention(query, workspace=workspace)
