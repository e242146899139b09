# `with A if c else B as t:` is `with (A if c else B) as t:` to CPython,
# while tree-sitter nests `B as t` in the conditional: the file is analysed
# and t is bound to what the chosen manager's __enter__ returns.
import torch
from vllm.utils import weak_ref_tensors


class WeakView:
    def __init__(self, size):
        self.buf = torch.empty(size)

    def __enter__(self):
        return weak_ref_tensors(self.buf)

    def __exit__(self, *exc):
        return False


def view(small, size):
    with WeakView(size) if small else WeakView(2 * size) as alias:
        return weak_ref_tensors(alias)
