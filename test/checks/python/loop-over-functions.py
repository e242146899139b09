# A loop over a tuple or list of functions calls each of them in turn: the
# loop variable's call is a call of every element. A step that stores a
# weak alias of its own workspace during the capture is reported through
# that call; a step whose workspace is also kept strongly is silent.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from vllm_ascend.utils import weak_ref_tensors

_WS = {}
_KEPT = {}
_KEPT_WEAK = {}


class Runner:
    def _prefill(self, q, n):
        return q

    def _decode(self, q, n):
        ws = torch.empty((n, 4096), device="npu")
        _WS[n] = weak_ref_tensors(ws)
        # CHECK: loop-over-functions.py:[[@LINE-1]]:18: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: loop-over-functions.py:[[@LINE+15]]:9: note: capture begins here
        # CHECK-NEXT: loop-over-functions.py:[[@LINE+16]]:17: note: 'Runner._decode' runs inside the capture through this call
        # CHECK-NEXT: loop-over-functions.py:[[@LINE-4]]:9: note: the weak reference is stored in '_WS', read by other code during the capture
        # CHECK-NEXT: loop-over-functions.py:[[@LINE+2]]:9: note: the last strong reference to the memory dies here
        # CHECK-NEXT: loop-over-functions.py:[[@LINE+1]]:39: note: the weak reference is used by a later operation of the same capture here
        torch.ops.my_ext.attention(q, _WS[n])
        # CHECK-NEXT: loop-over-functions.py:[[@LINE+15]]:28: note: capture ends here

    def _kept(self, q, n):
        ws = torch.empty((n, 4096), device="npu")
        _KEPT[n] = ws
        _KEPT_WEAK[n] = weak_ref_tensors(ws)
        torch.ops.my_ext.attention(q, _KEPT_WEAK[n])

    def capture(self, graph, q, n):
        with torch.npu.graph(graph):
            for step in (self._prefill, self._decode):
                step(q, n)
            for keeping in [self._kept]:
                keeping(q, n)
            for other in (self._kept, self._prefill):
                other(q, n)
