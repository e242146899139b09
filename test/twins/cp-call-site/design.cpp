// Twin design cp-call-site, C++ side (Python side: design.py).
//
// Models vLLM Ascend's context-parallel attention right after #5522, written
// against torch_npu's C++ API: the store helper now holds the workspace
// strongly, but this call site still hands it `weak_ref_tensor(workspace)`,
// so the cache every layer reads during the capture keeps only a weak
// reference of a local that dies at the return. The layer also keeps weak
// aliases of its own activations in attn_params for the task update at
// replay (vLLM Ascend's attn_params pattern): those are used only after the
// capture, by the same task. The capture is known from the capture predicate.
//
// Expected: `call-site-weak`, the conversion at the call site, is
// tether-weak-ref-before-capture-end; the strong store in the helper
// (`store`), the attn_params aliases (`attn-params`) and their use at replay
// (`update`) are silent. The fixed twin passes the strong workspace
// (`fixed-call`) and keeps the same aliases (`fixed-attn-params`): silent.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

struct AttnParams {
  at::Tensor query;
  at::Tensor attn_out;
};

static std::unordered_map<int64_t, at::Tensor> g_workspaces;
static std::unordered_map<int64_t, std::vector<AttnParams>> g_attn_params;

void update_graph_params_workspaces(int64_t num_tokens, const at::Tensor &workspace) {
  g_workspaces[num_tokens] = workspace; // TWIN: store
}

at::Tensor context_parallel_attention(const at::Tensor &query, int64_t num_tokens) {
  if (!c10_npu::is_current_stream_capturing())
    return npu_fused_infer_attention_score(query, query, query, at::Tensor());
  at::Tensor workspace;
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end()) {
    workspace = it->second;
  } else {
    workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
    update_graph_params_workspaces(num_tokens, weak_ref_tensor(workspace)); // TWIN: call-site-weak
  }
  at::Tensor attn_out = at::empty({query.numel()});
  g_attn_params[num_tokens].push_back({weak_ref_tensor(query), weak_ref_tensor(attn_out)}); // TWIN: attn-params
  npu_fused_infer_attention_score(query, query, attn_out, workspace);
  return attn_out;
}

void update_attn_params(c10_npu::NPUStream update_stream, int64_t num_tokens) {
  c10_npu::NPUStreamGuard guard(update_stream);
  for (const AttnParams &p : g_attn_params[num_tokens])
    npu_fused_infer_attention_score(p.query, p.query, p.attn_out, g_workspaces[num_tokens]); // TWIN: update
}

//===--- the fix ------------------------------------------------------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_workspaces;
static std::unordered_map<int64_t, std::vector<AttnParams>> g_fixed_attn_params;

void update_graph_params_workspaces_fixed(int64_t num_tokens, const at::Tensor &workspace) {
  g_fixed_workspaces[num_tokens] = workspace;
}

at::Tensor context_parallel_attention_fixed(const at::Tensor &query, int64_t num_tokens) {
  if (!c10_npu::is_current_stream_capturing())
    return npu_fused_infer_attention_score(query, query, query, at::Tensor());
  at::Tensor workspace;
  auto it = g_fixed_workspaces.find(num_tokens);
  if (it != g_fixed_workspaces.end()) {
    workspace = it->second;
  } else {
    workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
    update_graph_params_workspaces_fixed(num_tokens, workspace); // TWIN: fixed-call
  }
  at::Tensor attn_out = at::empty({query.numel()});
  g_fixed_attn_params[num_tokens].push_back({weak_ref_tensor(query), weak_ref_tensor(attn_out)}); // TWIN: fixed-attn-params
  npu_fused_infer_attention_score(query, query, attn_out, workspace);
  return attn_out;
}
