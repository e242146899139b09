// Twin design out-of-pool, C++ side (Python side: design.py): a static input
// allocated before the capture, owned by a local, read by the captured task
// of a graph the caller keeps. See design.py.
//
// Expected: `read`, `read-view` (a view of the input), `read-begin-end`,
// `weak-output` (an output allocated before the capture, kept only as a weak
// reference after it) and `copy-output` (the same output written by an
// in-place copy) are tether-graph-memory-dies-before-replay; `fixed-read`,
// `fixed-read-view` and `pool-read` are silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

// vLLM's C++ weak-ref op (a catalog primitive).
at::Tensor weak_ref_tensor(const at::Tensor &t);

struct Runner {
  std::unordered_map<int64_t, c10_npu::NPUGraph *> graphs;
  std::unordered_map<int64_t, at::Tensor> inputs;

  void capture(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor static_input = at::empty({num_tokens});
    graph.capture_begin();
    npu_paged_attention(query, static_input); // TWIN: read
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  // The same capture as Python's graph.capture_begin()/capture_end() form.
  void capture_begin_end(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor static_input = at::empty({num_tokens});
    graph.capture_begin();
    npu_paged_attention(query, static_input); // TWIN: read-begin-end
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  void capture_fixed(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor static_input = at::empty({num_tokens});
    inputs[num_tokens] = static_input;
    graph.capture_begin();
    npu_paged_attention(query, static_input); // TWIN: fixed-read
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  void capture_weak_output(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor output = at::empty({num_tokens});
    graph.capture_begin();
    npu_paged_attention(query, output); // TWIN: weak-output
    graph.capture_end();
    graphs[num_tokens] = &graph;
    inputs[num_tokens] = weak_ref_tensor(output);
  }

  // An output buffer written in place by the captured copy: the same read.
  void capture_copy_output(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor output = at::empty({num_tokens});
    graph.capture_begin();
    at::Tensor result = at::empty({num_tokens});
    npu_paged_attention(query, result);
    output.copy_(result); // TWIN: copy-output
    graph.capture_end();
    graphs[num_tokens] = &graph;
    inputs[num_tokens] = weak_ref_tensor(output);
  }

  // A view of the static input (Python: a slice and `view`, `narrow`).
  void capture_view(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor static_input = at::empty({2 * num_tokens});
    at::Tensor view = static_input.slice(0, 0, num_tokens).view({-1});
    graph.capture_begin();
    npu_paged_attention(query, view); // TWIN: read-view
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  void capture_view_kept(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    at::Tensor static_input = at::empty({2 * num_tokens});
    inputs[num_tokens] = static_input;
    at::Tensor view = static_input.narrow(0, 0, num_tokens);
    graph.capture_begin();
    npu_paged_attention(query, view); // TWIN: fixed-read-view
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  void capture_pool(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t num_tokens) {
    graph.capture_begin();
    at::Tensor scratch = at::empty({num_tokens});
    npu_paged_attention(query, scratch); // TWIN: pool-read
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }
};
