# Capture predicates read off a call's result put the code in capture, in the
# guarded and in the early-return forms; the same code with no predicate (and
# no capture region) is not in capture.
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
