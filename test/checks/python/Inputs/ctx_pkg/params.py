"""Graph parameters: the store helper the attention layer calls."""
from vllm_ascend.utils import weak_ref_tensors

_WORKSPACES = {}


def update_workspace(num_tokens, workspace):
    _WORKSPACES[num_tokens] = weak_ref_tensors(workspace)


def own_finding(x):
    return weak_ref_tensors(weak_ref_tensors(x))
