# Twin design predicate-wrapper, Python side (C++ side: design.cpp).
#
# Models an in-tree wrapper of the capture predicate, as kernel libraries
# write it (`def _is_cuda_graph_capturing(): return
# torch.cuda.is_current_stream_capturing()`), around a "keep the larger"
# workspace shared by every layer. The layer runs its captured path under
# `if _is_graph_capturing():`, so growing the shared workspace there replaces
# it during the capture. The fix grows it only eagerly: under capture the
# getter raises (the guarded path that raises leaves the capture), so the
# replacement never runs in one, even though the layers run inside
# `with torch.npu.graph`. Wrappers of predicates are inferred like weak-ref
# helpers are.
#
# Expected: `replace` is tether-workspace-shared-across-layers. The fixed
# twin's replacement (`fixed-replace`), behind the raising guard, is silent.
import torch
import torch_npu

_workspace = None


def _is_graph_capturing():
    return torch.npu.is_current_stream_capturing()


def get_workspace(size):
    global _workspace
    if _workspace is None or _workspace.numel() < size:
        _workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: replace
    return _workspace


def attention_layer(query, size):
    if _is_graph_capturing():
        return torch_npu.npu_fused_infer_attention_score(query, workspace=get_workspace(size))
    return torch_npu.npu_fused_infer_attention_score(query)


# --- the fix -----------------------------------------------------------------
_fixed_workspace = None


def get_workspace_fixed(size):
    global _fixed_workspace
    if _fixed_workspace is None or _fixed_workspace.numel() < size:
        if _is_graph_capturing():
            raise RuntimeError("reserve the workspace before capturing")
        _fixed_workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: fixed-replace
    return _fixed_workspace


def attention_layer_fixed(query, size):
    return torch_npu.npu_fused_infer_attention_score(query, workspace=get_workspace_fixed(size))


def capture_decode_fixed(graph, query, num_layers):
    for i in range(num_layers):
        attention_layer_fixed(query, 64 * (i + 1))
    with torch.npu.graph(graph):
        for i in range(num_layers):
            query = attention_layer_fixed(query, 64 * (i + 1))
    return query
