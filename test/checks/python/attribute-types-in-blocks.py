# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
#
# What an object's attribute holds is read from the statements of its
# methods wherever they sit: inside `if`, `try`, `with` and `match` blocks,
# in each target of a chained assignment, and however the target is spaced
# (`self . ctx`). Not from a nested function or a lambda in __init__: those
# run later, if at all.
import contextlib

import torch
import torch_npu


class ExecContext:
    def __init__(self):
        self.workspace = None


def grow(ctx: ExecContext, size):
    if ctx.workspace is None or ctx.workspace.numel() < size:
        ctx.workspace = torch.empty(size, dtype=torch.uint8)
        # CHECK: :[[@LINE-1]]:9: warning: workspace slot 'ctx.workspace' shared by several layers is replaced during graph capture; tasks captured by earlier layers still point at the old workspace [tether-workspace-shared-across-layers]
        # CHECK-NEXT: :[[@LINE+54]]:5: note: capture begins here
        # CHECK-NEXT: :[[@LINE+54]]:17: note: 'MatchLayer.forward' runs inside the capture through this call
        # CHECK-NEXT: :[[@LINE+16]]:53: note: an earlier layer reads the slot and hands the workspace to a captured task here
        # CHECK-NEXT: :[[@LINE+54]]:5: note: capture ends here
        # CHECK-NEXT: :[[@LINE+58]]:17: note: 'GuardedLayer.forward' reaches the same store during the capture through this call
        # CHECK-NEXT: :[[@LINE+71]]:17: note: 'SpacedLayer.forward' reaches the same store during the capture through this call
    return ctx.workspace


class MatchLayer:
    def __init__(self, ctx: ExecContext, mode):
        match mode:
            case "shared":
                self.ctx = ctx
            case _:
                self.ctx = ctx

    def forward(self, query, size):
        return torch_npu.npu_paged_attention(query, workspace=grow(self.ctx, size))


class GuardedLayer:
    def __init__(self, ctx: ExecContext, strict):
        try:
            with contextlib.suppress(ValueError):
                if strict:
                    self.ctx = self.spare = ctx
        finally:
            pass

    def forward(self, query, size):
        return torch_npu.npu_paged_attention(query, workspace=grow(self.spare, size))


class SpacedLayer:
    def __init__(self, ctx: ExecContext):
        self . ctx = ctx

    def forward(self, query, size):
        return torch_npu.npu_paged_attention(query, workspace=grow(self.ctx, size))


class LaterLayer:
    def __init__(self, ctx: ExecContext):
        def bind():
            self.ctx = ctx

        self.bind = bind

    def forward(self, query, size):
        return torch_npu.npu_paged_attention(query, workspace=grow(self.ctx, size))


def capture(graph, query, a: MatchLayer, b: MatchLayer):
    with torch.npu.graph(graph):
        query = a.forward(query, 64)
        query = b.forward(query, 128)
    return query


def capture_guarded(graph, query, a: GuardedLayer, b: GuardedLayer):
    with torch.npu.graph(graph):
        query = a.forward(query, 64)
        query = b.forward(query, 128)
    return query


def capture_later(graph, query, a: LaterLayer, b: LaterLayer):
    with torch.npu.graph(graph):
        query = a.forward(query, 64)
        query = b.forward(query, 128)
    return query


def capture_spaced(graph, query, a: SpacedLayer, b: SpacedLayer):
    with torch.npu.graph(graph):
        query = a.forward(query, 64)
        query = b.forward(query, 128)
    return query
