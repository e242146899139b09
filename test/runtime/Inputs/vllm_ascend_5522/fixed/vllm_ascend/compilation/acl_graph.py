"""acl_graph.py after #5522: the workspace is held strongly during capture
and weakened once the capture ended."""
import torch

from vllm_ascend.forward_context import get_forward_context
from vllm_ascend.graph_params import get_graph_params  # noqa: F401
from vllm_ascend.utils import weak_ref_tensors
import vllm_ascend.graph_params as _params


def update_graph_params_workspaces(num_tokens, workspace):
    if _params._graph_params is not None:
        _params._graph_params.workspaces[num_tokens] = workspace


def weak_ref_workspaces(params):
    if params is None:
        return
    for num_tokens in params.workspaces:
        if params.workspaces[num_tokens] is None:
            continue
        params.workspaces[num_tokens] = weak_ref_tensors(
            params.workspaces[num_tokens])


def capture_graph(runnable, static_input, pool):
    forward_context = get_forward_context()
    aclgraph = torch.npu.NPUGraph()
    forward_context.capturing = True
    with torch.npu.graph(aclgraph, pool=pool):
        output = runnable(static_input)
    forward_context.capturing = False
    # here we always use weak ref for the workspaces to save memory
    weak_ref_workspaces(_params._graph_params)
    return aclgraph, output
