// Twin design replaced-slot, C++ side (Python side: design.py).
//
// Models a "keep the larger workspace" cache shared by every MLA layer (vLLM
// Ascend's MLA workspace helper), written against torch_npu's C++ API: a
// layer that needs more than the cached workspace replaces it during the
// capture, dropping the workspace that the earlier layers' captured tasks
// still point at.
//
// Expected: `replace`, the replacement of the shared slot, is
// tether-workspace-shared-across-layers. The fixed twin fills the slot only
// while it is empty, with the largest workspace any layer can need (a
// constant of the model's configuration, `fixed-fill`): silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

static at::Tensor g_workspace;

const at::Tensor &get_workspace(int64_t size) {
  if (!g_workspace.defined() || g_workspace.numel() < size)
    g_workspace = at::empty({size}); // TWIN: replace
  return g_workspace;
}

void mla_layer(const at::Tensor &query, int64_t size) {
  npu_paged_attention(query, get_workspace(size));
}

void capture_decode(c10_npu::NPUGraph &graph, const at::Tensor &query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    mla_layer(query, 64 * (i + 1));
  graph.capture_end();
}

//===--- the fix ------------------------------------------------------------===//
// The largest workspace any layer of the model needs, from its configuration.
constexpr int64_t kMaxWorkspaceBytes = int64_t(64) << 20;
static at::Tensor g_fixed_workspace;

const at::Tensor &get_workspace_fixed() {
  if (!g_fixed_workspace.defined())
    g_fixed_workspace = at::empty({kMaxWorkspaceBytes}); // TWIN: fixed-fill
  return g_fixed_workspace;
}

void mla_layer_fixed(const at::Tensor &query) {
  npu_paged_attention(query, get_workspace_fixed());
}

void capture_decode_fixed(c10_npu::NPUGraph &graph, const at::Tensor &query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    mla_layer_fixed(query);
  graph.capture_end();
}
