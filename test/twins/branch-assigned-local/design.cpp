// Twin design branch-assigned-local, C++ side (Python side: design.py).
//
// Models a vLLM Ascend attention layer's workspace lookup, written against
// torch_npu's C++ API: the workspace local is declared before an if/else and
// assigned in both branches, from the cache every layer reads when the slot
// is there, else freshly made and handed to a store helper that keeps only a
// weak reference in that cache. The local dies at the layer's return and the
// next layer hands the freed memory to its captured task.
//
// Expected: `store-call`, the call that hands the helper the workspace, is
// tether-weak-ref-before-capture-end (with a note at the helper's `store`).
// The fixed twin's helper stores strongly (`fixed-store`): silent. The store
// is the slot's first fill (looked up first), not a replacement.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void remember_workspace(int64_t num_tokens, const at::Tensor &workspace) {
  g_workspaces[num_tokens] = weak_ref_tensor(workspace); // TWIN: store
}

at::Tensor attention_layer(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace;
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end()) {
    workspace = it->second;
  } else {
    workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
    remember_workspace(num_tokens, workspace); // TWIN: store-call
  }
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture_decode(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer(query, 16);
  graph.capture_end();
  return query;
}

//===--- the fix ------------------------------------------------------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_workspaces;

void remember_workspace_fixed(int64_t num_tokens, const at::Tensor &workspace) {
  g_fixed_workspaces[num_tokens] = workspace; // TWIN: fixed-store
}

at::Tensor attention_layer_fixed(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace;
  auto it = g_fixed_workspaces.find(num_tokens);
  if (it != g_fixed_workspaces.end()) {
    workspace = it->second;
  } else {
    workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
    remember_workspace_fixed(num_tokens, workspace);
  }
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer_fixed(query, 16);
  graph.capture_end();
  return query;
}
