# A starred element with a bracketed operand after a comma, in a tuple
# without parentheses: CPython compiles it.
from vllm.utils import weak_ref_tensors


def outputs(a, rest):
    return a, *(rest,)


def more(a, rest):
    pair = a, *[rest]
    return pair, weak_ref_tensors(weak_ref_tensors(a))
