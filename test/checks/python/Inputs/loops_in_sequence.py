"""Writes a module whose capture-time layer makes a weak alias of its
workspace in a first loop, runs N comprehensions (each a loop), then stores
the alias where the next layers read it (../loops-in-sequence.test)."""
import sys

n = int(sys.argv[1])
print("""import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def layer(x, query, num_tokens):
    if not torch.npu.is_current_stream_capturing():
        return x
    workspace = torch.empty(num_tokens)
    alias = None
    for _ in x:
        alias = weak_ref_tensors(workspace)""")
for i in range(n):
    print("    y = [a for a in x if a > %d]" % i)
print("""    if num_tokens not in _workspaces:
        _workspaces[num_tokens] = alias
    return torch_npu.npu_fused_infer_attention_score(query, workspace=_workspaces[num_tokens])""")
