// Twin design capture-session, C++ side (Python side: design.py).
//
// Issue 12, road 3: a training engine captures every layer's forward graph,
// then every layer's backward graph, in one capture session: the graphs
// share one memory pool. Each layer's runner keeps its forward output for
// its backward graph only as a weak reference, made after the forward
// capture; the output's last strong reference dies when the forward capture
// returns. The pool then hands that memory to later captures' own tensors,
// and the backward graph reads whatever they put there.
//
// Expected: `between`, the weak reference made between two captures of the
// session, is tether-weak-ref-before-capture-end; so is `straight`, the
// same in one function. The fixed twins keep the output strongly until the
// backward graph is captured and weaken it then (`fixed-after-backward`,
// `fixed-straight`): silent. The session calls are this engine's own,
// named in the design's .tether.yaml.
#include "torch_npu_stub.h"

namespace engine {
void graph_session_begin();
void graph_session_end();
} // namespace engine

at::Tensor weak_ref_tensor(const at::Tensor &t);
at::Tensor matmul(const at::Tensor &a, const at::Tensor &b);
at::Tensor relu(const at::Tensor &t);
void backward(const at::Tensor &t);

struct GraphRunner {
  at::Tensor weight;
  c10_npu::NPUGraph fwd_graph, bwd_graph;
  at::Tensor fwd_out;

  void create_fwd_graph(const at::Tensor &x) {
    fwd_graph.capture_begin();
    at::Tensor out = matmul(x, weight);
    fwd_graph.capture_end();
    fwd_out = weak_ref_tensor(out); // TWIN: between
  }
  void create_bwd_graph() {
    bwd_graph.capture_begin();
    backward(fwd_out);
    bwd_graph.capture_end();
  }
};

void create_graphs(GraphRunner &first, GraphRunner &second,
                   const at::Tensor &x) {
  engine::graph_session_begin();
  first.create_fwd_graph(x);
  second.create_fwd_graph(x);
  second.create_bwd_graph();
  first.create_bwd_graph();
  engine::graph_session_end();
}

at::Tensor capture_pair(c10_npu::NPUGraph &g1, c10_npu::NPUGraph &g2,
                        const at::Tensor &w, const at::Tensor &x) {
  engine::graph_session_begin();
  g1.capture_begin();
  at::Tensor out = matmul(x, w);
  g1.capture_end();
  at::Tensor weak = weak_ref_tensor(out); // TWIN: straight
  out = at::Tensor();
  g2.capture_begin();
  at::Tensor grad = relu(weak);
  g2.capture_end();
  engine::graph_session_end();
  return grad;
}

//===--- the fix ------------------------------------------------------------===//
struct FixedRunner {
  at::Tensor weight;
  c10_npu::NPUGraph fwd_graph, bwd_graph;
  at::Tensor fwd_out;

  void create_fwd_graph(const at::Tensor &x) {
    fwd_graph.capture_begin();
    fwd_out = matmul(x, weight);
    fwd_graph.capture_end();
  }
  void create_bwd_graph() {
    bwd_graph.capture_begin();
    backward(fwd_out);
    bwd_graph.capture_end();
    // No later graph of the session reads it any more.
    fwd_out = weak_ref_tensor(fwd_out); // TWIN: fixed-after-backward
  }
};

void create_fixed_graphs(FixedRunner &first, FixedRunner &second,
                         const at::Tensor &x) {
  engine::graph_session_begin();
  first.create_fwd_graph(x);
  second.create_fwd_graph(x);
  second.create_bwd_graph();
  first.create_bwd_graph();
  engine::graph_session_end();
}

at::Tensor capture_pair_fixed(c10_npu::NPUGraph &g1, c10_npu::NPUGraph &g2,
                              const at::Tensor &w, const at::Tensor &x,
                              at::Tensor &weak) {
  engine::graph_session_begin();
  g1.capture_begin();
  at::Tensor out = matmul(x, w);
  g1.capture_end();
  g2.capture_begin();
  at::Tensor grad = relu(out);
  g2.capture_end();
  engine::graph_session_end();
  weak = weak_ref_tensor(out); // TWIN: fixed-straight
  out = at::Tensor();
  return grad;
}
