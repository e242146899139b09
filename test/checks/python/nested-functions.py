# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
#
# Functions defined inside functions are functions of their own, called by
# name from the body that defines them: here the store helper of the
# #5522 shape is a nested function (after `def` a tab, inside an `if`).
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_WORKSPACES = {}


def attention_layer(ctx, query, num_tokens, default_size=0):
    if ctx.capturing:
        def	store(ws):
            _WORKSPACES[num_tokens] = weak_ref_tensors(ws)

        workspace = _WORKSPACES.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            store(workspace)
            # CHECK: :[[@LINE-1]]:13: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: :[[@LINE-9]]:8: note: capture begins here
            # CHECK-NEXT: :[[@LINE-8]]:13: note: the weak reference is stored in '_WORKSPACES', read by other code during the capture
            # CHECK-NEXT: :[[@LINE+3]]:9: note: the last strong reference to the memory dies here
            # CHECK-NEXT: :[[@LINE+1]]:58: note: the weak reference is used by a later operation of the same capture here
        torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)
        return query
    return torch_npu.npu_fused_infer_attention_score(query)


# The fixed twin: the nested helper keeps the workspace.
def attention_layer_fixed(ctx, query, num_tokens, default_size=0):
    if ctx.capturing:
        def store(ws):
            _WORKSPACES[num_tokens] = ws

        workspace = _WORKSPACES.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
            store(workspace)
        torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)
        return query
    return torch_npu.npu_fused_infer_attention_score(query)
