# twin_compare self-test: Python converts once only.
from vllm_ascend.utils import weak_ref_tensors


def twice(x):
    return weak_ref_tensors(x)  # TWIN: twice
