// Twin design returned-container, C++ side (Python side: design.py): the
// static inputs come from a helper that returns them in a struct by value;
// the capture reads the struct's tensor, the graph is kept and the struct
// is a local. See design.py.
//
// Expected: `read-returned` is tether-graph-memory-dies-before-replay;
// `fixed-read-returned` (the struct kept beside the graph) is silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

struct DummyInputs {
  at::Tensor inputs_embeds;
};

struct ModelState {
  DummyInputs prepare_dummy_inputs(int64_t num_tokens) {
    DummyInputs in;
    in.inputs_embeds = at::zeros({num_tokens, 1024});
    return in;
  }
};

struct GraphManager {
  std::unordered_map<int64_t, c10_npu::NPUGraph *> graphs;
  std::unordered_map<int64_t, DummyInputs> inputs;

  void capture_graph(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens,
                     ModelState &state) {
    DummyInputs in = state.prepare_dummy_inputs(num_tokens);
    graph.capture_begin();
    npu_paged_attention(query, in.inputs_embeds); // TWIN: read-returned
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  void capture_graph_kept(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens,
                          ModelState &state) {
    DummyInputs in = state.prepare_dummy_inputs(num_tokens);
    inputs[num_tokens] = in;
    graph.capture_begin();
    npu_paged_attention(query, in.inputs_embeds); // TWIN: fixed-read-returned
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }
};
