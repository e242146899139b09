"""TransformerEngine's names: make_weak_ref, _graph_context_wrapper and the
is_graph_capturing predicate (shapes written for this test)."""
import torch
from transformer_engine.pytorch.graph import _graph_context_wrapper, is_graph_capturing
from transformer_engine.pytorch.utils import make_weak_ref


# Safe, as TE writes it: forward graphs keep their outputs strongly; each
# output is weakened only after the backward graph that reads it has been
# captured, outside any capture block.
def graph_callables(layers, samples, pool):
    fwd_graphs = [torch.cuda.CUDAGraph() for _ in layers]
    bwd_graphs = [torch.cuda.CUDAGraph() for _ in layers]
    outputs = []
    for layer, sample, graph in zip(layers, samples, fwd_graphs):
        with _graph_context_wrapper(graph, pool=pool):
            out = layer(sample)
        outputs.append(out)
    grads = []
    static_grad_outputs = []
    for i in reversed(range(len(layers))):
        grad_out = torch.empty_like(outputs[i])
        with _graph_context_wrapper(bwd_graphs[i], pool=pool):
            grad_in = torch.autograd.grad(outputs[i], samples[i], grad_out)
        grads.append(grad_in)
        static_grad_outputs.append(grad_out)  # replay reads it: kept
        outputs[i] = make_weak_ref(outputs[i])
    return fwd_graphs, bwd_graphs, outputs, grads, static_grad_outputs


# Bug: weakened inside the wrapper's capture, then read by a later op of it.
def weak_inside_wrapper(graph, layer, sample, pool):
    with _graph_context_wrapper(graph, pool=pool):
        hidden = layer(sample)
        hidden = make_weak_ref(hidden)
        # CHECK: transformer_engine.py:[[@LINE-1]]:18: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: transformer_engine.py:[[@LINE-4]]:5: note: capture begins here
        # CHECK-NEXT: transformer_engine.py:[[@LINE-3]]:9: note: the last strong reference to the memory dies here
        # CHECK-NEXT: transformer_engine.py:[[@LINE+2]]:26: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: transformer_engine.py:[[@LINE+2]]:5: note: capture ends here
        out = torch.relu(hidden)
    return out


# Bug: a module's forward under TE's predicate caches a weak scale that the
# next layer's captured op reads.
_SCALES = {}


def scaled(x, n):
    if is_graph_capturing():
        scale = _SCALES.get(n)
        if scale is None:
            scale = torch.ones(n)
            _SCALES[n] = make_weak_ref(scale)
            # CHECK: transformer_engine.py:[[@LINE-1]]:26: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: transformer_engine.py:[[@LINE-6]]:8: note: capture begins here
            # CHECK-NEXT: transformer_engine.py:[[@LINE-3]]:13: note: the weak reference is stored in '_SCALES', read by other code during the capture
            # CHECK-NEXT: transformer_engine.py:[[@LINE+2]]:9: note: the last strong reference to the memory dies here
            # CHECK-NEXT: transformer_engine.py:[[@LINE+1]]:29: note: the weak reference is used by a later operation of the same capture here
        return torch.mul(x, _SCALES[n])
    return x
