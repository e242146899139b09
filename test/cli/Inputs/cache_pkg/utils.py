import torch


def weak(t):
    return torch.ops._C.weak_ref_tensor(t)
