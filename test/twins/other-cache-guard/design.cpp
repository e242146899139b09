// Twin design other-cache-guard, C++ side (Python side: design.py): the
// lookup in one cache guards the fill of another. See design.py.
//
// Expected: `replace` is tether-workspace-shared-across-layers; `fixed-fill`
// is silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

static std::unordered_map<int64_t, at::Tensor> g_draft_workspaces;
static std::unordered_map<int64_t, at::Tensor> g_workspaces;

at::Tensor attention(const at::Tensor &query, int64_t num_tokens) {
  if (g_draft_workspaces.find(num_tokens) == g_draft_workspaces.end())
    g_workspaces[num_tokens] = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)}); // TWIN: replace
  return npu_fused_infer_attention_score(query, query, query, g_workspaces[num_tokens]);
}

at::Tensor attention_fixed(const at::Tensor &query, int64_t num_tokens) {
  if (g_workspaces.find(num_tokens) == g_workspaces.end())
    g_workspaces[num_tokens] = at::empty({npu_fused_infer_attention_score_get_max_workspace(query)}); // TWIN: fixed-fill
  return npu_fused_infer_attention_score(query, query, query, g_workspaces[num_tokens]);
}

at::Tensor capture(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i) {
    query = attention(query, 16);
    query = attention_fixed(query, 16);
  }
  graph.capture_end();
  return query;
}
