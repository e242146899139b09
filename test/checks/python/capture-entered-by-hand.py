# A capture context manager kept in a variable and entered by hand
# (`cm = torch.cuda.graph(g, pool=...)`, `cm.__enter__()` ...
# `cm.__exit__(None, None, None)`, as LightLLM's prefill graphs do) is a
# capture from its __enter__ to its __exit__, as a `with` block is. A layer
# that stores only a weak alias of its workspace inside it is reported; the
# same layer called after __exit__ and a context that is never entered are
# not inside a capture.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from vllm_ascend.utils import weak_ref_tensors


class Layer:
    def __init__(self):
        self.cache = {}

    def forward(self, x, n):
        ws = self.cache.get(n)
        if ws is None:
            ws = torch.empty((n, 4096), device="cuda")
            self.cache[n] = weak_ref_tensors(ws)
            # CHECK: capture-entered-by-hand.py:[[@LINE-1]]:29: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: capture-entered-by-hand.py:[[@LINE+19]]:9: note: capture begins here
            # CHECK-NEXT: capture-entered-by-hand.py:[[@LINE+19]]:13: note: 'Layer.forward' runs inside the capture through this call
            # CHECK-NEXT: capture-entered-by-hand.py:[[@LINE-4]]:13: note: the weak reference is stored in 'self.cache', read by other code during the capture
            # CHECK-NEXT: capture-entered-by-hand.py:[[@LINE+3]]:9: note: the last strong reference to the memory dies here
            # CHECK-NEXT: capture-entered-by-hand.py:[[@LINE+2]]:42: note: the weak reference is used by a later operation of the same capture here
            # CHECK-NEXT: capture-entered-by-hand.py:[[@LINE+17]]:9: note: capture ends here
        return torch.ops.my.attention(x, ws)


class PrefillGraph:
    def __init__(self, pool):
        self.pool = pool
        self.graphs = {}
        self.layer = Layer()
        self.eager = Layer()

    def capture(self, x, n):
        g = torch.cuda.CUDAGraph()
        cm = torch.cuda.graph(g, pool=self.pool)
        cm.__enter__()
        y = self.layer.forward(x, n)
        y = self.layer.forward(y, n)
        cm.__exit__(None, None, None)
        self.graphs[n] = (g, y)
        return self.eager.forward(y, n)

    def never_entered(self, x, n):
        g = torch.cuda.CUDAGraph()
        cm = torch.cuda.graph(g, pool=self.pool)
        y = self.eager.forward(x, n)
        return y, cm
