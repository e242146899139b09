# Twin design op-own-workspace, Python side (C++ side: design.cpp).
#
# An op that allocates its own workspace (torch_npu's EXEC_NPU_CMD does, as
# xllm's AclGraph::update_graph_tasks finds when it re-issues such an op
# between graph_task_update_begin and end): the updated task keeps the
# workspace's address, and the workspace dies when the op returns.
#
# Expected: `bind-in-op`, the call of the op inside the task update, is
# tether-graph-memory-dies-before-replay. Silent: the op handed the
# workspace captured with the graph (`fixed-passed`), the same op captured
# (its workspace comes from the graph's pool, `fixed-captured`) and run
# eagerly (`fixed-eager`).
import torch
import torch_npu

_captured_workspaces = {}
_graphs = {}


def run_paged_attention(query, num_tokens):
    workspace = torch.empty(num_tokens, dtype=torch.uint8)
    torch_npu._npu_paged_attention(query, workspace)


def run_paged_attention_with(query, workspace):
    torch_npu._npu_paged_attention(query, workspace)


def update_layers(update_stream, handles, query, num_tokens):
    for handle in handles:
        torch.npu.graph_task_update_begin(update_stream, handle)
        run_paged_attention(query, num_tokens)  # TWIN: bind-in-op
        torch.npu.graph_task_update_end(update_stream)


def update_layers_passing(update_stream, handles, query, num_tokens):
    for handle in handles:
        torch.npu.graph_task_update_begin(update_stream, handle)
        run_paged_attention_with(query, _captured_workspaces[num_tokens])  # TWIN: fixed-passed
        torch.npu.graph_task_update_end(update_stream)


def capture(graph, query, num_tokens):
    with torch.npu.graph(graph):
        run_paged_attention(query, num_tokens)  # TWIN: fixed-captured
    _graphs[num_tokens] = graph


def forward(query, num_tokens):
    run_paged_attention(query, num_tokens)  # TWIN: fixed-eager
