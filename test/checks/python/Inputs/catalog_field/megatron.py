"""Megatron-LM's names: make_weakref (weakens its argument in place and
returns it) and the is_graph_capturing predicate (shapes written for this
test)."""
import torch
from megatron.core.transformer.cuda_graphs import is_graph_capturing, make_weakref


# Safe, as Megatron writes it: once the backward graph is captured, its
# gradient buffers are weakened in place, outside the capture.
class GraphRunner:
    def create_bwd_graph(self, static_outputs, inputs, pool):
        self.bwd_graph = torch.cuda.CUDAGraph()
        grad_outputs = [torch.zeros_like(o) for o in static_outputs]
        with torch.cuda.graph(self.bwd_graph, pool=pool):
            grads = torch.autograd.grad(static_outputs, inputs, grad_outputs)
        self.static_grad_outputs = grad_outputs
        self.static_grad_inputs = grads
        for t in grads:
            make_weakref(t)
        return self.bwd_graph


# Bug: under the predicate, a rotary cache keeps a weak table that the next
# layer's captured op reads after this call's owner is gone.
_ROTARY = {}


def rotary(q, n):
    if is_graph_capturing():
        freqs = _ROTARY.get(n)
        if freqs is None:
            freqs = torch.empty(n)
            _ROTARY[n] = make_weakref(freqs)
            # CHECK: megatron.py:[[@LINE-1]]:26: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: megatron.py:[[@LINE-6]]:8: note: capture begins here
            # CHECK-NEXT: megatron.py:[[@LINE-3]]:13: note: the weak reference is stored in '_ROTARY', read by other code during the capture
            # CHECK-NEXT: megatron.py:[[@LINE+2]]:9: note: the last strong reference to the memory dies here
            # CHECK-NEXT: megatron.py:[[@LINE+1]]:29: note: the weak reference is used by a later operation of the same capture here
        return torch.mul(q, _ROTARY[n])
    return q
