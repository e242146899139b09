# Compound statement headers whose text spans lines in the ways CPython
# allows: inside brackets, after a backslash, with comments between the
# colon and the block.
import contextlib


def f(a,
      b=lambda: 1,
      *rest) -> tuple[
          int, int]:  # the signature's comment
    # a comment line before the block
    if (a and
            b):
        return a, b
    elif a == \
            b:  # after a continued condition
        pass
    for x in (
            rest):
        while x and \
                a:
            x -= 1
    with (contextlib.nullcontext() as c,
          contextlib.nullcontext() as d):
        pass
    try:
        pass
    except (ValueError,
            KeyError) as e:  # a comment
        pass
    match a:
        case [
            1, 2]:
            pass
        case {"k": v} if (v >
                          1):
            pass
    return None


class C(
        object):
    # the body's first line is a comment
    x = 1
