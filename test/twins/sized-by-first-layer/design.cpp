// Twin design sized-by-first-layer, C++ side (Python side: design.py).
//
// Models a workspace cache keyed by the token count only, as vLLM Ascend's
// graph params are, in a model whose layers have different head counts
// (sliding-window and full-attention layers, or a draft model's layers),
// written against torch_npu's C++ API: the first layer to run sizes the
// workspace from its own head count and caches it; the other layers reuse it
// without checking that it is big enough.
//
// Expected: `fill`, the first fill of the cache, is
// tether-workspace-shared-across-layers (sized for the first caller and
// reused without a size check). The fixed twin (`fixed-fill`) checks the
// cached workspace's size before every use: silent.
#include "torch_npu_stub.h"

#include <stdexcept>

using at_npu::native::npu_fused_infer_attention_score;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

struct Attention {
  Attention(int64_t num_heads, int64_t head_size)
      : num_heads(num_heads), head_size(head_size) {}

  at::Tensor forward(const at::Tensor &query, int64_t num_tokens) {
    at::Tensor workspace;
    auto it = g_workspaces.find(num_tokens);
    if (it != g_workspaces.end()) {
      workspace = it->second;
    } else {
      workspace = at::empty({num_tokens * num_heads * head_size});
      g_workspaces[num_tokens] = workspace; // TWIN: fill
    }
    return npu_fused_infer_attention_score(query, query, query, workspace);
  }

  int64_t num_heads;
  int64_t head_size;
};

at::Tensor capture_decode(c10_npu::NPUGraph &graph, std::vector<Attention> &layers,
                          at::Tensor query) {
  graph.capture_begin();
  for (Attention &layer : layers)
    query = layer.forward(query, 16);
  graph.capture_end();
  return query;
}

std::vector<Attention> build_model() { return {Attention(32, 128), Attention(8, 128)}; }

//===--- the fix ------------------------------------------------------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_workspaces;

struct AttentionFixed {
  AttentionFixed(int64_t num_heads, int64_t head_size)
      : num_heads(num_heads), head_size(head_size) {}

  at::Tensor forward(const at::Tensor &query, int64_t num_tokens) {
    int64_t need = num_tokens * num_heads * head_size;
    at::Tensor workspace;
    auto it = g_fixed_workspaces.find(num_tokens);
    if (it != g_fixed_workspaces.end()) {
      workspace = it->second;
    } else {
      workspace = at::empty({need});
      g_fixed_workspaces[num_tokens] = workspace; // TWIN: fixed-fill
    }
    if (workspace.numel() < need)
      throw std::runtime_error("cached workspace too small for this layer");
    return npu_fused_infer_attention_score(query, query, query, workspace);
  }

  int64_t num_heads;
  int64_t head_size;
};

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, std::vector<AttentionFixed> &layers,
                                at::Tensor query) {
  graph.capture_begin();
  for (AttentionFixed &layer : layers)
    query = layer.forward(query, 16);
  graph.capture_end();
  return query;
}

std::vector<AttentionFixed> build_model_fixed() {
  return {AttentionFixed(32, 128), AttentionFixed(8, 128)};
}
