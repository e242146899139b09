# What a container holds is held by the containers it is copied into: a
# slot read by a computed key may be any slot a constant key wrote, and the
# other way round. So a keep-alive list extended by a literal
# (`_KEEP.extend([ws])`, `_KEEP += [ws]`) keeps ws, and a dict of fresh
# static inputs copied with `{**d}` (vLLM v1's `model_inputs = {**...}`
# handed to `_capture_full_graph`) still holds them.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
import torch_npu
from vllm.forward_context import get_forward_context
from vllm_ascend.utils import weak_ref_tensors

_WS = {}
_KEEP = []


def attn_extend(q, n):
    if get_forward_context().capturing:
        ws = _WS.get(n)
        if ws is None:
            ws = torch.empty(n, 4096, device="npu")
            _KEEP.extend([ws])  # kept until the capture ends
            _WS[n] = weak_ref_tensors(ws)
        torch_npu.npu_op(q, ws)


def attn_iadd(q, n):
    global _KEEP
    if get_forward_context().capturing:
        ws = _WS.get(n)
        if ws is None:
            ws = torch.empty(n, 4096, device="npu")
            _KEEP += [ws]  # kept until the capture ends
            _WS[n] = weak_ref_tensors(ws)
        torch_npu.npu_op(q, ws)


class ModelState:
    def prepare_dummy_inputs(self, num_tokens):
        return {"inputs_embeds": torch.zeros(num_tokens, 1024, device="npu")}


class GraphManager:
    def __init__(self):
        self.graphs = {}
        self.inputs = {}

    def capture_graph(self, num_tokens, model_state: ModelState):
        model_inputs = {**model_state.prepare_dummy_inputs(num_tokens)}
        self._capture_full_graph(num_tokens, model_inputs)
# CHECK: :[[@LINE-1]]:9: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
# CHECK-NEXT: :[[@LINE+13]]:9: note: capture begins here
# CHECK-NEXT: :[[@LINE+13]]:32: note: the memory is used by a captured task here
# CHECK-NEXT: :[[@LINE+13]]:9: note: capture ends here
# CHECK-NEXT: :[[@LINE-15]]:16: note: the memory is held only by the object made here, and dies with it
# CHECK-NEXT: :[[@LINE-6]]:9: note: the last strong reference to the memory dies here

    def capture_graph_kept(self, num_tokens, model_state: ModelState):
        model_inputs = {**model_state.prepare_dummy_inputs(num_tokens)}
        self.inputs[num_tokens] = model_inputs
        self._capture_full_graph(num_tokens, model_inputs)

    def _capture_full_graph(self, num_tokens, model_inputs):
        graph = torch.npu.NPUGraph()
        with torch.npu.graph(graph):
            out = torch.matmul(model_inputs["inputs_embeds"], model_inputs["inputs_embeds"])
        self.graphs[num_tokens] = graph
        return out
