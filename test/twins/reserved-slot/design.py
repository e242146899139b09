# Twin design reserved-slot, Python side (C++ side: design.cpp).
#
# A workspace cache keyed by the token count whose slot a helper reserves
# before the attention layer fills it, all during capture. Reserving by
# assignment (`cache[n] = None`) empties the slot the first layer filled, so
# the next layer makes a new workspace and replaces the one the earlier
# layers' captured tasks point at. Reserving with `setdefault` fills an
# absent key only and leaves a held workspace where it is.
#
# Expected: `reserve-assign` is tether-workspace-shared-across-layers; the
# fixed twin's `reserve-absent` is silent.
import torch
import torch_npu

_workspaces = {}


def reserve(cache, num_tokens):
    cache[num_tokens] = None  # TWIN: reserve-assign


def attention_layer(query, out):
    if torch.npu.is_current_stream_capturing():
        n = query.numel()
        reserve(_workspaces, n)
        ws = _workspaces.get(n)
        if ws is None:
            ws = torch_npu._npu_paged_attention_get_workspace(query, out=out)
            _workspaces[n] = ws
        torch_npu._npu_paged_attention(query, out=out, workspace=ws)


# --- the fix ----------------------------------------------------------------
_kept_workspaces = {}


def reserve_fixed(cache, num_tokens):
    cache.setdefault(num_tokens, None)  # TWIN: reserve-absent


def attention_layer_fixed(query, out):
    if torch.npu.is_current_stream_capturing():
        n = query.numel()
        reserve_fixed(_kept_workspaces, n)
        ws = _kept_workspaces.get(n)
        if ws is None:
            ws = torch_npu._npu_paged_attention_get_workspace(query, out=out)
            _kept_workspaces[n] = ws
        torch_npu._npu_paged_attention(query, out=out, workspace=ws)
