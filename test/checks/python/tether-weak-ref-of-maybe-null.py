# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
from typing import Optional

import torch
from vllm_ascend.utils import weak_ref_tensors


class GraphParams:
    def __init__(self, sizes):
        self.workspaces = {size: None for size in sizes}
        self.events = {size: [] for size in sizes}


_POOL_TENSOR: Optional[torch.Tensor] = None


# The fix's first draft: values of a dict initialised with None.
def weaken_all(params: GraphParams):
    for num_tokens, workspace in params.workspaces.items():
        params.workspaces[num_tokens] = weak_ref_tensors(workspace)


# An Optional module global that may still be None.
def weaken_pool():
    return weak_ref_tensors(_POOL_TENSOR)


# A local that is None on one path.
def maybe_local(flag, t):
    x = None
    if flag:
        x = t
    return weak_ref_tensors(x)


# The same loop written through the dict type, over a copy of the items.
def weaken_all_unbound(params: GraphParams):
    for num_tokens, workspace in list(dict.items(params.workspaces)):
        dict.__setitem__(params.workspaces, num_tokens, weak_ref_tensors(workspace))


# --- Not flagged ---------------------------------------------------------

def weaken_all_guarded(params: GraphParams):
    for num_tokens, workspace in params.workspaces.items():
        if workspace is not None:
            params.workspaces[num_tokens] = weak_ref_tensors(workspace)


def weaken_all_skip(params: GraphParams):
    for num_tokens in params.workspaces:
        if params.workspaces[num_tokens] is None:
            continue
        params.workspaces[num_tokens] = weak_ref_tensors(
            params.workspaces[num_tokens])


def weaken_comprehension(params: GraphParams):
    params.workspaces = {k: weak_ref_tensors(v)
                         for k, v in params.workspaces.items() if v is not None}


def weaken_pool_guarded():
    if _POOL_TENSOR is None:
        return None
    return weak_ref_tensors(_POOL_TENSOR)


def weaken_all_unbound_guarded(params: GraphParams):
    for key, workspace in sorted(dict.items(params.workspaces)):
        if workspace is None:
            continue
        dict.__setitem__(params.workspaces, key, weak_ref_tensors(workspace))


def weaken_events_unbound(params: GraphParams):
    for k, v in tuple(params.events.items()):
        dict.__setitem__(params.events, k, weak_ref_tensors(v))


def weaken_events(params: GraphParams):
    # Values initialised with lists, never None.
    for k, v in params.events.items():
        params.events[k] = weak_ref_tensors(v)


def maybe_local_guarded(flag, t):
    x = None
    if flag:
        x = t
    return weak_ref_tensors(x) if x is not None else None

# CHECK: maybe-null.py:20:41: warning: weak-ref conversion of a value that may be empty (None, an undefined tensor or an empty optional) [tether-weak-ref-of-maybe-null]
# CHECK-NEXT: maybe-null.py:10:34: note: the value may be empty because of this
# CHECK: maybe-null.py:25:12: warning: weak-ref conversion of a value that may be empty {{.*}} [tether-weak-ref-of-maybe-null]
# CHECK-NEXT: maybe-null.py:14:40: note: the value may be empty because of this
# CHECK: maybe-null.py:33:12: warning: weak-ref conversion of a value that may be empty {{.*}} [tether-weak-ref-of-maybe-null]
# CHECK-NEXT: maybe-null.py:30:9: note: the value may be empty because of this
# CHECK: maybe-null.py:39:57: warning: weak-ref conversion of a value that may be empty {{.*}} [tether-weak-ref-of-maybe-null]
# CHECK-NEXT: maybe-null.py:10:34: note: the value may be empty because of this
