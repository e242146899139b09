# Twin design weakened-slot, Python side (C++ side: design.cpp).
#
# A shared workspace cache keyed by the token count: the first layer makes
# the workspace and stores it, every layer reads the slot and hands the
# workspace to its op. A helper weakens the cache in place
# (`_workspaces[n] = weak_ref_tensors(_workspaces[n])`) to save memory.
# Called between two layers of one capture, it drops the cache's strong
# reference, the only one left once the first layer returned: the pool
# hands the freed blocks to the capture's next allocations while the next
# layer's task still reads them (vLLM Ascend's `weak_ref_workspaces`, as
# #16794 removed it, called too early).
#
# Expected: `weaken`, the weak reference the helper makes, is
# tether-weak-ref-before-capture-end. The fixed twin weakens the cache
# after the capture (`fixed-weaken`, the #5522 shape): silent.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def attention(q, out, num_tokens):
    workspace = _workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q)
        _workspaces[num_tokens] = workspace
    torch_npu.npu_fused_infer_attention_score.out(q, workspace=workspace, out=[out])


def weaken(num_tokens):
    _workspaces[num_tokens] = weak_ref_tensors(_workspaces[num_tokens])  # TWIN: weaken


def capture(graph, q, out, num_tokens):
    with torch.npu.graph(graph):
        attention(q, out, num_tokens)
        weaken(num_tokens)
        attention(q, out, num_tokens)


# --- the fix -----------------------------------------------------------------
_fixed_workspaces = {}


def attention_fixed(q, out, num_tokens):
    workspace = _fixed_workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q)
        _fixed_workspaces[num_tokens] = workspace
    torch_npu.npu_fused_infer_attention_score.out(q, workspace=workspace, out=[out])


def weaken_fixed(num_tokens):
    _fixed_workspaces[num_tokens] = weak_ref_tensors(_fixed_workspaces[num_tokens])  # TWIN: fixed-weaken


def capture_fixed(graph, q, out, num_tokens):
    with torch.npu.graph(graph):
        attention_fixed(q, out, num_tokens)
        attention_fixed(q, out, num_tokens)
    weaken_fixed(num_tokens)
