// Twin design capture-helper, C++ side (Python side: design.py).
//
// A capture opened and closed by helper methods of the program's own class
// (`capture_begin()` in `begin()`, `capture_end()` in `end()`; the Python
// side also enters it through `__enter__`/`__exit__`). The layers run
// between the two calls, so they run inside the capture; the first layer
// keeps only a weak reference of the workspace it made in a shared cache,
// which later layers read.
//
// Expected: `weak-store` is tether-weak-ref-before-capture-end, reached
// through the helpers. The fixed twin keeps the workspace itself
// (`kept-store`): silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

// vLLM's C++ weak-ref op (a catalog primitive).
at::Tensor weak_ref_tensor(const at::Tensor &t);

struct Capture {
  c10_npu::NPUGraph &graph;
  explicit Capture(c10_npu::NPUGraph &g) : graph(g) {}
  void begin() { graph.capture_begin(); }
  void end() { graph.capture_end(); }
};

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void attention_layer(const at::Tensor &query, int64_t n) {
  at::Tensor ws;
  auto it = g_workspaces.find(n);
  if (it == g_workspaces.end()) {
    ws = at::empty({n});
    g_workspaces[n] = weak_ref_tensor(ws); // TWIN: weak-store
  } else {
    ws = it->second;
  }
  npu_paged_attention(query, ws);
}

void run(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t n) {
  Capture cap(graph);
  cap.begin();
  attention_layer(query, n);
  attention_layer(query, n);
  cap.end();
}

// --- the fix ----------------------------------------------------------------
constexpr int64_t kMaxWorkspace = 1 << 20; // the largest any layer needs
static std::unordered_map<int64_t, at::Tensor> g_kept_workspaces;

void attention_layer_fixed(const at::Tensor &query, int64_t n) {
  at::Tensor ws;
  auto it = g_kept_workspaces.find(n);
  if (it == g_kept_workspaces.end()) {
    ws = at::empty({kMaxWorkspace});
    g_kept_workspaces[n] = ws; // TWIN: kept-store
  } else {
    ws = it->second;
  }
  npu_paged_attention(query, ws);
}

void run_fixed(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t n) {
  Capture cap(graph);
  cap.begin();
  attention_layer_fixed(query, n);
  attention_layer_fixed(query, n);
  cap.end();
}
