// Twin design two-caches, C++ side (Python side: design.py).
//
// Models vLLM Ascend's attention layers before #5522, written against
// torch_npu's C++ API: the layer's graph params are one of two global caches
// (`draft ? g_draft_graph_params : g_graph_params`), a slot of it is read and
// handed to the captured task, and on a miss the workspace made here is
// stored by update_graph_params_workspaces, which keeps only a weak reference
// in the main model's cache. The value read may come from either cache, so
// the read of the main cache by the next layer must not be lost where the two
// paths join.
//
// Expected: `store-call` (the call that hands the helper the workspace, with a
// note at its `store`) is tether-weak-ref-before-capture-end (the draft model's
// strong store `draft-store` is silent). The fixed twin's helper stores
// strongly (`fixed-store`): silent. The stores are first fills (looked up
// first), not replacements.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

struct GraphParams {
  std::unordered_map<int64_t, at::Tensor> workspaces;
};

static GraphParams g_graph_params;
static GraphParams g_draft_graph_params;

void update_graph_params_workspaces(int64_t num_tokens, const at::Tensor &workspace) {
  g_graph_params.workspaces[num_tokens] = weak_ref_tensor(workspace); // TWIN: store
}

void update_draft_graph_params_workspaces(int64_t num_tokens, const at::Tensor &workspace) {
  g_draft_graph_params.workspaces[num_tokens] = workspace; // TWIN: draft-store
}

at::Tensor attention_layer(const at::Tensor &query, int64_t num_tokens, bool draft) {
  GraphParams &graph_params = draft ? g_draft_graph_params : g_graph_params;
  auto it = graph_params.workspaces.find(num_tokens);
  if (it != graph_params.workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
  if (draft)
    update_draft_graph_params_workspaces(num_tokens, workspace);
  else
    update_graph_params_workspaces(num_tokens, workspace); // TWIN: store-call
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture_decode(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers,
                          bool draft) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer(query, 16, draft);
  graph.capture_end();
  return query;
}

//===--- the fix ------------------------------------------------------------===//
static GraphParams g_fixed_graph_params;
static GraphParams g_fixed_draft_graph_params;

void update_graph_params_workspaces_fixed(int64_t num_tokens, const at::Tensor &workspace) {
  g_fixed_graph_params.workspaces[num_tokens] = workspace; // TWIN: fixed-store
}

void update_draft_graph_params_workspaces_fixed(int64_t num_tokens,
                                                const at::Tensor &workspace) {
  g_fixed_draft_graph_params.workspaces[num_tokens] = workspace;
}

at::Tensor attention_layer_fixed(const at::Tensor &query, int64_t num_tokens, bool draft) {
  GraphParams &graph_params = draft ? g_fixed_draft_graph_params : g_fixed_graph_params;
  auto it = graph_params.workspaces.find(num_tokens);
  if (it != graph_params.workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
  if (draft)
    update_draft_graph_params_workspaces_fixed(num_tokens, workspace);
  else
    update_graph_params_workspaces_fixed(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers,
                                bool draft) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer_fixed(query, 16, draft);
  graph.capture_end();
  return query;
}
