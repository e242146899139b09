# Format specs that start with '=' (fill '=' or alignment '='): CPython reads
# f'{x:=^10}' as x with the spec '=^10', not as an assignment expression.
from vllm.utils import weak_ref_tensors


def banner(x):
    return f'{x:=^10}', weak_ref_tensors(weak_ref_tensors(x))


def table(x, width):
    header = f"{'name':=<{width}}|{x!r:=>8}"
    return header, weak_ref_tensors(weak_ref_tensors(x))
