"""Capture one decode graph per batch size, replay it, compare with eager.

Prints the largest replay error; exit 0 when replays match eager, 3 when
they drift (the #5522 precision anomaly).
"""
import sys

import torch
import torch_npu

from vllm_ascend.attention.attention_v1 import AscendAttention
from vllm_ascend.compilation.acl_graph import capture_graph
from vllm_ascend.graph_params import set_graph_params, update_attn_params

HIDDEN, LAYERS, SIZES = 16, 4, [8, 4]
layers = [AscendAttention(i, HIDDEN) for i in range(LAYERS)]


def model(x):
    for layer in layers:
        x = layer.forward(x)
    return x


set_graph_params(SIZES)
pool = torch.npu.graph_pool_handle()
graphs = {}
for n in SIZES:  # largest first, sharing one pool, as vLLM captures
    static_input = torch_npu.empty((n, HIDDEN))
    static_input.zero_()
    graphs[n] = (static_input,) + capture_graph(model, static_input, pool)

gen = torch.Generator().manual_seed(5522)
update_stream = torch.npu.Stream()
worst = 0.0
for step in range(3):
    for n in SIZES:
        static_input, graph, output = graphs[n]
        x = torch.randn(n, HIDDEN, generator=gen)
        static_input.copy_(x)
        update_attn_params(update_stream, n)
        graph.replay()
        worst = max(worst, (output - model(x)).abs().max().item())
print("replay max abs error: %.4f" % worst)
sys.exit(0 if worst < 1e-5 else 3)
