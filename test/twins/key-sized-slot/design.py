# Twin design key-sized-slot, Python side (C++ side: design.cpp).
#
# Workspace caches filled on first use inside the capture. One keyed by the
# token count and sized by it alone holds, at every key, the size that key
# asks for (`fixed-key`, silent). One slot sized by the first layer's
# hidden size, reused by a layer with a larger one, is too small for it
# (`unsized`, tether-workspace-shared-across-layers); a shape written as a
# tuple is the same sizes.
import torch
import torch_npu

_key_workspaces = {}
_one_workspaces = {}


def key_sized(query, num_tokens):
    ws = _key_workspaces.get(num_tokens)
    if ws is None:
        ws = torch.empty(num_tokens, 4096)
        _key_workspaces[num_tokens] = ws  # TWIN: fixed-key
    torch_npu._npu_paged_attention(query, ws)


def one_sized(query, num_tokens, hidden):
    ws = _one_workspaces.get(0)
    if ws is None:
        ws = torch.empty((num_tokens, hidden))
        _one_workspaces[0] = ws  # TWIN: unsized
    torch_npu._npu_paged_attention(query, ws)


def capture(graph, query, num_tokens):
    with torch.npu.graph(graph):
        key_sized(query, num_tokens)
        key_sized(query, num_tokens)
        one_sized(query, num_tokens, 1024)
        one_sized(query, num_tokens, 4096)
