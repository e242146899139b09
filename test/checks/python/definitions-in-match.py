# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
#
# Module-level definitions inside a `match` (a backend or version dispatch)
# are the module's functions, as those inside `if` and `try` are: the store
# helper of the #5522 shape defined in a case is followed from its caller.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_BACKEND = "npu"
_WORKSPACES = {}

match _BACKEND:
    case "npu":
        def store(key, ws):
            _WORKSPACES[key] = weak_ref_tensors(ws)
    case _:
        def keep(key, ws):
            _WORKSPACES[key] = ws


def attention_layer(ctx, query, num_tokens):
    if ctx.capturing:
        workspace = _WORKSPACES.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            store(num_tokens, workspace)
            # CHECK: :[[@LINE-1]]:13: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: :[[@LINE-6]]:8: note: capture begins here
            # CHECK-NEXT: :[[@LINE-14]]:13: note: the weak reference is stored in '_WORKSPACES', read by other code during the capture
            # CHECK-NEXT: :[[@LINE+3]]:9: note: the last strong reference to the memory dies here
            # CHECK-NEXT: :[[@LINE+1]]:58: note: the weak reference is used by a later operation of the same capture here
        torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)
        return query
    return torch_npu.npu_fused_infer_attention_score(query)


# The fixed twin: the helper of the other case keeps the workspace.
def attention_layer_fixed(ctx, query, num_tokens):
    if ctx.capturing:
        workspace = _WORKSPACES.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            keep(num_tokens, workspace)
        torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)
        return query
    return torch_npu.npu_fused_infer_attention_score(query)
