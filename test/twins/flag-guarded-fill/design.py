# Twin design flag-guarded-fill, Python side (C++ side: design.cpp).
#
# A workspace cache keyed by the token count, filled during capture by the
# attention layer through a flag: the layer decides whether to store, makes
# the workspace, and stores it later when the flag says so (the shape of
# vLLM Ascend's `should_update_workspace_cache`). Setting the flag when the
# held workspace is too small replaces, mid-capture, the workspace earlier
# layers' captured tasks point at.
#
# Expected: `resize-flag` is tether-workspace-shared-across-layers. The
# fixed twin (a workspace of the largest size any layer needs) sets the flag
# only when the slot is empty (`fill-flag`), and a
# layer that stores the slot's own workspace back (`write-back`) replaces
# nothing: both silent.
import torch
import torch_npu

_workspaces = {}


def attention_layer(query, out, need):
    if torch.npu.is_current_stream_capturing():
        n = query.numel()
        ws = _workspaces.get(n)
        update = False
        if ws is None or ws.numel() < need:
            ws = torch.empty(need)
            update = True
        if update:
            _workspaces[n] = ws  # TWIN: resize-flag
        torch_npu.npu_paged_attention(query, ws)


# --- the fix ----------------------------------------------------------------
_MAX_WORKSPACE = 1 << 20  # the largest any layer needs
_kept_workspaces = {}


def attention_layer_fixed(query, out):
    if torch.npu.is_current_stream_capturing():
        n = query.numel()
        ws = _kept_workspaces.get(n)
        update = False
        if ws is None:
            ws = torch.empty(_MAX_WORKSPACE)
            update = True
        if update:
            _kept_workspaces[n] = ws  # TWIN: fill-flag
        torch_npu.npu_paged_attention(query, ws)


def attention_layer_write_back(query, out):
    if torch.npu.is_current_stream_capturing():
        n = query.numel()
        if _kept_workspaces.get(n) is None:
            _kept_workspaces[n] = torch.empty(_MAX_WORKSPACE)
        ws = _kept_workspaces[n]
        _kept_workspaces[n] = ws  # TWIN: write-back
        torch_npu.npu_paged_attention(query, ws)
