# Twin design cp-call-site, Python side (C++ side: design.cpp).
#
# Models vLLM Ascend's context-parallel attention right after #5522
# (attention/attention_cp.py at 03679cf1d3): the store helper now holds the
# workspace strongly, but this call site still hands it
# `weak_ref_tensors(workspace)`, so the cache every layer reads during the
# capture keeps only a weak reference of a local that dies at the return.
# The layer also keeps weak aliases of its own activations in attn_params for
# the task update at replay (vLLM Ascend's attn_params pattern): those are
# used only after the capture, by the same task. The capture is known from
# the forward context's predicate, as in vLLM Ascend.
#
# Expected: `call-site-weak`, the conversion at the call site, is
# tether-weak-ref-before-capture-end; the strong store in the helper
# (`store`), the attn_params aliases (`attn-params`) and their use at replay
# (`update`) are silent. The fixed twin passes the strong workspace
# (`fixed-call`) and keeps the same aliases (`fixed-attn-params`): silent.
import torch
import torch_npu
from vllm.forward_context import get_forward_context
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}
_attn_params = {16: []}


def update_graph_params_workspaces(num_tokens, workspace):
    _workspaces[num_tokens] = workspace  # TWIN: store


def context_parallel_attention(query, num_tokens):
    if get_forward_context().capturing:
        workspace = _workspaces.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            update_graph_params_workspaces(num_tokens, weak_ref_tensors(workspace))  # TWIN: call-site-weak
        attn_out = torch.empty_like(query)
        _attn_params[num_tokens].append((weak_ref_tensors(query), weak_ref_tensors(attn_out)))  # TWIN: attn-params
        torch_npu.npu_fused_infer_attention_score.out(query, workspace=workspace, out=attn_out)
        return attn_out
    return torch_npu.npu_fused_infer_attention_score(query)


def update_attn_params(update_stream, num_tokens):
    with torch.npu.stream(update_stream):
        for query, attn_out in _attn_params[num_tokens]:
            torch_npu.npu_fused_infer_attention_score.out(query, workspace=_workspaces.get(num_tokens), out=attn_out)  # TWIN: update


# --- the fix -----------------------------------------------------------------
_fixed_workspaces = {}
_fixed_attn_params = {16: []}


def update_graph_params_workspaces_fixed(num_tokens, workspace):
    _fixed_workspaces[num_tokens] = workspace


def context_parallel_attention_fixed(query, num_tokens):
    if get_forward_context().capturing:
        workspace = _fixed_workspaces.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            update_graph_params_workspaces_fixed(num_tokens, workspace)  # TWIN: fixed-call
        attn_out = torch.empty_like(query)
        _fixed_attn_params[num_tokens].append((weak_ref_tensors(query), weak_ref_tensors(attn_out)))  # TWIN: fixed-attn-params
        torch_npu.npu_fused_infer_attention_score.out(query, workspace=workspace, out=attn_out)
        return attn_out
    return torch_npu.npu_fused_infer_attention_score(query)
