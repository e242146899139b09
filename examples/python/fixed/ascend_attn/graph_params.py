"""Per-batch-size state shared by every attention layer of a captured graph."""
from dataclasses import dataclass
from typing import Any, Optional

from .utils import weak_ref_tensors


@dataclass
class GraphParams:
    events: dict
    workspaces: dict
    handles: dict
    attn_params: dict


_graph_params: Optional[GraphParams] = None


def set_graph_params(capture_sizes):
    global _graph_params
    if _graph_params is not None:
        raise ValueError("Graph parameters have already been set!")
    _graph_params = GraphParams(
        {size: [] for size in capture_sizes},
        {size: None for size in capture_sizes},
        {size: [] for size in capture_sizes},
        {size: [] for size in capture_sizes},
    )


def update_graph_params_workspaces(num_tokens: int, workspace: Any):
    # Held strongly while the capture runs: every later layer's task is
    # captured pointing at this memory.
    global _graph_params
    if _graph_params is not None:
        _graph_params.workspaces[num_tokens] = workspace


def weaken_graph_params_workspaces(num_tokens: int):
    """After the capture: the graph's pool owns the workspace now."""
    if _graph_params is None:
        return
    workspace = _graph_params.workspaces.get(num_tokens)
    if workspace is not None:
        _graph_params.workspaces[num_tokens] = weak_ref_tensors(workspace)


def get_graph_params():
    return _graph_params
