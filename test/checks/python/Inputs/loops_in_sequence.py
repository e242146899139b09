"""Writes a module whose capture-time layer runs N comprehensions (each a
loop) before a weak store of its workspace (../loops-in-sequence.test)."""
import sys

n = int(sys.argv[1])
print("""import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors

_workspaces = {}


def layer(x, query, num_tokens):
    if not torch.npu.is_current_stream_capturing():
        return x""")
for i in range(n):
    print("    y%d = [a for a in x if a > %d]" % (i, i))
print("""    workspace = _workspaces.get(num_tokens)
    if workspace is None:
        workspace = torch.empty(num_tokens)
        _workspaces[num_tokens] = weak_ref_tensors(workspace)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=workspace)""")
