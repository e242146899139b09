"""TransformerEngine's session calls: set_capture_start ... set_capture_end
around every callable's forward and backward captures, one pool."""
import torch
from transformer_engine.pytorch.graph import set_capture_end, set_capture_start
from transformer_engine.pytorch.utils import make_weak_ref


# Safe, as TransformerEngine writes it: a callable's outputs are weakened
# once its backward graph is captured; no later capture reads them.
def graph_callables(fwd, bwd, x, pool):
    set_capture_start()
    with torch.cuda.graph(fwd, pool=pool):
        out = torch.matmul(x, x)
    with torch.cuda.graph(bwd, pool=pool):
        grad = torch.relu(out)
    static_out = make_weak_ref(out)
    del out
    set_capture_end()
    return static_out, grad


# Bug: weakened between the forward and the backward capture, which reads it.
def graph_callables_early(fwd, bwd, x, pool):
    set_capture_start()
    with torch.cuda.graph(fwd, pool=pool):
        out = torch.matmul(x, x)
    static_out = make_weak_ref(out)
    # CHECK: transformer_engine.py:[[@LINE-1]]:18: warning: weak reference made during a capture session to memory whose last strong reference can die before a later capture of the session uses it [tether-weak-ref-before-capture-end]
    # CHECK-NEXT: transformer_engine.py:[[@LINE-5]]:5: note: capture session begins here
    # CHECK-NEXT: transformer_engine.py:[[@LINE+4]]:5: note: the last strong reference to the memory dies here
    # CHECK-NEXT: transformer_engine.py:[[@LINE+5]]:27: note: a later capture of the same session uses the weak reference here
    # CHECK-NEXT: transformer_engine.py:[[@LINE+5]]:5: note: capture session ends here
    # The weak alias alone holds the forward output now.
    del out
    with torch.cuda.graph(bwd, pool=pool):
        grad = torch.relu(static_out)
    set_capture_end()
    return static_out, grad

