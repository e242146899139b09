"""TensorRT-LLM's PyTorch backend: make_weak_ref (shapes written for this
test)."""
import torch
from tensorrt_llm._torch.utils import make_weak_ref


class CUDAGraphRunner:
    def __init__(self):
        self.graphs = {}
        self.graph_outputs = {}
        self.memory_pool = None

    # Safe, as TensorRT-LLM writes it: the output is weakened after the
    # capture block, kept beside the graph, and read back after replay.
    def capture(self, key, forward_fn, inputs):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.memory_pool):
            output = forward_fn(inputs)
        self.graphs[key] = graph
        self.graph_outputs[key] = make_weak_ref(output)
        self.memory_pool = graph.pool()

    def replay(self, key):
        self.graphs[key].replay()
        return self.graph_outputs[key]

    # Bug: the hidden states are weakened inside the capture and read by the
    # head that the same capture records next.
    def capture_with_head(self, key, forward_fn, head, inputs):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.memory_pool):
            hidden = forward_fn(inputs)
            hidden = make_weak_ref(hidden)
            # CHECK: tensorrt_llm.py:[[@LINE-1]]:22: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: tensorrt_llm.py:[[@LINE-4]]:9: note: capture begins here
            # CHECK-NEXT: tensorrt_llm.py:[[@LINE-3]]:13: note: the last strong reference to the memory dies here
            # CHECK-NEXT: tensorrt_llm.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
            # CHECK-NEXT: tensorrt_llm.py:[[@LINE+2]]:9: note: capture ends here
            logits = torch.matmul(hidden, head)
        self.graphs[key] = graph
        self.graph_outputs[key] = logits
