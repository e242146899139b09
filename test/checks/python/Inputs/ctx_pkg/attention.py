"""An attention layer; its helper is imported inside the function."""
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


def forward(query, num_tokens):
    from ctx_pkg.params import update_workspace

    workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(query)
    update_workspace(num_tokens, weak_ref_tensors(workspace))
    return query
