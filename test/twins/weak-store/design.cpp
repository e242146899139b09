// Twin design weak-store, C++ side (Python side: design.py).
//
// Models vLLM Ascend just before #5522, written against torch_npu's C++ API:
// every attention layer takes the fused-infer-attention workspace for this
// token count from a cache shared by all layers; the first layer makes it
// during capture and stores it through update_graph_params_workspaces, which
// keeps only a weak reference. The layer's local dies at its return and the
// next layer hands the freed memory to its captured task.
//
// Expected: `store-call`, the call that hands the helper the workspace, is
// tether-weak-ref-before-capture-end, with a note at the helper's `store`
// (the helper is right for callers that keep the workspace). The fixed twin (the
// #5522 fix) stores the workspace strongly (`fixed-store`) and weakens the
// cache only after the capture, skipping empty slots (`fixed-weaken`): both
// silent. Both stores are the slot's first fill (the caller looked it up
// first), not a replacement: no tether-workspace-shared-across-layers.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void update_graph_params_workspaces(int64_t num_tokens, const at::Tensor &workspace) {
  g_workspaces[num_tokens] = weak_ref_tensor(workspace); // TWIN: store
}

at::Tensor attention_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
  update_graph_params_workspaces(num_tokens, workspace); // TWIN: store-call
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

void update_graph_params_workspaces_fixed(int64_t num_tokens, const at::Tensor &workspace) {
  g_fixed_workspaces[num_tokens] = workspace; // TWIN: fixed-store
}

at::Tensor attention_layer_fixed(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_fixed_workspaces.find(num_tokens);
  if (it != g_fixed_workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
  update_graph_params_workspaces_fixed(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

void weak_ref_workspaces_fixed() {
  for (auto &[num_tokens, workspace] : g_fixed_workspaces) {
    if (!workspace.defined())
      continue;
    workspace = weak_ref_tensor(workspace); // TWIN: fixed-weaken
  }
}

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer_fixed(query, 16);
  graph.capture_end();
  weak_ref_workspaces_fixed();
  return query;
}
