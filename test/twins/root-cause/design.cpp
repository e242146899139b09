// Twin design root-cause, C++ side (Python side: design.py).
//
// Issue 12, one finding per root cause: a store helper keeps only a weak
// reference of the workspace it is handed, and both attention paths (decode
// and prefill) hand it their local workspace, which dies at their return
// while later layers' captured tasks read it. The helper is the bug, once
// (`store`, with a note per call path; the calls themselves are not
// reported). A second helper is right for one caller, which keeps the
// workspace alive beside the cache, and wrong for the other: those are
// separate bugs, reported at the call that hands it dying memory
// (`dying-call`), silent at the other and at the helper (`alive-store`).
// A store replacing a shared workspace slot, reached from several layers,
// is one tether-workspace-shared-across-layers finding (`replace`).
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void update_workspaces(int64_t num_tokens, const at::Tensor &workspace) {
  g_workspaces[num_tokens] = weak_ref_tensor(workspace); // TWIN: store
}

at::Tensor decode_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({num_tokens});
  update_workspaces(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor prefill_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({num_tokens});
  update_workspaces(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i) {
    query = decode_layer(query, 16);
    query = prefill_layer(query, 32);
  }
  graph.capture_end();
  return query;
}

//===--- a helper right for one caller --------------------------------------===//
static std::unordered_map<int64_t, at::Tensor> g_aliases;
static std::vector<at::Tensor> g_owners;

void keep_alias(int64_t num_tokens, const at::Tensor &workspace) {
  g_aliases[num_tokens] = weak_ref_tensor(workspace); // TWIN: alive-store
}

at::Tensor owning_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_aliases.find(num_tokens);
  if (it != g_aliases.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({num_tokens});
  g_owners.push_back(workspace);
  keep_alias(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor careless_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_aliases.find(num_tokens);
  if (it != g_aliases.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({num_tokens});
  keep_alias(num_tokens, workspace); // TWIN: dying-call
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture_mixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i) {
    query = owning_layer(query, 16);
    query = careless_layer(query, 32);
  }
  graph.capture_end();
  return query;
}

//===--- a replaced slot reached from three layers ---------------------------===//
// One store replaces the shared slot (`replace`), reached from three layers:
// one finding, with a note per further call path.
static std::unordered_map<int64_t, at::Tensor> g_fia_workspaces;

void set_workspace(int64_t num_tokens, const at::Tensor &workspace) {
  g_fia_workspaces[num_tokens] = workspace; // TWIN: replace
}

at::Tensor grow_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_fia_workspaces.find(num_tokens);
  if (it != g_fia_workspaces.end() && it->second.numel() >= num_tokens)
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace = at::empty({num_tokens});
  set_workspace(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor fresh_layer(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace = at::empty({num_tokens});
  set_workspace(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

at::Tensor capture_three(c10_npu::NPUGraph &graph, at::Tensor query) {
  graph.capture_begin();
  query = grow_layer(query, 8);
  query = fresh_layer(query, 8);
  query = grow_layer(query, 8);
  query = fresh_layer(query, 16);
  graph.capture_end();
  return query;
}
