# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from vllm.utils.torch_utils import weak_ref_tensors
from vllm_ascend.utils import weak_ref_tensors as ascend_weak

_WORKSPACES = {}


# Nested conversions.
def nested(x):
    return weak_ref_tensors(weak_ref_tensors(x))
# CHECK: double-weak-ref.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:[[@LINE-2]]:29: note: first weak reference made here


# A helper that weak-refs its parameter, called with a weak ref (the
# vLLM Ascend paged-attention history).
def update_workspaces(num_tokens, workspace):
    _WORKSPACES[num_tokens] = weak_ref_tensors(workspace)


def paged_attention(num_tokens, workspace):
    update_workspaces(num_tokens, weak_ref_tensors(workspace))
# CHECK: double-weak-ref.py:[[@LINE-1]]:5: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:[[@LINE-2]]:35: note: first weak reference made here
# CHECK-NEXT: double-weak-ref.py:[[@LINE-3]]:35: note: the weak reference is passed to 'update_workspaces' here
# CHECK-NEXT: double-weak-ref.py:[[@LINE-8]]:31: note: 'update_workspaces' converts its parameter 'workspace' to a weak reference here


# The same through a local, any primitive spelling.
def paged_attention_via_local(num_tokens, workspace):
    w = torch.ops._C_ascend.weak_ref_tensor(workspace)
    update_workspaces(num_tokens, w)
# CHECK: double-weak-ref.py:[[@LINE-1]]:5: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:[[@LINE-3]]:9: note: first weak reference made here
# CHECK-NEXT: double-weak-ref.py:[[@LINE-3]]:35: note: the weak reference is passed to 'update_workspaces' here
# CHECK-NEXT: double-weak-ref.py:[[@LINE-18]]:31: note: 'update_workspaces' converts its parameter 'workspace' to a weak reference here


# A helper that returns a primitive's result is itself a weak-ref function.
def my_weak(t):
    return torch.ops._C.weak_ref_tensor(t)


def through_inferred_helper(x):
    return my_weak(my_weak(x))
# CHECK: double-weak-ref.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:[[@LINE-2]]:20: note: first weak reference made here


# One of the two conversions is hidden in the helper: reported through a
# local too.
def helper_then_primitive(x):
    w = my_weak(x)
    return ascend_weak(w)
# CHECK: double-weak-ref.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:[[@LINE-3]]:9: note: first weak reference made here


def primitive_then_helper(x):
    w = weak_ref_tensors(x)
    return my_weak(w)
# CHECK: double-weak-ref.py:[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:[[@LINE-3]]:9: note: first weak reference made here


# --- Not flagged ---------------------------------------------------------

# Both conversions written in this function, through a local: a visible
# no-op (vLLM's wrappers weaken the output inside the capture and store a
# weak ref of it after).
def through_variable(x):
    w = torch.ops._C_ascend.weak_ref_tensor(x)
    return ascend_weak(w)


class Entry:
    output = None


def capture_output(graph, runnable, entry, args):
    with torch.cuda.graph(graph):
        output = runnable(*args)
        output = weak_ref_tensors(output)
    entry.output = weak_ref_tensors(output)
    return output


# Weak on one path only (vLLM's CUDA-graph wrapper).
def maybe_weak(out, weak_output):
    if weak_output:
        out = weak_ref_tensors(out)
    return weak_ref_tensors(out)


# The variable is rebound to a strong value before the second conversion.
def rebound(x, y):
    w = weak_ref_tensors(x)
    w = y + 1
    return my_weak(w)


# A strong value handed to the weak-ref'ing helper.
def paged_attention_fixed(num_tokens, workspace):
    update_workspaces(num_tokens, workspace)
