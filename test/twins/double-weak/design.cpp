// Twin design double-weak, C++ side (Python side: design.py).
//
// Models vLLM Ascend's paged-attention path before #5522, written against
// torch_npu's C++ API: the call site hands `weak_ref_tensor(workspace)` to
// update_graph_params_workspaces, which weak-refs its parameter again before
// storing it.
//
// Expected: `call`, the helper's call with an argument that is already a weak
// reference, is tether-double-weak-ref; the helper's own conversion
// (`helper-weak`) and the argument's conversion are not separate findings.
// The fixed twin passes the strong workspace (`fixed-call`): silent.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void update_graph_params_workspaces(int64_t num_tokens, const at::Tensor &workspace) {
  g_workspaces[num_tokens] = weak_ref_tensor(workspace); // TWIN: helper-weak
}

void paged_attention(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace = at::empty({query.numel()});
  update_graph_params_workspaces(num_tokens, weak_ref_tensor(workspace)); // TWIN: call
  npu_paged_attention(query, workspace);
}

//===--- the fix ------------------------------------------------------------===//
void paged_attention_fixed(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace = at::empty({query.numel()});
  update_graph_params_workspaces(num_tokens, workspace); // TWIN: fixed-call
  npu_paged_attention(query, workspace);
}
