# Twin design struct-entries, Python side (C++ side: design.cpp).
#
# A workspace cache kept as a list of small records (tokens, workspace)
# rather than a dict, searched by every attention layer during capture; the
# layer reads the record's attribute (the C++ layer a structured binding of
# it). On a miss the first layer makes the workspace and stores only a weak
# reference in the record, so the workspace dies when the layer returns while
# later layers hand the record's alias to their captured tasks.
#
# Expected: `weak-store` is tether-weak-ref-before-capture-end. The fixed
# twin's record holds the workspace itself (`kept-store`): silent.
from dataclasses import dataclass

import torch
import torch_npu
from vllm_ascend.utils import weak_ref_tensors


@dataclass
class WsEntry:
    num_tokens: int
    workspace: torch.Tensor


_entries: list[WsEntry] = []


def attention_layer(query, num_tokens):
    if not torch.npu.is_current_stream_capturing():
        return
    for entry in _entries:
        if entry.num_tokens == num_tokens:
            return torch_npu.npu_paged_attention(query, entry.workspace)
    workspace = torch.empty(num_tokens)
    _entries.append(WsEntry(num_tokens, weak_ref_tensors(workspace)))  # TWIN: weak-store
    torch_npu.npu_paged_attention(query, workspace)


# --- the fix ----------------------------------------------------------------
@dataclass
class KeptWsEntry:
    num_tokens: int
    workspace: torch.Tensor


_kept_entries: list[KeptWsEntry] = []


def attention_layer_fixed(query, num_tokens):
    if not torch.npu.is_current_stream_capturing():
        return
    for entry in _kept_entries:
        if entry.num_tokens == num_tokens:
            return torch_npu.npu_paged_attention(query, entry.workspace)
    workspace = torch.empty(num_tokens)
    _kept_entries.append(KeptWsEntry(num_tokens, workspace))  # TWIN: kept-store
    torch_npu.npu_paged_attention(query, workspace)
