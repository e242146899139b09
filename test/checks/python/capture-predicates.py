# Capture predicates read off a call's result put the code in capture, in the
# guarded and in the early-return forms, also when read by getattr (with a
# default, as code that runs outside vLLM's forward context writes it),
# first stored in a local, wrapped in bool(), or kept on a class and read
# through the class's name; the same code with no
# predicate, or with getattr of another attribute, is not in capture.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning:
import torch
import torch_npu
from vllm.forward_context import get_forward_context


def keep_the_larger(cache, size, device):
    ws = cache.get(device)
    if ws is None or ws.numel() < size:
        ws = torch.empty(size, dtype=torch.uint8, device=device)
        cache[device] = ws
    return ws[:size]


_GUARDED_WORKSPACES = {}
_EARLY_WORKSPACES = {}
_EAGER_WORKSPACES = {}
_GETATTR_WORKSPACES = {}
_GETATTR_LOCAL_WORKSPACES = {}
_STORED_WORKSPACES = {}
_OTHER_ATTR_WORKSPACES = {}


class GuardedLayer:
    def forward(self, q, out):
        if get_forward_context().capturing:
            ws = _GUARDED_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _GUARDED_WORKSPACES[q.device] = ws
                # CHECK: capture-predicates.py:[[@LINE-1]]:17: warning: workspace slot '_GUARDED_WORKSPACES' shared by several layers is replaced during graph capture
                # CHECK-NEXT: capture-predicates.py:[[@LINE-6]]:12: note: capture begins here
                # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:33: note: an earlier layer reads the slot and hands the workspace to a captured task here
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class EarlyReturnLayer:
    def forward(self, q, out):
        if not get_forward_context().capturing:
            return out
        ws = _EARLY_WORKSPACES.get(q.device)
        if ws is None or ws.numel() < q.numel():
            ws = torch.empty(q.numel(), device=q.device)
            _EARLY_WORKSPACES[q.device] = ws
            # CHECK: capture-predicates.py:[[@LINE-1]]:13: warning: workspace slot '_EARLY_WORKSPACES' shared by several layers is replaced during graph capture
            # CHECK-NEXT: capture-predicates.py:[[@LINE-7]]:12: note: capture begins here
            # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:29: note: an earlier layer reads the slot and hands the workspace to a captured task here
        torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class EagerLayer:
    def forward(self, q, out):
        ws = _EAGER_WORKSPACES.get(q.device)
        if ws is None or ws.numel() < q.numel():
            ws = torch.empty(q.numel(), device=q.device)
            _EAGER_WORKSPACES[q.device] = ws
        torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class GetattrLayer:
    def forward(self, q, out):
        if getattr(get_forward_context(), "capturing", False):
            ws = _GETATTR_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _GETATTR_WORKSPACES[q.device] = ws
                # CHECK: capture-predicates.py:[[@LINE-1]]:17: warning: workspace slot '_GETATTR_WORKSPACES' shared by several layers is replaced during graph capture
                # CHECK-NEXT: capture-predicates.py:[[@LINE-6]]:12: note: capture begins here
                # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:33: note: an earlier layer reads the slot and hands the workspace to a captured task here
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class GetattrOfLocalLayer:
    def forward(self, q, out):
        ctx = get_forward_context()
        if not getattr(ctx, 'capturing', False):
            return out
        ws = _GETATTR_LOCAL_WORKSPACES.get(q.device)
        if ws is None or ws.numel() < q.numel():
            ws = torch.empty(q.numel(), device=q.device)
            _GETATTR_LOCAL_WORKSPACES[q.device] = ws
            # CHECK: capture-predicates.py:[[@LINE-1]]:13: warning: workspace slot '_GETATTR_LOCAL_WORKSPACES' shared by several layers is replaced during graph capture
            # CHECK-NEXT: capture-predicates.py:[[@LINE-7]]:12: note: capture begins here
            # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:29: note: an earlier layer reads the slot and hands the workspace to a captured task here
        torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class StoredPredicateLayer:
    def forward(self, q, out):
        capturing = get_forward_context().capturing
        if capturing:
            ws = _STORED_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _STORED_WORKSPACES[q.device] = ws
                # CHECK: capture-predicates.py:[[@LINE-1]]:17: warning: workspace slot '_STORED_WORKSPACES' shared by several layers is replaced during graph capture
                # CHECK-NEXT: capture-predicates.py:[[@LINE-6]]:12: note: capture begins here
                # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:33: note: an earlier layer reads the slot and hands the workspace to a captured task here
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class OtherAttributeLayer:
    def forward(self, q, out):
        if getattr(get_forward_context(), "with_prefill", False):
            ws = _OTHER_ATTR_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _OTHER_ATTR_WORKSPACES[q.device] = ws
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


_BOOL_WORKSPACES = {}
_BOOL_OTHER_WORKSPACES = {}


class BoolOfPredicateLayer:
    # bool() of the predicate is the predicate (vLLM Ascend's dual-stream
    # attention writes `capturing = bool(getattr(ctx, "capturing", False))`).
    def forward(self, q, out):
        capturing = bool(getattr(get_forward_context(), "capturing", False))
        if capturing:
            ws = _BOOL_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _BOOL_WORKSPACES[q.device] = ws
                # CHECK: capture-predicates.py:[[@LINE-1]]:17: warning: workspace slot '_BOOL_WORKSPACES' shared by several layers is replaced during graph capture
                # CHECK-NEXT: capture-predicates.py:[[@LINE-6]]:12: note: capture begins here
                # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:33: note: an earlier layer reads the slot and hands the workspace to a captured task here
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class BoolOfOtherValueLayer:
    # bool() of anything else is no predicate.
    def forward(self, q, out):
        if bool(getattr(get_forward_context(), "with_prefill", False)):
            ws = _BOOL_OTHER_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _BOOL_OTHER_WORKSPACES[q.device] = ws
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


# A capture flag kept on a class and read through the class's name (LMDeploy's
# and dlinfer's `AscendGraphRunner.capturing`, set around the capture).
_CLASS_FLAG_WORKSPACES = {}


class ClassFlagRunner:
    capturing = False


class ClassFlagLayer:
    def forward(self, q, out):
        if ClassFlagRunner.capturing:
            ws = _CLASS_FLAG_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _CLASS_FLAG_WORKSPACES[q.device] = ws
                # CHECK: capture-predicates.py:[[@LINE-1]]:17: warning: workspace slot '_CLASS_FLAG_WORKSPACES' shared by several layers is replaced during graph capture
                # CHECK-NEXT: capture-predicates.py:[[@LINE-6]]:12: note: capture begins here
                # CHECK-NEXT: capture-predicates.py:[[@LINE+1]]:33: note: an earlier layer reads the slot and hands the workspace to a captured task here
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out


class ClassOtherAttributeLayer:
    # Another attribute of the class is no predicate.
    def forward(self, q, out):
        if ClassFlagRunner.with_prefill:
            ws = _CLASS_FLAG_WORKSPACES.get(q.device)
            if ws is None or ws.numel() < q.numel():
                ws = torch.empty(q.numel(), device=q.device)
                _CLASS_FLAG_WORKSPACES[q.device] = ws
            torch_npu.npu_op(q, workspace=ws, out=out)
        return out
