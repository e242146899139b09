# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from vllm.utils.torch_utils import weak_ref_tensors
from vllm_ascend.utils import weak_ref_tensors as ascend_weak

_WORKSPACES = {}


# Nested conversions.
def nested(x):
    return weak_ref_tensors(weak_ref_tensors(x))


# Through a variable assigned from a weak ref, any primitive spelling.
def through_variable(x):
    w = torch.ops._C_ascend.weak_ref_tensor(x)
    return ascend_weak(w)


# A helper that weak-refs its parameter, called with a weak ref (the
# vLLM Ascend paged-attention history).
def update_workspaces(num_tokens, workspace):
    _WORKSPACES[num_tokens] = weak_ref_tensors(workspace)


def paged_attention(num_tokens, workspace):
    update_workspaces(num_tokens, weak_ref_tensors(workspace))


# A helper that returns a primitive's result is itself a weak-ref function.
def my_weak(t):
    return torch.ops._C.weak_ref_tensor(t)


def through_inferred_helper(x):
    return my_weak(my_weak(x))


# --- Not flagged ---------------------------------------------------------

# Weak on one path only (vLLM's CUDA-graph wrapper).
def maybe_weak(out, weak_output):
    if weak_output:
        out = weak_ref_tensors(out)
    return weak_ref_tensors(out)


# The variable is rebound to a strong value before the second conversion.
def rebound(x, y):
    w = weak_ref_tensors(x)
    w = y + 1
    return weak_ref_tensors(w)


# A strong value handed to the weak-ref'ing helper.
def paged_attention_fixed(num_tokens, workspace):
    update_workspaces(num_tokens, workspace)

# CHECK: double-weak-ref.py:11:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:11:29: note: first weak reference made here
# CHECK: double-weak-ref.py:17:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:16:9: note: first weak reference made here
# CHECK: double-weak-ref.py:27:5: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:27:35: note: first weak reference made here
# CHECK-NEXT: double-weak-ref.py:27:35: note: the weak reference is passed to 'update_workspaces' here
# CHECK-NEXT: double-weak-ref.py:23:31: note: 'update_workspaces' converts its parameter 'workspace' to a weak reference here
# CHECK: double-weak-ref.py:36:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
# CHECK-NEXT: double-weak-ref.py:36:20: note: first weak reference made here
