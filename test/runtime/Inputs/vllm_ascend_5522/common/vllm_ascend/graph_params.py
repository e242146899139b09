"""Graph parameters shared by the attention layers (acl_graph.py upstream):
per captured size, the shared workspace, the task group handles and the
weak-ref'd arguments the tasks are updated with before each replay."""
from dataclasses import dataclass
from typing import Optional

import torch
import torch_npu


@dataclass
class GraphParams:
    workspaces: dict
    handles: dict
    attn_params: dict


_graph_params: Optional[GraphParams] = None


def set_graph_params(capture_sizes):
    global _graph_params
    _graph_params = GraphParams({n: None for n in capture_sizes},
                                {n: [] for n in capture_sizes},
                                {n: [] for n in capture_sizes})


def get_graph_params():
    return _graph_params


def update_attn_params(update_stream, num_tokens):
    """Before a replay: re-point every attention task of the graph (the
    weak refs of attn_params are used here, after the capture: safe)."""
    params = get_graph_params()
    with torch.npu.stream(update_stream):
        for handle, (query, output, lse, key, scale) in zip(
                params.handles[num_tokens], params.attn_params[num_tokens]):
            torch.npu.graph_task_update_begin(update_stream, handle)
            torch_npu.npu_fused_infer_attention_score.out(
                query=query, key=key,
                workspace=params.workspaces[num_tokens], scale=scale,
                out=[output, lse])
            torch.npu.graph_task_update_end(update_stream)
