// The attention layer, in its own translation unit: its workspace cache is
// shared by every layer and keeps only a weak reference. Nothing here
// captures; capture.cpp runs the layers inside a capture.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void update_workspace(int64_t num_tokens, const at::Tensor &workspace) {
  g_workspaces[num_tokens] = weak_ref_tensor(workspace);
}

at::Tensor attention_layer(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end())
    return npu_fused_infer_attention_score(query, query, query, it->second);
  at::Tensor workspace =
      at::empty({npu_fused_infer_attention_score_get_max_workspace(query)});
  update_workspace(num_tokens, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}

// Called only outside any capture: silent however it is linked.
at::Tensor warmup_layer(const at::Tensor &query) {
  at::Tensor workspace = at::empty({16});
  update_workspace(0, workspace);
  return npu_fused_infer_attention_score(query, query, query, workspace);
}
