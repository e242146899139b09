// Twin design weakened-slot, C++ side (Python side: design.py).
//
// A shared workspace cache keyed by the token count: the first layer makes
// the workspace and stores it, every layer reads the slot and hands the
// workspace to its op. A helper weakens the cache in place
// (`g_workspaces[n] = weak_ref_tensor(g_workspaces[n])`) to save memory.
// Called between two layers of one capture, it drops the cache's strong
// reference, the only one left once the first layer returned: the pool
// hands the freed blocks to the capture's next allocations while the next
// layer's task still reads them.
//
// Expected: `weaken`, the weak reference the helper makes, is
// tether-weak-ref-before-capture-end. The fixed twin weakens the cache
// after the capture (`fixed-weaken`): silent.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

at::Tensor attention(const at::Tensor &q, int64_t num_tokens) {
  at::Tensor workspace;
  auto it = g_workspaces.find(num_tokens);
  if (it != g_workspaces.end()) {
    workspace = it->second;
  } else {
    workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(q)});
    g_workspaces[num_tokens] = workspace;
  }
  return npu_fused_infer_attention_score(q, q, q, workspace);
}

void weaken(int64_t num_tokens) {
  g_workspaces[num_tokens] = weak_ref_tensor(g_workspaces[num_tokens]); // TWIN: weaken
}

void capture(c10_npu::NPUGraph &graph, const at::Tensor &q, int64_t num_tokens) {
  graph.capture_begin();
  attention(q, num_tokens);
  weaken(num_tokens);
  attention(q, num_tokens);
  graph.capture_end();
}

//===--- the fix ------------------------------------------------------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_workspaces;

at::Tensor attention_fixed(const at::Tensor &q, int64_t num_tokens) {
  at::Tensor workspace;
  auto it = g_fixed_workspaces.find(num_tokens);
  if (it != g_fixed_workspaces.end()) {
    workspace = it->second;
  } else {
    workspace = at::empty({npu_fused_infer_attention_score_get_max_workspace(q)});
    g_fixed_workspaces[num_tokens] = workspace;
  }
  return npu_fused_infer_attention_score(q, q, q, workspace);
}

void weaken_fixed(int64_t num_tokens) {
  g_fixed_workspaces[num_tokens] = weak_ref_tensor(g_fixed_workspaces[num_tokens]); // TWIN: fixed-weaken
}

void capture_fixed(c10_npu::NPUGraph &graph, const at::Tensor &q, int64_t num_tokens) {
  graph.capture_begin();
  attention_fixed(q, num_tokens);
  attention_fixed(q, num_tokens);
  graph.capture_end();
  weaken_fixed(num_tokens);
}
