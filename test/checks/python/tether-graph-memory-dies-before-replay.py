# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import dataclasses

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
            # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE+2]]:40: note: the last strong reference to the memory dies here
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


# --- Out-of-pool inputs: memory allocated before the capture -------------

class Runner:
    def __init__(self):
        self.graphs = {}
        self.inputs = {}

    # The static input comes from the ordinary allocator and only a local
    # owns it; the graph is kept and replays with its address.
    def capture(self, weight, batch):
        static_input = torch.zeros(batch, 1024)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = torch.matmul(static_input, weight)
        # CHECK: graph-memory-dies-before-replay.py:[[@LINE-1]]:32: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
        # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE-3]]:9: note: capture begins here
        # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE+2]]:9: note: capture ends here
        # CHECK-NEXT: graph-memory-dies-before-replay.py:[[@LINE+2]]:9: note: the last strong reference to the memory dies here
        self.graphs[batch] = graph
        return out

    # Fixed: the input is kept beside the graph.
    def capture_fixed(self, weight, batch):
        static_input = torch.zeros(batch, 1024)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = torch.matmul(static_input, weight)
        self.graphs[batch] = graph
        self.inputs[batch] = static_input
        return out

    # Memory the capture allocates is the graph pool's.
    def capture_pool(self, weight, batch):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            tmp = torch.empty(batch, 1024)
            out = torch.matmul(tmp, weight)
        self.graphs[batch] = graph
        return out


# The graph is local and dies with its input: nothing replays later.
def one_shot(weight, batch):
    x = torch.zeros(batch, 1024)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = torch.matmul(x, weight)
    g.replay()
    return y.clone()


# Returned with its input: the caller keeps both.
def make_graph(weight, batch):
    x = torch.zeros(batch, 1024)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = torch.matmul(x, weight)
    return g, x, y


# Raw addresses (road 6): a kernel binding handed `data_ptr()` integers, in
# an argument object a helper fills. The integer owns nothing.
class KernelArgs:
    def __init__(self):
        self.workspace = 0


def fill_args(args, workspace):
    args.workspace = workspace.data_ptr()


def update_through_args(stream, handle, args, n):
    workspace = torch.empty(n, dtype=torch.uint8)
    fill_args(args, workspace)
    torch.npu.graph_task_update_begin(stream, handle)
    torch.ops.kernels.launch(stream, args)
    torch.npu.graph_task_update_end(stream)
# CHECK: :[[@LINE-2]]:38: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address [tether-graph-memory-dies-before-replay]
# CHECK-NEXT: :[[@LINE-5]]:5: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
# CHECK-NEXT: :[[@LINE-5]]:5: note: task update begins here
# CHECK-NEXT: :[[@LINE-4]]:5: note: task update ends here
# CHECK-NEXT: :[[@LINE-5]]:5: note: the last strong reference to the memory dies here


# Fixed: the workspace is kept beside the graph with its address.
_kept_workspaces = {}


def update_keeping_args(stream, handle, args, n):
    workspace = torch.empty(n, dtype=torch.uint8)
    _kept_workspaces[n] = workspace
    args.workspace = workspace.data_ptr()
    torch.npu.graph_task_update_begin(stream, handle)
    torch.ops.kernels.launch(stream, args)
    torch.npu.graph_task_update_end(stream)


# An address handed to eager work, outside any graph: nothing replays it.
def eager_launch(stream, n):
    workspace = torch.empty(n, dtype=torch.uint8)
    torch.ops.kernels.launch_ptr(stream, workspace.data_ptr())


# An address stored during a capture is no weak reference: the weak-ref
# checks do not judge it, and nothing captured reads it.
_addresses = {}


def capture_addresses(graph, n):
    with torch.npu.graph(graph):
        scratch = torch.empty(n)
        _addresses[n] = scratch.data_ptr()


# A tuple of addresses handed to the launch: it reads what they point at.
def update_arg_tuple(stream, handle, query, n):
    workspace = torch.empty(n, dtype=torch.uint8)
    args = (query.data_ptr(), workspace.data_ptr(), n)
    torch.npu.graph_task_update_begin(stream, handle)
    torch.ops.kernels.launch_args(stream, args)
    torch.npu.graph_task_update_end(stream)
# CHECK: :[[@LINE-2]]:43: warning: memory bound into a graph task by a task update can die before the graph's next replay
# CHECK-NEXT: :[[@LINE-5]]:31: note: the task is handed a raw address of the memory, taken here; an address does not keep the memory alive
# CHECK-NEXT: :[[@LINE-5]]:5: note: task update begins here
# CHECK-NEXT: :[[@LINE-4]]:5: note: task update ends here
# CHECK-NEXT: :[[@LINE-5]]:5: note: the last strong reference to the memory dies here


# Fixed: the workspace is kept beside the graph.
def update_arg_tuple_kept(stream, handle, query, n):
    workspace = torch.empty(n, dtype=torch.uint8)
    _kept_workspaces[n] = workspace
    args = (query.data_ptr(), workspace.data_ptr(), n)
    torch.npu.graph_task_update_begin(stream, handle)
    torch.ops.kernels.launch_args(stream, args)
    torch.npu.graph_task_update_end(stream)


# An object whose constructor allocates its buffers, built before the
# capture: it and its buffers die at the return while the graph is kept.
class CuSeqlens:
    def __init__(self, lengths):
        self.cu_seqlens = torch.zeros(lengths.shape[0] + 1, dtype=torch.int32)


_graphs = {}


def capture_with_temporary(graph, query, lengths, bs):
    seqlens = CuSeqlens(lengths)
    with torch.npu.graph(graph):
        torch_npu._npu_paged_attention(query, seqlens.cu_seqlens)
    _graphs[bs] = graph
# CHECK: :[[@LINE-2]]:47: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address
# CHECK-NEXT: :[[@LINE-4]]:5: note: capture begins here
# CHECK-NEXT: :[[@LINE-3]]:5: note: capture ends here
# CHECK-NEXT: :[[@LINE-7]]:15: note: the memory is held only by the object made here, and dies with it
# CHECK-NEXT: :[[@LINE-5]]:5: note: the last strong reference to the memory dies here


# A dataclass-like holder filled by its fields, kept in a local list that
# dies at the return: the list takes the object along, and the object its
# buffer.
@dataclasses.dataclass
class Packed:
    workspace: torch.Tensor


def capture_with_local_list(graph, query, n, bs):
    held = [Packed(workspace=torch.empty(n, dtype=torch.uint8))]
    with torch.npu.graph(graph):
        torch_npu._npu_paged_attention(query, held[0].workspace)
    _graphs[bs] = graph
# CHECK: :[[@LINE-2]]:47: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address
# CHECK-NEXT: :[[@LINE-4]]:5: note: capture begins here
# CHECK-NEXT: :[[@LINE-3]]:5: note: capture ends here
# CHECK-NEXT: :[[@LINE-7]]:13: note: the memory is held only by the object made here, and dies with it
# CHECK-NEXT: :[[@LINE-5]]:5: note: the last strong reference to the memory dies here


# Fixed: the object goes back to the caller, or to code that may keep it.
def capture_returning_object(graph, query, lengths, bs):
    seqlens = CuSeqlens(lengths)
    with torch.npu.graph(graph):
        torch_npu._npu_paged_attention(query, seqlens.cu_seqlens)
    _graphs[bs] = graph
    return seqlens


def capture_handing_object(graph, query, lengths, bs, registry):
    seqlens = CuSeqlens(lengths)
    registry.register(bs, seqlens)
    with torch.npu.graph(graph):
        torch_npu._npu_paged_attention(query, seqlens.cu_seqlens)
    _graphs[bs] = graph


# A generator's consumer may keep what it yields: the object yielded goes
# to code that can keep it beside the graph (silent); one not yielded dies.
def capture_yielding(graph, query, lengths, bs):
    seqlens = CuSeqlens(lengths)
    with torch.npu.graph(graph):
        torch_npu._npu_paged_attention(query, seqlens.cu_seqlens)
    _graphs[bs] = graph
    yield seqlens


def capture_yielding_size(graph, query, lengths, bs):
    seqlens = CuSeqlens(lengths)
    with torch.npu.graph(graph):
        torch_npu._npu_paged_attention(query, seqlens.cu_seqlens)
    _graphs[bs] = graph
    yield bs
# CHECK: :[[@LINE-3]]:47: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address
# CHECK-NEXT: :[[@LINE-5]]:5: note: capture begins here
# CHECK-NEXT: :[[@LINE-4]]:5: note: capture ends here
# CHECK-NEXT: :[[@LINE-8]]:15: note: the memory is held only by the object made here, and dies with it
# CHECK-NEXT: :[[@LINE-5]]:5: note: the last strong reference to the memory dies here


# A graph kept in a record of a library class (vLLM's BudgetGraphMetadata,
# as vLLM Ascend's encoder graphs keep theirs before #16794): the record
# holds the graph, so the graph lives on; the output buffer, written by an
# in-place copy inside the capture and kept only weakly, dies (reported).
# The same record keeping the buffer itself keeps it (silent).
from vllm.v1.worker.encoder_cudagraph import BudgetGraphMetadata
from vllm_ascend.utils import weak_ref_tensors


class EncoderGraphs:
    def capture(self, graph, x, budget):
        output_buffer = torch.empty_like(x)
        with torch.npu.graph(graph):
            y = torch.matmul(x, x)
            output_buffer.copy_(y)
        meta = BudgetGraphMetadata(graph=graph, output_buffer=weak_ref_tensors(output_buffer))
        self.budget_graphs[budget] = meta
# CHECK: :[[@LINE-3]]:13: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address
# CHECK-NEXT: :[[@LINE-6]]:9: note: capture begins here
# CHECK-NEXT: :[[@LINE-4]]:9: note: capture ends here
# CHECK-NEXT: :[[@LINE-4]]:9: note: the last strong reference to the memory dies here

    def capture_kept(self, graph, x, budget):
        output_buffer = torch.empty_like(x)
        with torch.npu.graph(graph):
            y = torch.matmul(x, x)
            output_buffer.copy_(y)
        meta = BudgetGraphMetadata(graph=graph, output_buffer=output_buffer)
        self.budget_graphs[budget] = meta


# An op wrapper that allocates its own workspace, called inside a task
# update through a layer: the workspace dies when the wrapper returns, while
# the updated task keeps it (reported at the layer's call). A wrapper that
# keeps its workspace in a module cache, and one called eagerly, are silent.
def paged_attention_own_workspace(query, num_tokens):
    workspace = torch.empty(num_tokens, dtype=torch.uint8)
    torch_npu._npu_paged_attention(query, workspace)


def attention_layer(query, num_tokens):
    paged_attention_own_workspace(query, num_tokens)


def update_through_layers(update_stream, handles, query, num_tokens):
    for handle in handles:
        torch.npu.graph_task_update_begin(update_stream, handle)
        attention_layer(query, num_tokens)
        torch.npu.graph_task_update_end(update_stream)
# CHECK: :[[@LINE-2]]:9: warning: memory bound into a graph task by a task update can die before the graph's next replay; the updated task keeps its address
# CHECK-NEXT: :[[@LINE-4]]:9: note: task update begins here
# CHECK-NEXT: :[[@LINE-14]]:43: note: the memory is bound into the updated task here
# CHECK-NEXT: :[[@LINE-4]]:9: note: task update ends here
# CHECK-NEXT: :[[@LINE-16]]:5: note: the last strong reference to the memory dies here


_op_workspaces = {}


def paged_attention_cached_workspace(query, num_tokens):
    workspace = torch.empty(num_tokens, dtype=torch.uint8)
    _op_workspaces[num_tokens] = workspace
    torch_npu._npu_paged_attention(query, workspace)


def update_with_cached_workspace(update_stream, handles, query, num_tokens):
    for handle in handles:
        torch.npu.graph_task_update_begin(update_stream, handle)
        paged_attention_cached_workspace(query, num_tokens)
        torch.npu.graph_task_update_end(update_stream)


def eager_attention(query, num_tokens):
    attention_layer(query, num_tokens)
