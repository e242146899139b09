// Twin design temporary-object, C++ side (Python side: design.py): the
// per-batch derived buffers are members a helper object's constructor
// allocates; the object is a local of the capture function, whose graph is
// kept. See design.py.
//
// Expected: `temp` and `temp-helper` are tether-graph-memory-dies-before-replay;
// `fixed-keep`, `fixed-entry` and `pool` are silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

struct Seqlen {
  at::Tensor input_lengths;
  at::Tensor cu_seqlen_q;
  int64_t max_q = 1;
  explicit Seqlen(const at::Tensor &lengths)
      : input_lengths(lengths), cu_seqlen_q(at::zeros({lengths.numel() + 1})) {}
};

static void attention(const at::Tensor &query, const Seqlen &seqlen) {
  npu_paged_attention(query, seqlen.cu_seqlen_q);
}

struct GraphEntry {
  c10_npu::NPUGraph *graph;
  Seqlen seqlen;
};

struct Runner {
  std::unordered_map<int64_t, c10_npu::NPUGraph *> graphs;
  std::unordered_map<int64_t, Seqlen> seqlens;
  std::unordered_map<int64_t, GraphEntry> entries;

  void capture(c10_npu::NPUGraph &graph, const at::Tensor &query,
               const at::Tensor &input_lengths, int64_t bs) {
    Seqlen seqlen(input_lengths);
    graph.capture_begin();
    npu_paged_attention(query, seqlen.cu_seqlen_q); // TWIN: temp
    graph.capture_end();
    graphs[bs] = &graph;
  }

  void capture_helper(c10_npu::NPUGraph &graph, const at::Tensor &query,
                            const at::Tensor &input_lengths, int64_t bs) {
    Seqlen seqlen(input_lengths);
    graph.capture_begin();
    attention(query, seqlen); // TWIN: temp-helper
    graph.capture_end();
    graphs[bs] = &graph;
  }

  void capture_keep(c10_npu::NPUGraph &graph, const at::Tensor &query,
                          const at::Tensor &input_lengths, int64_t bs) {
    Seqlen seqlen(input_lengths);
    seqlens.emplace(bs, seqlen);
    graph.capture_begin();
    npu_paged_attention(query, seqlen.cu_seqlen_q); // TWIN: fixed-keep
    graph.capture_end();
    graphs[bs] = &graph;
  }

  void capture_entry(c10_npu::NPUGraph &graph, const at::Tensor &query,
                           const at::Tensor &input_lengths, int64_t bs) {
    Seqlen seqlen(input_lengths);
    graph.capture_begin();
    attention(query, seqlen); // TWIN: fixed-entry
    graph.capture_end();
    entries.emplace(bs, GraphEntry{&graph, seqlen});
  }

  void capture_pool(c10_npu::NPUGraph &graph, const at::Tensor &query,
                          const at::Tensor &input_lengths, int64_t bs) {
    graph.capture_begin();
    Seqlen seqlen(input_lengths);
    npu_paged_attention(query, seqlen.cu_seqlen_q); // TWIN: pool
    graph.capture_end();
    graphs[bs] = &graph;
  }
};
