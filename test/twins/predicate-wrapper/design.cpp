// Twin design predicate-wrapper, C++ side (Python side: design.py).
//
// Models an in-tree wrapper of the capture predicate, as kernel libraries
// write it, around a "keep the larger" workspace shared by every layer,
// against torch_npu's C++ API. The layer runs its captured path under
// `if (is_graph_capturing())`, so growing the shared workspace there replaces
// it during the capture. The fix grows it only eagerly: under capture the
// getter throws (the guarded path that throws leaves the capture), so the
// replacement never runs in one, even though the layers run between
// capture_begin and capture_end. Wrappers of predicates are inferred like
// weak-ref helpers are.
//
// Expected: `replace` is tether-workspace-shared-across-layers. The fixed
// twin's replacement (`fixed-replace`), behind the throwing guard, is silent.
#include "torch_npu_stub.h"

#include <stdexcept>

using at_npu::native::npu_fused_infer_attention_score;

static at::Tensor g_workspace;

static bool is_graph_capturing() { return c10_npu::is_current_stream_capturing(); }

const at::Tensor &get_workspace(int64_t size) {
  if (!g_workspace.defined() || g_workspace.numel() < size)
    g_workspace = at::empty({size}); // TWIN: replace
  return g_workspace;
}

at::Tensor attention_layer(const at::Tensor &query, int64_t size) {
  if (is_graph_capturing())
    return npu_fused_infer_attention_score(query, query, query, get_workspace(size));
  return npu_fused_infer_attention_score(query, query, query, at::Tensor());
}

//===--- the fix ------------------------------------------------------------===//
static at::Tensor g_fixed_workspace;

const at::Tensor &get_workspace_fixed(int64_t size) {
  if (!g_fixed_workspace.defined() || g_fixed_workspace.numel() < size) {
    if (is_graph_capturing())
      throw std::runtime_error("reserve the workspace before capturing");
    g_fixed_workspace = at::empty({size}); // TWIN: fixed-replace
  }
  return g_fixed_workspace;
}

at::Tensor attention_layer_fixed(const at::Tensor &query, int64_t size) {
  return npu_fused_infer_attention_score(query, query, query, get_workspace_fixed(size));
}

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  for (int i = 0; i < num_layers; ++i)
    attention_layer_fixed(query, 64 * (i + 1));
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer_fixed(query, 64 * (i + 1));
  graph.capture_end();
  return query;
}
