# A tensor made over a raw address owns nothing: torch.as_tensor of an
# object whose __cuda_array_interface__ carries t.data_ptr() (TensorRT-LLM's
# make_weak_ref over its TensorWrapper, copied into a package of another
# name) is a weak reference of t's memory, read from the bodies, not from
# the catalog. torch.as_tensor of a list, or of the tensor itself, is a
# tensor of its own (or t), and keeping the workspace beside the weak alias
# is safe.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch

_WS = {}
_LENS = {}
_SAME = {}
_KEPT = {}
_KEPT_WEAK = {}


class TensorWrapper:
    def __init__(self, data_ptr, dtype, shape):
        self._data_ptr = data_ptr
        self.dtype = dtype
        self.shape = tuple(shape)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": "<f2",
                "data": (self._data_ptr, False), "version": 3}


def make_weak_ref(x):
    if isinstance(x, torch.Tensor):
        return torch.as_tensor(TensorWrapper(x.data_ptr(), x.dtype, x.shape),
                               device="cuda")
    return x


def weak(q, n):
    ws = _WS.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="cuda")
        _WS[n] = make_weak_ref(ws)
        # CHECK: address-wrappers.py:[[@LINE-1]]:18: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: address-wrappers.py:[[@LINE+35]]:5: note: capture begins here
        # CHECK-NEXT: address-wrappers.py:[[@LINE+35]]:9: note: 'weak' runs inside the capture through this call
        # CHECK-NEXT: address-wrappers.py:[[@LINE-4]]:9: note: the weak reference is stored in '_WS', read by other code during the capture
        # CHECK-NEXT: address-wrappers.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: address-wrappers.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: address-wrappers.py:[[@LINE+38]]:19: note: capture ends here
    torch.ops.my_ext.attention(q, ws)


def from_list(q, n):
    lens = _LENS.get(n)
    if lens is None:
        lens = torch.as_tensor([n, n], device="cuda")
        _LENS[n] = lens
    torch.ops.my_ext.attention(q, lens)


def same_tensor(q, n):
    ws = _SAME.get(n)
    if ws is None:
        ws = torch.as_tensor(torch.empty((n, 4096), device="cuda"))
        _SAME[n] = ws
    torch.ops.my_ext.attention(q, ws)


def kept(q, n):
    ws = _KEPT_WEAK.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="cuda")
        _KEPT[n] = ws
        _KEPT_WEAK[n] = make_weak_ref(ws)
    torch.ops.my_ext.attention(q, ws)


def capture(graph, q, n):
    with torch.cuda.graph(graph):
        weak(q, n)
        weak(q, n)
        from_list(q, n)
        from_list(q, n)
        same_tensor(q, n)
        same_tensor(q, n)
        kept(q, n)
        kept(q, n)
