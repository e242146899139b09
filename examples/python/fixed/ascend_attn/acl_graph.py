"""Captures a runnable into an ACL graph per batch size and replays it."""
import torch
import torch_npu

from .context import get_forward_context
from .graph_params import get_graph_params, weaken_graph_params_workspaces
from .utils import weak_ref_tensors


class CaptureEntry:
    def __init__(self, num_tokens):
        self.num_tokens = num_tokens
        self.aclgraph = None
        self.output = None


class ACLGraphWrapper:
    def __init__(self, runnable, graph_pool, weak_ref_output=True):
        self.runnable = runnable
        self.graph_pool = graph_pool
        self.weak_ref_output = weak_ref_output
        self.entries = {}

    def __call__(self, num_tokens, *args, **kwargs):
        entry = self.entries.get(num_tokens)
        if entry is None:
            entry = CaptureEntry(num_tokens)
            self.entries[num_tokens] = entry
        if entry.aclgraph is None:
            aclgraph = torch.npu.NPUGraph()
            with torch.npu.graph(aclgraph, pool=self.graph_pool):
                # `output` lives in the graph's own pool.
                output = self.runnable(*args, **kwargs)
                if self.weak_ref_output:
                    output = weak_ref_tensors(output)
            # The capture has ended: weak references are safe from here on.
            weaken_graph_params_workspaces(num_tokens)
            entry.output = weak_ref_tensors(output)
            entry.aclgraph = aclgraph
            return output
        entry.aclgraph.replay()
        return entry.output


def update_attn_params(update_stream, num_tokens):
    """At replay: re-point every layer's task at this step's tensors."""
    graph_params = get_graph_params()
    with torch.npu.stream(update_stream):
        for params, handle in zip(graph_params.attn_params[num_tokens],
                                  graph_params.handles[num_tokens]):
            query, key, value, num_heads, scale, output = params
            workspace = graph_params.workspaces.get(num_tokens)
            torch.npu.graph_task_update_begin(update_stream, handle)
            torch_npu.npu_fused_infer_attention_score.out(
                query, key, value, num_heads=num_heads, scale=scale,
                workspace=workspace, out=[output])
            torch.npu.graph_task_update_end(update_stream)
