# Twin design fresh-object, Python side (C++ side: design.cpp).
#
# Models kernel-library code that packs a workspace into a small parameter
# dataclass per call (flashinfer-style wrappers, `Packed(workspace=...)`): one
# module-level instance shared by every layer has its workspace replaced
# during the capture, while a fresh instance made by each call is that call's
# own and replaces nothing. The fresh object's attribute and the shared one's
# have the same name: an object made here is a fresh object, not the shared
# slot.
#
# Expected: `replace`, the new workspace assigned to the shared instance, is
# tether-workspace-shared-across-layers. The fixed twin builds a fresh object
# per call (`fixed-fresh`): silent.
from dataclasses import dataclass
from typing import Optional

import torch
import torch_npu


@dataclass
class Packed:
    workspace: Optional[torch.Tensor] = None


_shared = Packed()


def attention_layer(query, size):
    _shared.workspace = torch.empty(size, dtype=torch.uint8)  # TWIN: replace
    return torch_npu.npu_fused_infer_attention_score(query, workspace=_shared.workspace)


def capture_decode(graph, query, num_layers):
    with torch.npu.graph(graph):
        for i in range(num_layers):
            query = attention_layer(query, 64 * (i + 1))
    return query


# --- the fix -----------------------------------------------------------------
_keep_alive = []


def attention_layer_fixed(query, size):
    packed = Packed(workspace=torch.empty(size, dtype=torch.uint8))  # TWIN: fixed-fresh
    _keep_alive.append(packed)
    return torch_npu.npu_fused_infer_attention_score(query, workspace=packed.workspace)


def capture_decode_fixed(graph, query, num_layers):
    with torch.npu.graph(graph):
        for i in range(num_layers):
            query = attention_layer_fixed(query, 64 * (i + 1))
    return query
