# A comment-only line at column 0 between a decorator and its definition,
# in a class body and in a function body: CPython compiles both.
import functools

from vllm.utils import weak_ref_tensors


class Runner:
    @functools.lru_cache
# disabled: @torch.compile
    def run(self, x):
        return weak_ref_tensors(weak_ref_tensors(x))


def build():
    @functools.wraps(build)
# a note at column 0
    def inner(x):
        return weak_ref_tensors(weak_ref_tensors(x))
    return inner
