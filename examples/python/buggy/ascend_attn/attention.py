import torch
import torch_npu

from .context import get_forward_context
from .graph_params import get_graph_params, update_graph_params_workspaces
from .utils import weak_ref_tensors


class AscendAttentionImpl:
    def __init__(self, num_heads, head_size, scale, num_kv_heads):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        self.key_cache = None
        self.value_cache = None

    def forward(self, query, key, value, attn_metadata, output):
        if attn_metadata.use_paged_attention:
            return self._forward_paged(query, attn_metadata, output)
        return self._forward_fused(query, key, value, attn_metadata, output)

    def _forward_fused(self, query, key, value, attn_metadata, output):
        forward_context = get_forward_context()
        if not forward_context.capturing:
            return torch_npu.npu_fused_infer_attention_score(
                query, key, value, num_heads=self.num_heads, scale=self.scale)
        graph_params = get_graph_params()
        num_tokens = query.shape[0]
        stream = torch_npu.npu.current_stream()
        workspace = graph_params.workspaces.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(
                query, key, value, num_heads=self.num_heads, scale=self.scale)
            graph_params.workspaces[num_tokens] = weak_ref_tensors(workspace)
        graph_params.attn_params[num_tokens].append((
            weak_ref_tensors(query),
            weak_ref_tensors(key),
            weak_ref_tensors(value),
            self.num_heads,
            self.scale,
            weak_ref_tensors(output),
        ))
        torch.npu.graph_task_group_begin(stream)
        torch_npu.npu_fused_infer_attention_score.out(
            query, key, value, num_heads=self.num_heads, scale=self.scale,
            workspace=workspace, out=[output])
        handle = torch.npu.graph_task_group_end(stream)
        graph_params.handles[num_tokens].append(handle)
        return output

    def _forward_paged(self, query, attn_metadata, output):
        forward_context = get_forward_context()
        if forward_context.capturing:
            graph_params = get_graph_params()
            num_tokens = query.shape[0]
            stream = torch_npu.npu.current_stream()
            workspace = graph_params.workspaces.get(num_tokens)
            if workspace is None:
                workspace = torch_npu._npu_paged_attention_get_workspace(
                    query=query, key_cache=self.key_cache,
                    value_cache=self.value_cache,
                    num_kv_heads=self.num_kv_heads, num_heads=self.num_heads,
                    scale_value=self.scale,
                    block_table=attn_metadata.block_tables,
                    context_lens=attn_metadata.seq_lens, out=output)
                update_graph_params_workspaces(num_tokens,
                                               weak_ref_tensors(workspace))
            graph_params.attn_params[num_tokens].append((
                weak_ref_tensors(query),
                weak_ref_tensors(self.key_cache),
                weak_ref_tensors(self.value_cache),
                attn_metadata.block_tables,
                attn_metadata.seq_lens,
                weak_ref_tensors(output),
            ))
            torch.npu.graph_task_group_begin(stream)
            torch_npu._npu_paged_attention(
                query=query, key_cache=self.key_cache,
                value_cache=self.value_cache, num_kv_heads=self.num_kv_heads,
                num_heads=self.num_heads, scale_value=self.scale,
                block_table=attn_metadata.block_tables,
                context_lens=attn_metadata.seq_lens, out=output,
                workspace=workspace)
            handle = torch.npu.graph_task_group_end(stream)
            graph_params.handles[num_tokens].append(handle)
        else:
            torch_npu._npu_paged_attention(
                query=query, key_cache=self.key_cache,
                value_cache=self.value_cache, num_kv_heads=self.num_kv_heads,
                num_heads=self.num_heads, scale_value=self.scale,
                block_table=attn_metadata.block_tables,
                context_lens=attn_metadata.seq_lens, out=output)
        return output
