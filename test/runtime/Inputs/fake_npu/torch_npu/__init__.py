"""A small fake torch_npu for tests, over CPU tensors (Debian's torch).

What vLLM Ascend uses: torch.npu (streams, NPUGraph, graph contexts, task
groups and updates), a caching allocator with graph pools that reuses freed
blocks (`empty` stands for torch.empty(..., device="npu")), the weak-ref
primitive, and one fused attention op with its workspace query, overridable
through __torch_function__ as torch_npu's generated ops are.
"""
import sys

import torch
from torch.overrides import handle_torch_function, has_torch_function

from . import _C, _allocator, npu
from ._allocator import empty

torch.npu = npu
sys.modules["torch.npu"] = npu


def _npu_fused_infer_attention_score_get_max_workspace(query, **kwargs):
    """The workspace the fused attention needs at most for this shape."""
    return empty((query.numel(),))


def _attention_kernel(query, key, workspace, scale, out, lse):
    """lse = logsumexp of the scores; the workspace holds the scaled query
    while the output is formed from it. Reads its inputs after writing the
    workspace, so any overlap of the workspace with a live tensor shows."""
    n = query.numel()
    lse[0] = torch.logsumexp(query.flatten() * scale, dim=0)
    workspace[:n] = query.flatten() * scale
    out.copy_(workspace[:n].view_as(query) + query * key + lse[0] * 0.01)


class _FusedInferAttentionScore:
    def out(self, query, key, workspace, scale, out):
        relevant = (query, key, workspace, out[0], out[1])
        if has_torch_function(relevant):
            return handle_torch_function(
                _FusedInferAttentionScore.out, relevant, self, query=query,
                key=key, workspace=workspace, scale=scale, out=out)
        a = _allocator.alias
        q, k, ws, o, lse = (a(query), a(key), a(workspace), a(out[0]), a(out[1]))
        npu.launch(lambda: _attention_kernel(q, k, ws, scale, o, lse))
        return out


npu_fused_infer_attention_score = _FusedInferAttentionScore()
