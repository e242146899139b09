# Statements over several lines that CPython accepts: inside brackets (with
# comments), after a backslash, in triple-quoted strings and an f-string's
# replacement field, a decorator with bracketed arguments.
import functools
from os import (
    path,  # the module
    sep,
)

total = (1 +
         2)
step = 1 + \
    2
doc = """first
second"""
shown = f"""{
    total}"""
pairs = {k: v
         for k, v in [(1, 2)]}
assert total, (
    "message")


@functools.lru_cache(
    maxsize=None)
def joined(a):
    global step
    return path.join(a, sep) + doc + shown + str(pairs)
