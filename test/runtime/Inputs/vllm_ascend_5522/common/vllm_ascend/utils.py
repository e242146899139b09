"""vllm_ascend.utils: the weak-ref helpers, as upstream writes them."""
from typing import Any

import torch
import torch_npu


def weak_ref_tensor(tensor: Any) -> Any:
    if isinstance(tensor, torch.Tensor):
        return torch_npu._C._weak_ref_tensor(tensor)
    return tensor


def weak_ref_tensors(tensors):
    if isinstance(tensors, torch.Tensor):
        return weak_ref_tensor(tensors)
    if isinstance(tensors, list):
        return [weak_ref_tensor(t) for t in tensors]
    if isinstance(tensors, tuple):
        return tuple(weak_ref_tensor(t) for t in tensors)
    raise ValueError("Invalid type for tensors")
