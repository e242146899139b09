import torch_npu


def weak_ref_tensors(t):
    return torch_npu._C._weak_ref_tensor(t)
