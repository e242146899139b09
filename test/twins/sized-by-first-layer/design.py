# Twin design sized-by-first-layer, Python side (C++ side: design.cpp).
#
# Models a workspace cache keyed by the token count only, as vLLM Ascend's
# graph params are, in a model whose layers have different head counts
# (sliding-window and full-attention layers, or a draft model's layers): the
# first layer to run sizes the workspace from its own head count and caches
# it; the other layers reuse it without checking that it is big enough.
#
# Expected: `fill`, the first fill of the cache, is
# tether-workspace-shared-across-layers (sized for the first caller and
# reused without a size check). The fixed twin (`fixed-fill`) checks the
# cached workspace's size before every use: silent.
import torch
import torch_npu

_workspaces = {}


class Attention:
    def __init__(self, num_heads: int, head_size: int):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, num_tokens):
        workspace = _workspaces.get(num_tokens)
        if workspace is None:
            workspace = torch.empty(num_tokens * self.num_heads * self.head_size)
            _workspaces[num_tokens] = workspace  # TWIN: fill
        return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode(graph, layers: list[Attention], query):
    with torch.npu.graph(graph):
        for layer in layers:
            query = layer.forward(query, 16)
    return query


def build_model():
    return [Attention(32, 128), Attention(8, 128)]


# --- the fix -----------------------------------------------------------------
_fixed_workspaces = {}


class AttentionFixed:
    def __init__(self, num_heads: int, head_size: int):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, num_tokens):
        need = num_tokens * self.num_heads * self.head_size
        workspace = _fixed_workspaces.get(num_tokens)
        if workspace is None:
            workspace = torch.empty(need)
            _fixed_workspaces[num_tokens] = workspace  # TWIN: fixed-fill
        if workspace.numel() < need:
            raise ValueError("cached workspace too small for this layer")
        return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)


def capture_decode_fixed(graph, layers: list[AttentionFixed], query):
    with torch.npu.graph(graph):
        for layer in layers:
            query = layer.forward(query, 16)
    return query


def build_model_fixed():
    return [AttentionFixed(32, 128), AttentionFixed(8, 128)]
