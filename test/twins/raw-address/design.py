# Twin design raw-address, Python side (C++ side: design.cpp).
#
# The task-update and out-of-pool twins again, with the kernels handed raw
# addresses: a custom op takes `data_ptr()` integers (directly, or in an
# argument object the update fills), as bindings of hand-written kernels do.
# An address owns nothing: the tensor behind it is freed when its last
# strong reference dies, whatever holds the integer.
#
# Expected: `bind` (the update's workspace, its address put in the layer's
# argument object and dropped at the next iteration) and `read` (an input
# allocated before the capture, its address read by the captured kernel,
# owned only by a local while the graph is kept) are
# tether-graph-memory-dies-before-replay. `fixed-keep` keeps the update's
# workspaces beside the graph; `pool-read` reads memory the capture
# allocated from the graph's pool: both silent.
import torch
import torch_npu

_update_workspaces = {}


class AttnTaskArgs:
    def __init__(self):
        self.query = 0
        self.workspace = 0
        self.num_tokens = 0


class Updater:
    def __init__(self, num_layers):
        self.args = [AttnTaskArgs() for _ in range(num_layers)]

    def update(self, stream, handles, query, num_tokens):
        for i, handle in enumerate(handles):
            workspace = torch.empty(num_tokens, dtype=torch.uint8)
            self.args[i].query = query.data_ptr()
            self.args[i].workspace = workspace.data_ptr()
            torch.npu.graph_task_update_begin(stream, handle)
            torch.ops.kernels.launch_attention(stream, self.args[i])  # TWIN: bind
            torch.npu.graph_task_update_end(stream)

    def update_keeping(self, stream, handles, query, num_tokens):
        for i, handle in enumerate(handles):
            workspace = torch.empty(num_tokens, dtype=torch.uint8)
            _update_workspaces[i] = workspace
            self.args[i].query = query.data_ptr()
            self.args[i].workspace = workspace.data_ptr()
            torch.npu.graph_task_update_begin(stream, handle)
            torch.ops.kernels.launch_attention(stream, self.args[i])  # TWIN: fixed-keep
            torch.npu.graph_task_update_end(stream)


class Runner:
    def __init__(self):
        self.graphs = {}

    def capture(self, graph, stream, out, num_tokens):
        positions = torch.empty(num_tokens, dtype=torch.int64)
        pos = positions.data_ptr()
        with torch.npu.graph(graph):
            torch.ops.kernels.launch_rope(stream, pos, out.data_ptr(), num_tokens)  # TWIN: read
        self.graphs[num_tokens] = graph

    def capture_pool(self, graph, stream, out, num_tokens):
        with torch.npu.graph(graph):
            positions = torch.empty(num_tokens, dtype=torch.int64)
            torch.ops.kernels.launch_rope(stream, positions.data_ptr(), out.data_ptr(), num_tokens)  # TWIN: pool-read
        self.graphs[num_tokens] = graph


# Road 6's shared context, its workspace handed by address: every layer is
# handed one context; a layer that needs more replaces the context's
# workspace during the capture, while the earlier layers' captured kernels
# hold the old one's address. Filled once with the largest size: silent.
MAX_WORKSPACE_BYTES = 64 << 20


class ExecContext:
    def __init__(self):
        self.workspace = None


class AttentionLayer:
    def __init__(self, ctx: ExecContext):
        self.ctx = ctx

    def forward(self, query, size):
        if self.ctx.workspace is None or self.ctx.workspace.numel() < size:
            self.ctx.workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: replace
        torch.ops.kernels.launch_attention_raw(query.data_ptr(), self.ctx.workspace.data_ptr())

    def forward_fixed(self, query):
        if self.ctx.workspace is None:
            self.ctx.workspace = torch.empty(MAX_WORKSPACE_BYTES, dtype=torch.uint8)  # TWIN: fixed-fill
        torch.ops.kernels.launch_attention_raw(query.data_ptr(), self.ctx.workspace.data_ptr())


def capture_decode(graph, query, first: AttentionLayer, second: AttentionLayer):
    with torch.npu.graph(graph):
        first.forward(query, 64)
        second.forward(query, 128)


def capture_decode_fixed(graph, query, first: AttentionLayer, second: AttentionLayer):
    with torch.npu.graph(graph):
        first.forward_fixed(query)
        second.forward_fixed(query)
