"""Write a package of N modules that call across modules (and in cycles)
and hold findings of every check: input for the -j determinism test."""
import os
import sys

COMMON = '''\
import torch


def weak(t):
    return torch.ops._C_ascend.weak_ref_tensor(t)


WORKSPACES = {}
SLOTS = {s: None for s in range(4)}
'''

MODULE = '''\
import torch
import torch_npu
from gpkg.common import weak, WORKSPACES, SLOTS
from gpkg import mod{prev} as prev


def hop_{i}(t, n):
    if n == 0:
        return weak(t)
    return prev.hop_{prev}(t, n - 1)


def store_{i}(key, value):
    WORKSPACES[key] = weak(value)


class Layer{i}:
    def forward(self, ctx, q, n):
        if not ctx.capturing:
            return q
        ws = WORKSPACES.get(n)
        if ws is None:
            ws = torch_npu._npu_fused_infer_attention_score_get_max_workspace(q)
            store_{i}(n, ws)
        torch_npu.npu_fused_infer_attention_score(q, workspace=ws)
        return q

    def twice(self, x):
        return hop_{i}(hop_{i}(x, 2), 2)

    def slot(self, k):
        return weak(SLOTS[k])

    def replace(self, ctx, q, n):
        if ctx.capturing:
            WORKSPACES[n] = torch.empty(n, dtype=q.dtype)
            torch_npu.npu_fused_infer_attention_score(q, workspace=WORKSPACES[n])
'''


def main():
    root, count = sys.argv[1], int(sys.argv[2])
    pkg = os.path.join(root, "gpkg")
    os.makedirs(pkg, exist_ok=True)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(pkg, "common.py"), "w") as f:
        f.write(COMMON)
    for i in range(count):
        with open(os.path.join(pkg, "mod%d.py" % i), "w") as f:
            f.write(MODULE.format(i=i, prev=(i - 1) % count))


if __name__ == "__main__":
    main()
