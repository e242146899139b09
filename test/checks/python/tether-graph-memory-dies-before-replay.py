# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
import torch_npu


class GraphParams:
    def __init__(self):
        self.handles = {}
        self.events = {}
        self.workspaces = {}
        self.update_workspaces = {}


_graph_params = GraphParams()


# vLLM Ascend's paged-attention update: a workspace allocated per layer for
# the update, bound into the updated task, dropped at the next iteration and
# at the return; the graph replays with the freed address.
def update_paged_attention(update_stream, runtime_shape, query, key_cache, seq_lens, output):
    with torch.npu.stream(update_stream):
        for handle, event in zip(_graph_params.handles[runtime_shape],
                                 _graph_params.events[runtime_shape]):
            workspace = torch_npu._npu_paged_attention_get_workspace(
                query=query, key_cache=key_cache, context_lens=seq_lens, out=output)
            torch.npu.graph_task_update_begin(update_stream, handle)
            torch_npu._npu_paged_attention(query=query, key_cache=key_cache,
                                           context_lens=seq_lens, out=output,
                                           workspace=workspace)
            # CHECK: graph-memory-dies-before-replay.py:[[@LINE-1]]:44: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
            # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-5]]:13: note: task update begins here
            # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE+2]]:13: note: task update ends here
            # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-12]]:5: note: the last strong reference to the memory dies here
            torch.npu.graph_task_update_end(update_stream)
            event.record(update_stream)


# A helper runs the update; its caller passes a temporary.
def update_one(update_stream, handle, query, ws):
    torch.npu.graph_task_update_begin(update_stream, handle)
    torch_npu._npu_paged_attention(query=query, workspace=ws)
    torch.npu.graph_task_update_end(update_stream)


def update_through_helper(update_stream, handle, query):
    update_one(update_stream, handle, query, torch.empty(64, dtype=torch.uint8))
# CHECK: graph-memory-dies-before-replay.py:[[@LINE-1]]:5: warning: memory bound into a graph task by a task update can die before the graph's next replay
# CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-8]]:5: note: task update begins here
# CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-8]]:49: note: the memory is bound into the updated task here
# CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-8]]:5: note: task update ends here
# CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-5]]:5: note: the last strong reference to the memory dies here


# --- Not flagged ---------------------------------------------------------

# The workspace captured with the graph is reused by the update.
def update_reusing_captured(update_stream, runtime_shape, query, output):
    with torch.npu.stream(update_stream):
        for handle in _graph_params.handles[runtime_shape]:
            torch.npu.graph_task_update_begin(update_stream, handle)
            torch_npu.npu_fused_infer_attention_score.out(
                query=query, workspace=_graph_params.workspaces.get(runtime_shape),
                out=[output])
            torch.npu.graph_task_update_end(update_stream)


# The update's buffers are kept beside the graph.
def update_keeping_buffers(update_stream, runtime_shape, query, output):
    for i, handle in enumerate(_graph_params.handles[runtime_shape]):
        workspace = torch.empty(1024, dtype=torch.uint8)
        _graph_params.update_workspaces[(runtime_shape, i)] = workspace
        torch.npu.graph_task_update_begin(update_stream, handle)
        torch_npu._npu_paged_attention(query=query, out=output, workspace=workspace)
        torch.npu.graph_task_update_end(update_stream)


# The same op eagerly, outside any task update.
def eager(query):
    workspace = torch.empty(1024, dtype=torch.uint8)
    torch_npu._npu_paged_attention(query=query, workspace=workspace)
