import torch
import torch_npu

from .store import CACHE, put
from .ops import weak as weak_mod


def forward(ctx, q, n):
    if ctx.capturing:
        ws = CACHE.get(n)
        if ws is None:
            ws = torch.empty(n)
            put(n, weak_mod.weak_ref_tensors(ws))
        torch_npu.npu_op(q, workspace=ws)
