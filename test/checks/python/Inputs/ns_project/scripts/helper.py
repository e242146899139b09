from vllm_ascend.utils import weak_ref_tensors


def stash(slot, t):
    slot["t"] = weak_ref_tensors(t)
