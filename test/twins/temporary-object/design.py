# Twin design temporary-object, Python side (C++ side: design.cpp).
#
# Issue 12, road 2, as serving code writes it: the per-batch derived
# buffers (cumulative sequence lengths) are made by the constructor of a
# small helper object built before the capture (TGI's `Seqlen`); the
# captured attention reads the object's buffer, the graph is kept, and the
# object is a local: when the capture function returns, the object and the
# buffers only it held are freed while the graph still points at them.
#
# Expected: `temp`, the captured read of the local object's buffer, and
# `temp-helper`, the same read inside a helper the capture calls, are
# tether-graph-memory-dies-before-replay. The fixes keep the object beside
# the graph, in a map of its own (`fixed-keep`) or in the entry that holds
# the graph (`fixed-entry`, TGI's fix); an object built inside the capture
# allocates from the graph's pool (`pool`): all silent.
import torch
import torch_npu


class Seqlen:
    def __init__(self, input_lengths):
        self.input_lengths = input_lengths
        self.cu_seqlen_q = torch.zeros(input_lengths.shape[0] + 1, dtype=torch.int32)
        self.max_q = 1


def attention(query, seqlen):
    return torch_npu._npu_paged_attention(query, seqlen.cu_seqlen_q)


class Runner:
    def __init__(self):
        self.graphs = {}
        self.seqlens = {}

    def capture(self, graph, query, input_lengths, bs):
        seqlen = Seqlen(input_lengths)
        with torch.npu.graph(graph):
            out = torch_npu._npu_paged_attention(query, seqlen.cu_seqlen_q)  # TWIN: temp
        self.graphs[bs] = graph
        return out

    def capture_helper(self, graph, query, input_lengths, bs):
        seqlen = Seqlen(input_lengths)
        with torch.npu.graph(graph):
            out = attention(query, seqlen)  # TWIN: temp-helper
        self.graphs[bs] = graph
        return out

    def capture_keep(self, graph, query, input_lengths, bs):
        seqlen = Seqlen(input_lengths)
        self.seqlens[bs] = seqlen
        with torch.npu.graph(graph):
            out = torch_npu._npu_paged_attention(query, seqlen.cu_seqlen_q)  # TWIN: fixed-keep
        self.graphs[bs] = graph
        return out

    def capture_entry(self, graph, query, input_lengths, bs):
        seqlen = Seqlen(input_lengths)
        with torch.npu.graph(graph):
            out = attention(query, seqlen)  # TWIN: fixed-entry
        self.graphs[bs] = {"graph": graph, "seqlen": seqlen, "output": out}
        return out

    def capture_pool(self, graph, query, input_lengths, bs):
        with torch.npu.graph(graph):
            seqlen = Seqlen(input_lengths)
            out = torch_npu._npu_paged_attention(query, seqlen.cu_seqlen_q)  # TWIN: pool
        self.graphs[bs] = graph
        return out
