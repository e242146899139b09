# Pytree mappers apply their function to every leaf of a tree, so
# tree_map(f, out) is as weak as f(out) when f converts to a weak reference:
# a catalog primitive, the package's own wrapper of one, through tree_map
# or tree_map_only. The same code mapping a function that keeps its
# argument, or keeping a strong reference beside the weak one, is silent.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from torch.utils._pytree import tree_map, tree_map_only
from vllm_ascend.utils import weak_ref_tensors

_PRIMITIVE = {}
_ONLY = {}
_WRAPPED = {}
_STRONG_FN = {}
_KEPT = {}
_KEPT_STRONG = {}


def make_weakref(t):
    return weak_ref_tensors(t)


def detached(t):
    return t


def primitive(q, n):
    ws = _PRIMITIVE.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _PRIMITIVE[n] = tree_map(weak_ref_tensors, ws)
        # CHECK: tree-mappers.py:[[@LINE-1]]:25: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: tree-mappers.py:[[@LINE+57]]:5: note: capture begins here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+57]]:9: note: 'primitive' runs inside the capture through this call
        # CHECK-NEXT: tree-mappers.py:[[@LINE-4]]:9: note: the weak reference is stored in '_PRIMITIVE', read by other code during the capture
        # CHECK-NEXT: tree-mappers.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+62]]:19: note: capture ends here
    torch.ops.my_ext.attention(q, ws)


def only(q, n):
    ws = _ONLY.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _ONLY[n] = tree_map_only(torch.Tensor, weak_ref_tensors, ws)
        # CHECK: tree-mappers.py:[[@LINE-1]]:20: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: tree-mappers.py:[[@LINE+42]]:5: note: capture begins here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+44]]:9: note: 'only' runs inside the capture through this call
        # CHECK-NEXT: tree-mappers.py:[[@LINE-4]]:9: note: the weak reference is stored in '_ONLY', read by other code during the capture
        # CHECK-NEXT: tree-mappers.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+47]]:19: note: capture ends here
    torch.ops.my_ext.attention(q, ws)


def wrapped(q, n):
    ws = _WRAPPED.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _WRAPPED[n] = tree_map(make_weakref, ws)
        # CHECK: tree-mappers.py:[[@LINE-1]]:23: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: tree-mappers.py:[[@LINE+27]]:5: note: capture begins here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+31]]:9: note: 'wrapped' runs inside the capture through this call
        # CHECK-NEXT: tree-mappers.py:[[@LINE-4]]:9: note: the weak reference is stored in '_WRAPPED', read by other code during the capture
        # CHECK-NEXT: tree-mappers.py:[[@LINE+3]]:5: note: the last strong reference to the memory dies here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+2]]:35: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: tree-mappers.py:[[@LINE+32]]:19: note: capture ends here
    torch.ops.my_ext.attention(q, ws)


def strong_fn(q, n):
    ws = _STRONG_FN.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _STRONG_FN[n] = tree_map(detached, ws)
    torch.ops.my_ext.attention(q, ws)


def kept(q, n):
    ws = _KEPT.get(n)
    if ws is None:
        ws = torch.empty((n, 4096), device="npu")
        _KEPT_STRONG[n] = ws
        _KEPT[n] = tree_map(weak_ref_tensors, ws)
    torch.ops.my_ext.attention(q, ws)


def capture(graph, q, n):
    with torch.npu.graph(graph):
        primitive(q, n)
        primitive(q, n)
        only(q, n)
        only(q, n)
        wrapped(q, n)
        wrapped(q, n)
        strong_fn(q, n)
        strong_fn(q, n)
        kept(q, n)
        kept(q, n)
