# setattr(obj, name, v) stores v in one of obj's attributes, also when the
# name is computed at run time (`"ws_%d" % n`): a holder that keeps the
# workspace until after the capture keeps it alive, and the weak alias in
# the shared slot is then safe. Storing only the weak alias that way is
# still reported.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from vllm_ascend.utils import weak_ref_tensors


class _Holder:
    pass


_HOLDER = _Holder()
_WS = {}
_NAMED = {}


def computed_name(q, n):
    ws = _WS.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        setattr(_HOLDER, "ws_%d" % n, ws)
        _WS[n] = weak_ref_tensors(ws)
    torch.ops.my_ext.attention(q, ws)


def constant_name(q, n):
    ws = _NAMED.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        setattr(_HOLDER, "ws", ws)
        _NAMED[n] = weak_ref_tensors(ws)
    torch.ops.my_ext.attention(q, ws)


def weak_only(q, n):
    if not hasattr(_HOLDER, "weak_%d" % n):
        ws = torch.empty((n, 4096), device="npu")
        setattr(_HOLDER, "weak_%d" % n, weak_ref_tensors(ws))
        # CHECK: setattr-keeps.py:[[@LINE-1]]:41: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: setattr-keeps.py:[[@LINE+15]]:5: note: capture begins here
        # CHECK-NEXT: setattr-keeps.py:[[@LINE+19]]:9: note: 'weak_only' runs inside the capture through this call
        # CHECK-NEXT: setattr-keeps.py:[[@LINE-4]]:9: note: the weak reference is stored in '_HOLDER', read by other code during the capture
        # CHECK-NEXT: setattr-keeps.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: setattr-keeps.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: setattr-keeps.py:[[@LINE+17]]:5: note: capture ends here
    torch.ops.my_ext.attention(q, getattr(_HOLDER, "weak_%d" % n))


def release_after_capture():
    for name in list(vars(_HOLDER)):
        delattr(_HOLDER, name)


def capture(graph, q, n):
    with torch.npu.graph(graph):
        computed_name(q, n)
        computed_name(q, n)
        constant_name(q, n)
        constant_name(q, n)
        weak_only(q, n)
        weak_only(q, n)
    release_after_capture()
