"""The full-graph fused-infer-attention path of attention_v1.py."""
import torch
import torch_npu

from vllm_ascend.compilation.acl_graph import (get_graph_params,
                                               update_graph_params_workspaces)
from vllm_ascend.forward_context import get_forward_context
from vllm_ascend.utils import weak_ref_tensors


class AscendAttention:
    def __init__(self, layer, hidden):
        self.layer = layer
        self.scale = 1.0 / (layer + 2)
        self.key = torch.linspace(-1, 1, hidden) * (layer + 1)

    def full_graph_fia(self, query):
        num_tokens = query.shape[0]
        graph_params = get_graph_params()
        # Get workspace from cache or calculate it if not present.
        workspace = graph_params.workspaces.get(num_tokens)
        softmax_lse = torch_npu.empty((1,))
        output = torch_npu.empty(tuple(query.shape))
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(
                query=query)
            update_graph_params_workspaces(num_tokens, workspace)

        stream = torch_npu.npu.current_stream()
        graph_params.attn_params[num_tokens].append(
            (weak_ref_tensors(query), weak_ref_tensors(output),
             weak_ref_tensors(softmax_lse), self.key, self.scale))
        torch.npu.graph_task_group_begin(stream)
        torch_npu.npu_fused_infer_attention_score.out(
            query=query, key=self.key, workspace=workspace, scale=self.scale,
            out=[output, softmax_lse])
        handle = torch.npu.graph_task_group_end(stream)
        graph_params.handles[num_tokens].append(handle)
        return output

    def forward(self, query):
        if get_forward_context().capturing:
            return self.full_graph_fia(query)
        # Eager: the reference result, computed directly.
        out = torch.empty_like(query)
        ws = torch.empty(query.numel())
        lse = torch.empty(1)
        torch_npu._attention_kernel(query, self.key, ws, self.scale, out, lse)
        return out
