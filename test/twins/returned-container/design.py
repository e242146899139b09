# Twin design returned-container, Python side (C++ side: design.cpp).
#
# Issue 12, road 2, through a helper: the capture's static inputs come from
# a helper that builds them and hands them back in a container (vLLM v1's
# `model_state.prepare_dummy_inputs(...)`, a dict; in C++ a struct returned
# by value). The helper made the tensor and left it in the container's slot;
# the capture reads it there; the graph is kept and the container is a
# local of the capture function, so the tensor dies with it at the return.
#
# Expected: `read-returned`, the captured read of the slot, is
# tether-graph-memory-dies-before-replay. Keeping the container beside the
# graph (`fixed-read-returned`) is silent.
import torch
import torch_npu


class ModelState:
    def prepare_dummy_inputs(self, num_tokens):
        return {"inputs_embeds": torch.zeros(num_tokens, 1024)}


class GraphManager:
    def __init__(self):
        self.graphs = {}
        self.inputs = {}

    def capture_graph(self, graph, query, num_tokens, state: ModelState):
        inputs = state.prepare_dummy_inputs(num_tokens)
        with torch.npu.graph(graph):
            torch_npu._npu_paged_attention(query, inputs["inputs_embeds"])  # TWIN: read-returned
        self.graphs[num_tokens] = graph

    def capture_graph_kept(self, graph, query, num_tokens, state: ModelState):
        inputs = state.prepare_dummy_inputs(num_tokens)
        self.inputs[num_tokens] = inputs
        with torch.npu.graph(graph):
            torch_npu._npu_paged_attention(query, inputs["inputs_embeds"])  # TWIN: fixed-read-returned
        self.graphs[num_tokens] = graph
