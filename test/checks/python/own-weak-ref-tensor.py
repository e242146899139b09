# A package's own function is read from its body, even when its name is a
# bare catalog name ("weak_ref_tensor", the kernel in any namespace):
# dlinfer's weak_ref_tensor returns a tensor that holds its storage, and
# storing it keeps the workspace alive. A helper that converts tensors and
# hands anything else back unchanged (isinstance(x, torch.Tensor) or
# torch.is_tensor(x) on the way) is a conversion for the tensor it is given,
# directly or through a second helper; one that hands its argument back
# when a flag is off may keep the tensor, and is silent.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch

_STRONG = {}
_WEAK = {}
_NESTED = {}
_FLAG = {}


def weak_ref_tensor(tensor):
    if isinstance(tensor, torch.Tensor):
        return tensor.detach()
    return tensor


def to_weak(tensor):
    if isinstance(tensor, torch.Tensor):
        return torch.ops._C_ascend.weak_ref_tensor(tensor)
    return tensor


def to_weak_all(tensors):
    if torch.is_tensor(tensors):
        return to_weak(tensors)
    return [to_weak(t) for t in tensors]


def maybe_weak(tensor, on):
    if on:
        return torch.ops._C_ascend.weak_ref_tensor(tensor)
    return tensor


def strong(q, n):
    ws = _STRONG.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _STRONG[n] = weak_ref_tensor(ws)
    torch.ops.my_ext.attention(q, ws)


def weak(q, n):
    ws = _WEAK.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _WEAK[n] = to_weak(ws)
        # CHECK: own-weak-ref-tensor.py:[[@LINE-1]]:20: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+33]]:5: note: capture begins here
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+35]]:9: note: 'weak' runs inside the capture through this call
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE-4]]:9: note: the weak reference is stored in '_WEAK', read by other code during the capture
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+36]]:26: note: capture ends here
    torch.ops.my_ext.attention(q, ws)


def nested(q, n):
    ws = _NESTED.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _NESTED[n] = to_weak_all(ws)
        # CHECK: own-weak-ref-tensor.py:[[@LINE-1]]:22: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+18]]:5: note: capture begins here
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+22]]:9: note: 'nested' runs inside the capture through this call
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE-4]]:9: note: the weak reference is stored in '_NESTED', read by other code during the capture
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: own-weak-ref-tensor.py:[[@LINE+21]]:26: note: capture ends here
    torch.ops.my_ext.attention(q, ws)


def flagged(q, n, on):
    ws = _FLAG.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _FLAG[n] = maybe_weak(ws, on)
    torch.ops.my_ext.attention(q, ws)


def capture(graph, q, n, on):
    with torch.npu.graph(graph):
        strong(q, n)
        strong(q, n)
        weak(q, n)
        weak(q, n)
        nested(q, n)
        nested(q, n)
        flagged(q, n, on)
        flagged(q, n, on)

