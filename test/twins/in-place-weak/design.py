# Twin design in-place-weak, Python side (C++ side: design.cpp).
#
# Issue 12, road 4: `t.data = weak_alias` turns the very tensor other code
# holds as the owner into a non-owner. Here a captured step weakens its
# output in place while the capture still runs, and a later op of the same
# capture reads it: the output's storage has no strong holder left.
#
# Expected: `in-place`, the weak reference made for the in-place
# assignment, is tether-weak-ref-before-capture-end. The fixed twin weakens
# the output after the capture (`fixed-in-place`): silent.
import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


def capture_step(graph, runnable, x):
    with torch.npu.graph(graph):
        out = runnable(x)
        out.data = weak_ref_tensors(out)  # TWIN: in-place
        y = torch.relu(out)
    return y


# --- the fix -----------------------------------------------------------------
def capture_step_fixed(graph, runnable, x):
    with torch.npu.graph(graph):
        out = runnable(x)
        y = torch.relu(out)
    out.data = weak_ref_tensors(out)  # TWIN: fixed-in-place
    return y
