# Twin design task-update, Python side (C++ side: design.cpp).
#
# Models vLLM Ascend's paged-attention task update (compilation/acl_graph.py,
# _update_attn_pa_params): between replays each layer's captured attention
# task is recorded again with new arguments; the update allocates a
# workspace per layer, binds it into the updated task and drops it at the
# next iteration, while the graph replays with its address.
#
# Expected: `bind`, the updated op's use of the fresh workspace, is
# tether-graph-memory-dies-before-replay. The fixed twins reuse the workspace
# captured with the graph (`fixed-reuse`) or keep the update's workspaces
# beside the graph (`fixed-keep`): both silent.
import torch
import torch_npu

_captured_workspaces = {}
_update_workspaces = {}


def update_layers(update_stream, handles, query, num_tokens):
    for handle in handles:
        workspace = torch.empty(num_tokens, dtype=torch.uint8)
        torch.npu.graph_task_update_begin(update_stream, handle)
        torch_npu._npu_paged_attention(query, workspace)  # TWIN: bind
        torch.npu.graph_task_update_end(update_stream)


def update_layers_reusing(update_stream, handles, query, num_tokens):
    for handle in handles:
        torch.npu.graph_task_update_begin(update_stream, handle)
        torch_npu._npu_paged_attention(query, _captured_workspaces[num_tokens])  # TWIN: fixed-reuse
        torch.npu.graph_task_update_end(update_stream)


def update_layers_keeping(update_stream, handles, query, num_tokens):
    for i, handle in enumerate(handles):
        workspace = torch.empty(num_tokens, dtype=torch.uint8)
        _update_workspaces[i] = workspace
        torch.npu.graph_task_update_begin(update_stream, handle)
        torch_npu._npu_paged_attention(query, workspace)  # TWIN: fixed-keep
        torch.npu.graph_task_update_end(update_stream)
