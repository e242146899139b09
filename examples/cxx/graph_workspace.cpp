// A torch_npu-style extension that captures one decode step of N attention
// layers as an ACL graph and replays it. The layers share attention
// workspaces through caches, as vLLM Ascend's attention backend does. It has
// three workspace-lifetime bugs, one of each kind tether looks for:
//
//  * paged_attention() caches the workspace it allocated as a weak reference
//    while the capture is running; the local that owned it dies at the end of
//    the call, and the next layer's task is captured with the freed block
//    (tether-weak-ref-before-capture-end);
//  * fused_attention() keeps "the larger workspace": a later layer that needs
//    more replaces the shared tensor mid-capture, and the tasks of the earlier
//    layers still point at the old one (tether-workspace-shared-across-layers);
//  * DecodeGraph::capture() hands weak references of the replay parameters to
//    the updater, including the slots reserve() left undefined
//    (tether-weak-ref-of-maybe-null).
//
// torch_npu's headers are not needed to read it: the few NPU and ACL
// declarations it uses are declared below, as in torch_npu.
#include <ATen/ATen.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

// --- torch_npu / CANN declarations this file uses ---------------------------
namespace c10_npu {
struct NPUGraph {
  void capture_begin();
  void capture_end();
  void replay();
  void reset();
};
} // namespace c10_npu

namespace at_npu::native {
at::Tensor npu_fused_infer_attention_score(const at::Tensor &query,
                                           const at::Tensor &key,
                                           const at::Tensor &value,
                                           const at::Tensor &workspace);
int64_t npu_fused_infer_attention_score_get_max_workspace(const at::Tensor &query);
at::Tensor npu_paged_attention(const at::Tensor &query,
                               const at::Tensor &key_cache,
                               const at::Tensor &block_table,
                               const at::Tensor &workspace);
at::Tensor npu_rms_norm(const at::Tensor &x, const at::Tensor &gamma);
} // namespace at_npu::native

namespace graph_ext {
using namespace at_npu::native;

/// A tensor that aliases t's memory and owns none of it.
at::Tensor weak_ref_tensor(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

// --- paged attention: one workspace per batch size --------------------------

/// Workspaces of the paged-attention kernel, per number of tokens, shared by
/// every layer that runs with that many tokens.
static std::unordered_map<int64_t, at::Tensor> g_paged_workspace;

at::Tensor paged_attention(const at::Tensor &query, const at::Tensor &key_cache,
                           const at::Tensor &block_table) {
  const int64_t num_tokens = query.size(0);
  auto cached = g_paged_workspace.find(num_tokens);
  if (cached != g_paged_workspace.end())
    return npu_paged_attention(query, key_cache, block_table, cached->second);
  at::Tensor workspace =
      at::empty({num_tokens, query.size(-1)}, query.options());
  at::Tensor out = npu_paged_attention(query, key_cache, block_table, workspace);
  // BUG: the only strong reference, `workspace`, dies at the end of this call,
  // inside the capture; the next layer's task gets the freed block.
  g_paged_workspace[num_tokens] = weak_ref_tensor(workspace);
  return out;
}

// --- fused infer attention: one workspace for all layers --------------------

/// The fused-infer-attention workspace, sized for the largest layer seen.
static at::Tensor g_fia_workspace;

at::Tensor fused_attention(const at::Tensor &query, const at::Tensor &key,
                           const at::Tensor &value) {
  const int64_t need = npu_fused_infer_attention_score_get_max_workspace(query);
  // BUG: keeping the larger workspace replaces it during the capture.
  if (!g_fia_workspace.defined() || g_fia_workspace.numel() < need)
    g_fia_workspace = at::empty({need}, query.options().dtype(at::kByte));
  return npu_fused_infer_attention_score(query, key, value, g_fia_workspace);
}

// --- the decode graph ---------------------------------------------------------

struct LayerWeights {
  at::Tensor input_norm;
  at::Tensor qkv_proj;
  at::Tensor o_proj;
};

at::Tensor decoder_layer(const at::Tensor &hidden, const LayerWeights &w,
                         const at::Tensor &kv_cache,
                         const at::Tensor &block_table, bool use_fused) {
  at::Tensor x = npu_rms_norm(hidden, w.input_norm);
  at::Tensor q = at::matmul(x, w.qkv_proj);
  at::Tensor attn = use_fused ? fused_attention(q, kv_cache, kv_cache)
                              : paged_attention(q, kv_cache, block_table);
  return at::add(hidden, at::matmul(attn, w.o_proj));
}

class DecodeGraph {
public:
  explicit DecodeGraph(std::vector<LayerWeights> layers)
      : layers_(std::move(layers)) {}

  /// Slots for the replay parameters of each batch size, filled on capture.
  void reserve(const std::vector<int64_t> &batch_sizes) {
    for (int64_t n : batch_sizes)
      graph_params_[n] = at::Tensor();
  }

  at::Tensor capture(const at::Tensor &hidden, const at::Tensor &kv_cache,
                     const at::Tensor &block_table, bool use_fused) {
    at::Tensor h = hidden;
    graph_.capture_begin();
    for (const LayerWeights &w : layers_)
      h = decoder_layer(h, w, kv_cache, block_table, use_fused);
    graph_.capture_end();
    // Kept strong until the graph is reset; weak handles go to the updater.
    graph_params_[hidden.size(0)] = block_table;
    updater_handles_.clear();
    for (auto &[num_tokens, params] : graph_params_)
      // BUG: the sizes not captured yet still hold reserve()'s empty tensor.
      updater_handles_.push_back(weak_ref_tensor(params));
    output_ = h;
    return h;
  }

  at::Tensor replay() {
    graph_.replay();
    return output_;
  }

private:
  std::vector<LayerWeights> layers_;
  c10_npu::NPUGraph graph_;
  std::unordered_map<int64_t, at::Tensor> graph_params_;
  std::vector<at::Tensor> updater_handles_;
  at::Tensor output_;
};

// --- bindings ------------------------------------------------------------------

at::Tensor attention_op(const at::Tensor &query, const at::Tensor &key_cache,
                        const at::Tensor &block_table) {
  return paged_attention(query, key_cache, block_table);
}

} // namespace graph_ext

TORCH_LIBRARY(graph_ext, m) {
  m.def("paged_attention(Tensor query, Tensor key_cache, Tensor block_table)"
        " -> Tensor");
}

TORCH_LIBRARY_IMPL(graph_ext, PrivateUse1, m) {
  m.impl("paged_attention", &graph_ext::attention_op);
}

PYBIND11_MODULE(graph_ext, m) {
  pybind11::class_<graph_ext::LayerWeights>(m, "LayerWeights")
      .def(pybind11::init<>())
      .def_readwrite("input_norm", &graph_ext::LayerWeights::input_norm)
      .def_readwrite("qkv_proj", &graph_ext::LayerWeights::qkv_proj)
      .def_readwrite("o_proj", &graph_ext::LayerWeights::o_proj);
  pybind11::class_<graph_ext::DecodeGraph>(m, "DecodeGraph")
      .def(pybind11::init<std::vector<graph_ext::LayerWeights>>())
      .def("reserve", &graph_ext::DecodeGraph::reserve)
      .def("capture", &graph_ext::DecodeGraph::capture)
      .def("replay", &graph_ext::DecodeGraph::replay);
}
