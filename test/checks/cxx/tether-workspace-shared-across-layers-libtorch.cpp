// The check on real ATen code (at::Tensor, std::unordered_map caches,
// c10::StreamGuard, TORCH_CHECK) with TORCH_LIBRARY and pybind11 bindings
// (libtorch-dev). Real torch has no NPUGraph: the capture API is declared
// here, the catalog matches it by name.
// The sanitizer run leaves the plugin out here: tether runs the same
// checks over the same AST under ASan, the plugin meets ASan in the
// smaller tests, and each libtorch parse costs a minute there.
// RUN: %if !sanitizer %{ %clang_tidy --checks='-*,tether-workspace-shared-across-layers' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:' %}
// RUN: not %tether check --checks='tether-workspace-shared-across-layers' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <unordered_map>
#include <vector>

namespace c10_npu {
struct NPUGraph {
  void capture_begin();
  void capture_end();
};
} // namespace c10_npu
namespace at_npu::native {
at::Tensor npu_fused_infer_attention_score(const at::Tensor &query,
                                           const at::Tensor &key,
                                           const at::Tensor &value,
                                           const at::Tensor &workspace);
int64_t npu_fused_infer_attention_score_get_max_workspace(const at::Tensor &query);
} // namespace at_npu::native

namespace npu_ext {
using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_fused_infer_attention_score_get_max_workspace;
c10::Stream side_stream();

//===--- (a) "keep the larger workspace": replaced mid-capture ------------===//
static at::Tensor g_workspace;

at::Tensor attn_keep_larger(const at::Tensor &q, const at::Tensor &kv) {
  const int64_t need = npu_fused_infer_attention_score_get_max_workspace(q);
  if (!g_workspace.defined() || g_workspace.numel() < need)
    g_workspace = at::empty({need}, q.options().dtype(at::kByte));
  return npu_fused_infer_attention_score(q, kv, kv, g_workspace);
}

//===--- (b) sized by the first layer, reused with no size check ----------===//
static std::unordered_map<int64_t, at::Tensor> g_fia_workspace;

at::Tensor attn_first_sized(const at::Tensor &q, const at::Tensor &kv, int64_t need) {
  if (g_fia_workspace.find(0) == g_fia_workspace.end()) {
    // `need` is this layer's size, as its caller passes it.
    g_fia_workspace[0] = at::empty({need}, q.options().dtype(at::kByte));
  }
  return npu_fused_infer_attention_score(q, kv, kv, g_fia_workspace[0]);
}

// Negative twin: one slot per layer.
static std::unordered_map<int64_t, at::Tensor> g_layer_workspace;

at::Tensor attn_per_layer(const at::Tensor &q, const at::Tensor &kv,
                          int64_t layer_idx) {
  if (g_layer_workspace.find(layer_idx) == g_layer_workspace.end()) {
    const int64_t need = npu_fused_infer_attention_score_get_max_workspace(q);
    g_layer_workspace[layer_idx] = at::empty({need}, q.options().dtype(at::kByte));
  }
  return npu_fused_infer_attention_score(q, kv, kv, g_layer_workspace[layer_idx]);
}

// Negative twin: first fill, then the size is checked by every layer.
static at::Tensor g_checked_workspace;

at::Tensor attn_checked(const at::Tensor &q, const at::Tensor &kv) {
  const int64_t need = npu_fused_infer_attention_score_get_max_workspace(q);
  if (!g_checked_workspace.defined())
    g_checked_workspace = at::empty({need}, q.options().dtype(at::kByte));
  TORCH_CHECK(g_checked_workspace.numel() >= need, "workspace too small");
  return npu_fused_infer_attention_score(q, kv, kv, g_checked_workspace);
}

// Negative twin: allocated during warm-up, before the capture.
static at::Tensor g_warm_workspace;

void warm_up(const at::Tensor &q) {
  g_warm_workspace = at::empty(
      {npu_fused_infer_attention_score_get_max_workspace(q)}, q.options());
}

at::Tensor attn_warm(const at::Tensor &q, const at::Tensor &kv) {
  return npu_fused_infer_attention_score(q, kv, kv, g_warm_workspace);
}

//===--- (c) one workspace, two streams, no event -------------------------===//
class SharedWorkspace {
public:
  at::Tensor run_main(const at::Tensor &q, const at::Tensor &kv) {
    return npu_fused_infer_attention_score(q, kv, kv, workspace_);
  }
  at::Tensor run_side(const at::Tensor &q, const at::Tensor &kv) {
    c10::StreamGuard guard(side_stream());
    return npu_fused_infer_attention_score(q, kv, kv, workspace_);
  }

private:
  at::Tensor workspace_ = at::empty({1 << 20}, at::kByte);
};
static SharedWorkspace g_shared;

// Negative twin: each layer object owns its workspace.
class AttentionLayer {
public:
  at::Tensor forward(const at::Tensor &q, const at::Tensor &kv) {
    workspace_ = at::empty_like(q);
    return npu_fused_infer_attention_score(q, kv, kv, workspace_);
  }

private:
  at::Tensor workspace_;
};

static c10_npu::NPUGraph g_graph;

at::Tensor capture_layers(const at::Tensor &q, const at::Tensor &kv,
                          int64_t num_layers) {
  std::vector<AttentionLayer> layers(num_layers);
  warm_up(q);
  at::Tensor h = q;
  g_graph.capture_begin();
  for (int64_t i = 0; i < num_layers; ++i) {
    h = attn_keep_larger(h, kv);
    h = attn_first_sized(h, kv, 64 * (i + 1));
    h = attn_per_layer(h, kv, i);
    h = attn_checked(h, kv);
    h = attn_warm(h, kv);
    h = g_shared.run_main(h, kv);
    h = g_shared.run_side(h, kv);
    h = layers[i].forward(h, kv);
  }
  g_graph.capture_end();
  return h;
}
// CHECK: :[[@LINE-99]]:5: warning: workspace slot 'g_workspace' shared by several layers is replaced during graph capture; tasks captured by earlier layers still point at the old workspace [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-15]]:3: note: capture begins here
// CHECK: :[[@LINE-14]]:9: note: 'attn_keep_larger' runs inside the capture through this call
// CHECK: :[[@LINE-101]]:53: note: an earlier layer reads the slot and hands the workspace to a captured task here
// CHECK: :[[@LINE-7]]:3: note: capture ends here
// CHECK: :[[@LINE-94]]:5: warning: workspace cached in 'g_fia_workspace[]' is sized for the first caller and reused by other layers without a size check [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-20]]:3: note: capture begins here
// CHECK: :[[@LINE-18]]:9: note: 'attn_first_sized' runs inside the capture through this call
// CHECK: :[[@LINE-97]]:26: note: the workspace size is computed from this caller's arguments here
// CHECK: :[[@LINE-96]]:53: note: another layer reads the slot and hands the workspace to a captured task without a size check here
// CHECK: :[[@LINE-13]]:3: note: capture ends here
// CHECK: :[[@LINE-52]]:55: warning: workspace slot 'SharedWorkspace::workspace_' is used on different streams inside the capture without ordering [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-26]]:3: note: capture begins here
// CHECK: :[[@LINE-58]]:55: note: the slot is also used on another stream here
// CHECK: :[[@LINE-17]]:3: note: capture ends here

} // namespace npu_ext

TORCH_LIBRARY(npu_ext, m) {
  m.def("capture_layers(Tensor q, Tensor kv, int num_layers) -> Tensor");
}

TORCH_LIBRARY_IMPL(npu_ext, PrivateUse1, m) {
  m.impl("capture_layers", &npu_ext::capture_layers);
}

PYBIND11_MODULE(npu_ext_py, m) {
  m.def("capture_layers", &npu_ext::capture_layers);
  m.def("warm_up", &npu_ext::warm_up);
}
