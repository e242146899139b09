"""SGLang's names: weak_ref_tensors and its runner's device_module.graph
capture (shapes written for this test)."""
import torch
from sglang.srt.compilation.weak_ref_tensor import weak_ref_tensors


class PiecewiseRunner:
    def __init__(self, device, runnable):
        self.device_module = torch.get_device_module(device)
        self.graph_pool = self.device_module.graph_pool_handle()
        self.runnable = runnable
        self.entries = {}

    # Safe, as SGLang writes it: the piece's output is weakened as the last
    # step of its capture; nothing later in that capture reads it.
    def capture(self, shape, x):
        graph = torch.cuda.CUDAGraph()
        with self.device_module.graph(graph, pool=self.graph_pool):
            output = self.runnable(x)
            output = weak_ref_tensors(output)
        self.entries[shape] = (graph, output)
        return output

    # Bug: the weakened output feeds a later op of the same capture.
    def capture_fused(self, shape, x):
        graph = torch.cuda.CUDAGraph()
        with self.device_module.graph(graph, pool=self.graph_pool):
            output = self.runnable(x)
            output = weak_ref_tensors(output)
            # CHECK: sglang.py:[[@LINE-1]]:22: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: sglang.py:[[@LINE-4]]:9: note: capture begins here
            # CHECK-NEXT: sglang.py:[[@LINE-3]]:13: note: the last strong reference to the memory dies here
            # CHECK-NEXT: sglang.py:[[@LINE+2]]:33: note: the weak reference is used by a later operation of the same capture here
            # CHECK-NEXT: sglang.py:[[@LINE+2]]:9: note: capture ends here
            output = torch.relu(output)
        self.entries[shape] = (graph, output)
        return output
