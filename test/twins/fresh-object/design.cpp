// Twin design fresh-object, C++ side (Python side: design.py).
//
// Models kernel-library code that packs a workspace into a small parameter
// aggregate per call (flashinfer-style wrappers), written against torch_npu's
// C++ API: one global instance shared by every layer has its workspace
// replaced during the capture, while a fresh instance made by each call is
// that call's own and replaces nothing. The fresh object's member and the
// shared one's have the same name: an object made here is a fresh object, not
// the shared slot.
//
// Expected: `replace`, the new workspace assigned to the shared instance, is
// tether-workspace-shared-across-layers. The fixed twin builds a fresh object
// per call (`fixed-fresh`): silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_fused_infer_attention_score;

struct Packed {
  at::Tensor workspace;
};

static Packed g_shared;

at::Tensor attention_layer(const at::Tensor &query, int64_t size) {
  g_shared.workspace = at::empty({size}); // TWIN: replace
  return npu_fused_infer_attention_score(query, query, query, g_shared.workspace);
}

at::Tensor capture_decode(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer(query, 64 * (i + 1));
  graph.capture_end();
  return query;
}

//===--- the fix ------------------------------------------------------------===//
static std::vector<Packed> g_keep_alive;

at::Tensor attention_layer_fixed(const at::Tensor &query, int64_t size) {
  Packed packed{at::empty({size})}; // TWIN: fixed-fresh
  g_keep_alive.push_back(packed);
  return npu_fused_infer_attention_score(query, query, query, packed.workspace);
}

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer_fixed(query, 64 * (i + 1));
  graph.capture_end();
  return query;
}
