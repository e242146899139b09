# Twin design shared-context, Python side (C++ side: design.cpp).
#
# Models a graph runner that keeps the workspace in a context object every
# layer is handed at construction (not a module global): a layer that needs
# more than the context's workspace replaces it during the capture,
# dropping the workspace that the earlier layers' captured tasks still
# point at.
#
# Expected: `replace`, the replacement of the context's slot, is
# tether-workspace-shared-across-layers. Silent: a layer that makes its own
# context (`own-fill`: no other layer reads it), and the shared context
# filled once with the largest workspace any layer needs (`fixed-fill`).
import torch
import torch_npu


class ExecContext:
    def __init__(self):
        self.workspace = None


class AttentionLayer:
    def __init__(self, ctx: ExecContext):
        self.ctx = ctx

    def forward(self, query, size):
        if self.ctx.workspace is None or self.ctx.workspace.numel() < size:
            self.ctx.workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: replace
        return torch_npu.npu_paged_attention(query, workspace=self.ctx.workspace)


def capture_decode(graph, query, first: AttentionLayer, second: AttentionLayer):
    with torch.npu.graph(graph):
        query = first.forward(query, 64)
        query = second.forward(query, 128)
    return query


# --- correct twins -----------------------------------------------------------
# Each layer's own context: no other layer's task points at its workspace.
class OwnContextLayer:
    def __init__(self):
        self.ctx = ExecContext()

    def forward(self, query, size):
        if self.ctx.workspace is None or self.ctx.workspace.numel() < size:
            self.ctx.workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: own-fill
        return torch_npu.npu_paged_attention(query, workspace=self.ctx.workspace)


def capture_decode_own(graph, query, first: OwnContextLayer, second: OwnContextLayer):
    with torch.npu.graph(graph):
        query = first.forward(query, 64)
        query = second.forward(query, 128)
    return query


# The shared context filled once, with the largest workspace of the model.
MAX_WORKSPACE_BYTES = 64 << 20


class FixedLayer:
    def __init__(self, ctx: ExecContext):
        self.ctx = ctx

    def forward(self, query):
        if self.ctx.workspace is None:
            self.ctx.workspace = torch.empty(MAX_WORKSPACE_BYTES, dtype=torch.uint8)  # TWIN: fixed-fill
        return torch_npu.npu_paged_attention(query, workspace=self.ctx.workspace)


def capture_decode_fixed(graph, query, first: FixedLayer, second: FixedLayer):
    with torch.npu.graph(graph):
        query = first.forward(query)
        query = second.forward(query)
    return query
