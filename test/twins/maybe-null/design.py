# Twin design maybe-null, Python side (C++ side: design.cpp).
#
# Models the first draft of the #5522 fix in vLLM Ascend
# (compilation/acl_graph.py): GraphParams holds one workspace slot per
# capture size, initialised to None; after the capture every slot is turned
# into a weak reference, but a size whose graph never made a workspace still
# holds None.
#
# Expected: `weaken`, the conversion of a slot that may be None, is
# tether-weak-ref-of-maybe-null. The fixed twin (the merged fix) skips empty
# slots before converting (`fixed-weaken`): silent.
from typing import Optional

import torch
from vllm_ascend.utils import weak_ref_tensors


class GraphParams:
    def __init__(self, sizes: list[int]):
        self.workspaces = {size: None for size in sizes}


def weak_ref_workspaces(params: Optional[GraphParams]):
    if params is None:
        return
    for num_tokens, workspace in params.workspaces.items():
        params.workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: weaken


# --- the fix -----------------------------------------------------------------
def weak_ref_workspaces_fixed(params: Optional[GraphParams]):
    if params is None:
        return
    for num_tokens, workspace in params.workspaces.items():
        if workspace is None:
            continue
        params.workspaces[num_tokens] = weak_ref_tensors(workspace)  # TWIN: fixed-weaken


def after_capture(sizes: list[int]):
    params = GraphParams(sizes)
    weak_ref_workspaces(params)  # TWIN: weaken-call
    weak_ref_workspaces_fixed(params)  # TWIN: fixed-call
