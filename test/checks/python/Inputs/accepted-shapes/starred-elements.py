# Where CPython takes a starred expression: displays, tuples with a comma
# (also in parentheses over lines), calls, class bases, subscripts, `for`
# iterables and targets, `return` and `yield` of tuples, parameters. `*`
# applies to a whole operand chain (`*k.shape`, `*a + b`), which the grammar
# reads as `(*k).shape` and `(*a) + b` (met in vLLM Ascend's triton
# kernels and in torch).
def spread(a, b, *rest, **kw):
    first = [*a, *b]
    pair = (*a,)
    both = {*a, *b}
    rows = (
        *a,
        *b,
    )
    head, *tail = a
    n, h, d = *a.shape, b.shape[-1]
    sums = [*a + b, *a.sum(0)[1:] @ b]
    for *init, last in [a, b]:
        print(*init, last, sep="")
    for x in *a, *b:
        yield *a, x
    return *rows, pair, both, head, tail, b[*a], n, h, d, sums


class Joined(*(object,)):
    pass
