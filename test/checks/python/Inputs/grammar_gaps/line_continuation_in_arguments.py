# A backslash continuation inside a call's arguments, after a keyword
# argument (sympy's tests write them): the continuation is no argument, and
# CPython compiles it.
from vllm.utils import weak_ref_tensors


def pretty(expr, xpretty):
    return xpretty(expr, use_unicode=False, wrap_line=False,\
        root_notation=False)


def twice(a):
    return weak_ref_tensors(weak_ref_tensors(a), \
        )
