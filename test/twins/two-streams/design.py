# Twin design two-streams, Python side (C++ side: design.cpp).
#
# Models a decoder layer that overlaps work on a side stream inside one
# captured graph (vLLM Ascend's multistream shared experts / MLA prefetch,
# SGLang's two-batch overlap): attention runs on the main stream and the
# shared expert on a side stream, and both take the same scratch workspace
# from the cache shared by all layers, filled before the capture. Nothing
# orders the two streams, so the captured kernels may run at the same time on
# one buffer.
#
# Expected: `side-use`, the use on the side stream, is
# tether-workspace-shared-across-layers (used on different streams inside the
# capture without ordering); the main stream's use `main-use` carries no
# finding of its own. The fixed twin makes the side stream wait for the main
# one before its use and the main stream wait for the side one after it
# (`fixed-main-use`, `fixed-side-use`): silent.
import torch
import torch_npu

_workspaces = {}


def get_workspace(num_tokens):
    return _workspaces[num_tokens]


def decoder_layer(query, num_tokens, side_stream):
    hidden = torch_npu.npu_fused_infer_attention_score(query, workspace=get_workspace(num_tokens))  # TWIN: main-use
    with torch.npu.stream(side_stream):
        shared = torch_npu.npu_grouped_matmul(query, workspace=get_workspace(num_tokens))  # TWIN: side-use
    return hidden + shared


def reserve_workspaces(sizes, nbytes):
    for num_tokens in sizes:
        _workspaces[num_tokens] = torch.empty(nbytes, dtype=torch.uint8)


def capture_decode(graph, query, num_layers, side_stream):
    reserve_workspaces([16], 1 << 20)
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = decoder_layer(query, 16, side_stream)
    return query


# --- the fix -----------------------------------------------------------------
_fixed_workspaces = {}


def get_workspace_fixed(num_tokens):
    return _fixed_workspaces[num_tokens]


def decoder_layer_fixed(query, num_tokens, side_stream):
    main_stream = torch.npu.current_stream()
    hidden = torch_npu.npu_fused_infer_attention_score(query, workspace=get_workspace_fixed(num_tokens))  # TWIN: fixed-main-use
    side_stream.wait_stream(main_stream)
    with torch.npu.stream(side_stream):
        shared = torch_npu.npu_grouped_matmul(query, workspace=get_workspace_fixed(num_tokens))  # TWIN: fixed-side-use
    main_stream.wait_stream(side_stream)
    return hidden + shared


def reserve_workspaces_fixed(sizes, nbytes):
    for num_tokens in sizes:
        _fixed_workspaces[num_tokens] = torch.empty(nbytes, dtype=torch.uint8)


def capture_decode_fixed(graph, query, num_layers, side_stream):
    reserve_workspaces_fixed([16], 1 << 20)
    with torch.npu.graph(graph):
        for _ in range(num_layers):
            query = decoder_layer_fixed(query, 16, side_stream)
    return query
