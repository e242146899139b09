# twin_compare self-test: the same finding in both languages, on lines
# without a label.
from vllm_ascend.utils import weak_ref_tensors


def twice(x):
    return weak_ref_tensors(weak_ref_tensors(x))


def once(x):
    return weak_ref_tensors(x)  # TWIN: once
