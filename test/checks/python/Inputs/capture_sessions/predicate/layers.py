"""A session predicate from .tether.yaml: true for the whole session,
between its captures too."""
import torch
from capture_state import in_capture_session
from vllm.utils import weak_ref_tensors

_KEEP = {}


# Bug: under the session flag, between captures, a weak alias is kept for
# a later capture of the session; its owner dies at the return.
def prepare(x):
    if in_capture_session():
        scale = torch.ones(4)
        _KEEP["scale"] = weak_ref_tensors(scale)
        # CHECK: layers.py:[[@LINE-1]]:26: warning: weak reference made during a capture session to memory whose last strong reference can die before a later capture of the session uses it [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: layers.py:[[@LINE-4]]:8: note: capture session begins here
        # CHECK-NEXT: layers.py:[[@LINE-3]]:9: note: the weak reference is stored in '_KEEP', read by a later capture of the session
        # CHECK-NEXT: layers.py:[[@LINE+2]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: layers.py:[[@LINE+7]]:30: note: a later capture of the same session uses the weak reference here
    return x


def capture(g, x):
    if in_capture_session():
        with torch.cuda.graph(g):
            y = torch.mul(x, _KEEP["scale"])
        return y
    return x
