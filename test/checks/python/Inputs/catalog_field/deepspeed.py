"""DeepSpeed's accelerator capture_to_graph, and cuda-python's
cudaStreamBeginCaptureToGraph (shapes written for this test)."""
import torch
from cuda.bindings import runtime as cudart
from deepspeed.accelerator import get_accelerator


# Safe, as DeepSpeed writes it: static inputs and outputs are held by the
# engine for as long as the graph.
class InferenceEngine:
    def __init__(self, module):
        self.module = module

    def create_cuda_graph(self, *inputs):
        accel = get_accelerator()
        self._cuda_graph = accel.create_graph()
        self.static_inputs = inputs
        with accel.capture_to_graph(self._cuda_graph):
            self.static_output = self.module(*self.static_inputs)


# Bug: a weak alias made inside the accelerator's capture, read by a later
# op of it.
def capture_weak(module, x):
    accel = get_accelerator()
    graph = accel.create_graph()
    with accel.capture_to_graph(graph):
        hidden = module(x)
        hidden = torch.ops._C.weak_ref_tensor(hidden)
        # CHECK: deepspeed.py:[[@LINE-1]]:18: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: deepspeed.py:[[@LINE-4]]:5: note: capture begins here
        # CHECK-NEXT: deepspeed.py:[[@LINE-3]]:9: note: the last strong reference to the memory dies here
        # CHECK-NEXT: deepspeed.py:[[@LINE+2]]:26: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: deepspeed.py:[[@LINE+2]]:5: note: capture ends here
        out = torch.relu(hidden)
    return graph, out


# cuda-python's capture into an existing graph (already a capture pair of
# the defaults): the same bug between its begin and end.
def capture_to_graph_cudart(stream, graph, module, x):
    cudart.cudaStreamBeginCaptureToGraph(stream, graph, None, None, 0, 0)
    hidden = module(x)
    hidden = torch.ops._C.weak_ref_tensor(hidden)
    # CHECK: deepspeed.py:[[@LINE-1]]:14: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
    # CHECK-NEXT: deepspeed.py:[[@LINE-4]]:5: note: capture begins here
    # CHECK-NEXT: deepspeed.py:[[@LINE-3]]:5: note: the last strong reference to the memory dies here
    # CHECK-NEXT: deepspeed.py:[[@LINE+2]]:22: note: the weak reference is used by a later operation of the same capture here
    # CHECK-NEXT: deepspeed.py:[[@LINE+2]]:5: note: capture ends here
    out = torch.relu(hidden)
    cudart.cudaStreamEndCapture(stream)
    return out
