// Twin design runner-list-reversed, C++ side (Python side: design.py): the
// session function captures the backward graphs over a reversed copy of the
// runners (`std::vector<GraphRunner *> order(runners.rbegin(),
// runners.rend())`). See design.py.
//
// Expected: `between` is tether-weak-ref-before-capture-end; `fixed-strong`
// is silent. The session calls are this engine's own, named in the design's
// .tether.yaml.
#include "torch_npu_stub.h"

namespace engine {
void graph_session_begin();
void graph_session_end();
} // namespace engine

at::Tensor weak_ref_tensor(const at::Tensor &t);
at::Tensor matmul(const at::Tensor &a, const at::Tensor &b);
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

void create_graphs(const std::vector<GraphRunner *> &runners,
                   const at::Tensor &x) {
  engine::graph_session_begin();
  for (GraphRunner *runner : runners)
    runner->create_fwd_graph(x);
  std::vector<GraphRunner *> order(runners.rbegin(), runners.rend());
  for (GraphRunner *runner : order)
    runner->create_bwd_graph();
  engine::graph_session_end();
}

struct StrongRunner {
  at::Tensor weight;
  c10_npu::NPUGraph fwd_graph, bwd_graph;
  at::Tensor fwd_out;

  void create_fwd_graph(const at::Tensor &x) {
    fwd_graph.capture_begin();
    at::Tensor out = matmul(x, weight);
    fwd_graph.capture_end();
    fwd_out = out; // TWIN: fixed-strong
  }
  void create_bwd_graph() {
    bwd_graph.capture_begin();
    backward(fwd_out);
    bwd_graph.capture_end();
  }
};

void create_graphs_strong(const std::vector<StrongRunner *> &runners,
                          const at::Tensor &x) {
  engine::graph_session_begin();
  for (StrongRunner *runner : runners)
    runner->create_fwd_graph(x);
  std::vector<StrongRunner *> order(runners.rbegin(), runners.rend());
  for (StrongRunner *runner : order)
    runner->create_bwd_graph();
  engine::graph_session_end();
}
