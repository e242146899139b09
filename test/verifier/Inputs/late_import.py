"""Imports the catalog's helper by name after the hooks are in, then weak-refs
an empty slot (None), as the first draft of the #5522 fix would have."""
from vllm_ascend.utils import weak_ref_tensors

workspaces = {8: None}
print(weak_ref_tensors(workspaces[8]))
