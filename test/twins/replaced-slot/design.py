# Twin design replaced-slot, Python side (C++ side: design.cpp).
#
# Models a "keep the larger workspace" cache shared by every MLA layer (vLLM
# Ascend's MLA workspace helper): a layer that needs more than the cached
# workspace replaces it during the capture, dropping the workspace that the
# earlier layers' captured tasks still point at.
#
# Expected: `replace`, the replacement of the shared slot, is
# tether-workspace-shared-across-layers. The fixed twin fills the slot only
# while it is empty, with the largest workspace any layer can need (a
# constant of the model's configuration, `fixed-fill`): silent.
import torch
import torch_npu

_workspace = None


def get_workspace(size):
    global _workspace
    if _workspace is None or _workspace.numel() < size:
        _workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: replace
    return _workspace


def mla_layer(query, size):
    return torch_npu.npu_multi_head_latent_attention(query, workspace=get_workspace(size))


def capture_decode(graph, query, num_layers):
    with torch.npu.graph(graph):
        for i in range(num_layers):
            query = mla_layer(query, 64 * (i + 1))
    return query


# --- the fix -----------------------------------------------------------------
# The largest workspace any layer of the model needs, from its configuration.
MAX_WORKSPACE_BYTES = 64 << 20
_fixed_workspace = None


def get_workspace_fixed():
    global _fixed_workspace
    if _fixed_workspace is None:
        _fixed_workspace = torch.empty(MAX_WORKSPACE_BYTES, dtype=torch.uint8)  # TWIN: fixed-fill
    return _fixed_workspace


def mla_layer_fixed(query):
    return torch_npu.npu_multi_head_latent_attention(query, workspace=get_workspace_fixed())


def capture_decode_fixed(graph, query, num_layers):
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = mla_layer_fixed(query)
    return query
