from vllm.utils.torch_utils import weak_ref_tensors


def store_workspace(cache, key, workspace):
    cache[key] = weak_ref_tensors(workspace)
