"""vllm_ascend.utils without torch: a weak-ref helper by its catalog name."""


def weak_ref_tensors(tensors):
    return tensors
