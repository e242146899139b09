# Twin design out-of-pool, Python side (C++ side: design.cpp).
#
# Issue 12, road 2: a graph runner allocates the static input before the
# capture, from the ordinary allocator (not the graph's pool), keeps the
# graph and lets the input go: the graph replays with a freed address.
#
# Expected: `read`, the captured op's read of the input, is
# tether-graph-memory-dies-before-replay, also where the capture is opened
# by `graph.capture_begin()` (`read-begin-end`), and so is
# `weak-output`, an output
# buffer allocated before the capture and kept only as a weak reference
# after it, and `copy-output`, the same output written by an in-place copy
# (`output.copy_(result)`, a method of the tensor: an operation on it). The
# fixed twin keeps the input beside the graph (`fixed-read`); a view of
# the input (`read-view`) is the input's read, and silent when the input is
# kept (`fixed-read-view`);
# memory the capture allocates is the pool's (`pool-read`): both silent.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


class Runner:
    def __init__(self):
        self.graphs = {}
        self.inputs = {}

    def capture(self, graph, query, num_tokens):
        static_input = torch.empty(num_tokens, dtype=torch.uint8)
        with torch.npu.graph(graph):
            out = torch_npu._npu_paged_attention(query, static_input)  # TWIN: read
        self.graphs[num_tokens] = graph
        return out

    # The capture opened and closed by the graph's own methods (SGLang's
    # breakable capture): the receiver is the graph, kept as above.
    def capture_begin_end(self, graph, query, num_tokens):
        static_input = torch.empty(num_tokens, dtype=torch.uint8)
        graph.capture_begin()
        out = torch_npu._npu_paged_attention(query, static_input)  # TWIN: read-begin-end
        graph.capture_end()
        self.graphs[num_tokens] = graph
        return out

    def capture_fixed(self, graph, query, num_tokens):
        static_input = torch.empty(num_tokens, dtype=torch.uint8)
        self.inputs[num_tokens] = static_input
        with torch.npu.graph(graph):
            out = torch_npu._npu_paged_attention(query, static_input)  # TWIN: fixed-read
        self.graphs[num_tokens] = graph
        return out

    def capture_weak_output(self, graph, query, num_tokens):
        output = torch.empty(num_tokens, dtype=torch.uint8)
        with torch.npu.graph(graph):
            torch_npu._npu_paged_attention(query, output)  # TWIN: weak-output
        self.graphs[num_tokens] = graph
        self.inputs[num_tokens] = weak_ref_tensors(output)

    def capture_copy_output(self, graph, query, num_tokens):
        output = torch.empty(num_tokens, dtype=torch.uint8)
        with torch.npu.graph(graph):
            result = torch.empty(num_tokens, dtype=torch.uint8)
            torch_npu._npu_paged_attention(query, result)
            output.copy_(result)  # TWIN: copy-output
        self.graphs[num_tokens] = graph
        self.inputs[num_tokens] = weak_ref_tensors(output)

    # A view of the static input (a slice, `view`, `narrow`) is another
    # handle of its memory: the captured read is a read of the input, and
    # keeping the input keeps what the view shows.
    def capture_view(self, graph, query, num_tokens):
        static_input = torch.empty(2 * num_tokens, dtype=torch.uint8)
        view = static_input[:num_tokens].view(-1)
        with torch.npu.graph(graph):
            out = torch_npu._npu_paged_attention(query, view)  # TWIN: read-view
        self.graphs[num_tokens] = graph
        return out

    def capture_view_kept(self, graph, query, num_tokens):
        static_input = torch.empty(2 * num_tokens, dtype=torch.uint8)
        self.inputs[num_tokens] = static_input
        view = static_input.narrow(0, 0, num_tokens)
        with torch.npu.graph(graph):
            out = torch_npu._npu_paged_attention(query, view)  # TWIN: fixed-read-view
        self.graphs[num_tokens] = graph
        return out

    def capture_pool(self, graph, query, num_tokens):
        with torch.npu.graph(graph):
            scratch = torch.empty(num_tokens, dtype=torch.uint8)
            out = torch_npu._npu_paged_attention(query, scratch)  # TWIN: pool-read
        self.graphs[num_tokens] = graph
        return out
