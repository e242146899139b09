// The check on real ATen code (at::Tensor, std::unordered_map caches, ATen
// ops) with TORCH_LIBRARY and pybind11 bindings (libtorch-dev). Real torch
// has no NPUGraph or ACL: the capture API the code uses is declared here, the
// catalog matches it by name.
// The sanitizer run leaves the plugin out here: tether runs the same
// checks over the same AST under ASan, the plugin meets ASan in the
// smaller tests, and each libtorch parse costs a minute there.
// RUN: %if !sanitizer %{ %clang_tidy --checks='-*,tether-weak-ref-before-capture-end' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:' %}
// RUN: not %tether check --checks='tether-weak-ref-before-capture-end' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

#include <ATen/ATen.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <unordered_map>
#include <vector>

namespace c10_npu {
struct NPUGraph {
  void capture_begin();
  void capture_end();
  void replay();
};
} // namespace c10_npu
using aclError = int;
using aclrtStream = void *;
using aclmdlRI = void *;
enum aclmdlRICaptureMode { ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0 };
aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
namespace at_npu::native {
at::Tensor npu_fused_infer_attention_score(const at::Tensor &query,
                                           const at::Tensor &key,
                                           const at::Tensor &value,
                                           const at::Tensor &workspace);
} // namespace at_npu::native

namespace npu_ext {
using at_npu::native::npu_fused_infer_attention_score;

// Inferred weak-ref helper: from_blob over data_ptr() with no deleter.
at::Tensor weak_ref_tensor(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

//===--- the vLLM Ascend bug: the shared workspace cached as a weak ref ----===//
static std::unordered_map<int64_t, at::Tensor> g_fia_workspace;

at::Tensor attention_layer(const at::Tensor &q, const at::Tensor &k,
                           const at::Tensor &v) {
  const int64_t num_tokens = q.size(0);
  auto it = g_fia_workspace.find(num_tokens);
  if (it != g_fia_workspace.end())
    return npu_fused_infer_attention_score(q, k, v, it->second);
  at::Tensor workspace = at::empty({num_tokens, q.size(-1)}, q.options());
  at::Tensor out = npu_fused_infer_attention_score(q, k, v, workspace);
  g_fia_workspace[num_tokens] = weak_ref_tensor(workspace);
  return out;
}
// CHECK: :[[@LINE-3]]:33: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
// CHECK: :[[@LINE+12]]:3: note: capture begins here
// CHECK: :[[@LINE+13]]:20: note: 'attention_layer' runs inside the capture through this call
// CHECK: :[[@LINE-6]]:3: note: the weak reference is stored in 'g_fia_workspace[]', read by other code during the capture
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-11]]:53: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE+10]]:3: note: capture ends here

static c10_npu::NPUGraph g_decode_graph;

at::Tensor capture_decode(const at::Tensor &q, const at::Tensor &kv,
                          int64_t num_layers) {
  at::Tensor h = q;
  g_decode_graph.capture_begin();
  for (int64_t layer = 0; layer < num_layers; ++layer)
    h = at::add(h, attention_layer(h, kv, kv));
  g_decode_graph.capture_end();
  return h;
}

//===--- fixed: held strongly during capture, weakened after --------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_workspace;
static std::vector<at::Tensor> g_keep_alive;

at::Tensor attention_layer_fixed(const at::Tensor &q, const at::Tensor &k,
                                 const at::Tensor &v) {
  const int64_t num_tokens = q.size(0);
  auto it = g_fixed_workspace.find(num_tokens);
  if (it != g_fixed_workspace.end())
    return npu_fused_infer_attention_score(q, k, v, it->second);
  at::Tensor workspace = at::empty({num_tokens, q.size(-1)}, q.options());
  g_keep_alive.push_back(workspace);
  g_fixed_workspace[num_tokens] = weak_ref_tensor(workspace);
  return npu_fused_infer_attention_score(q, k, v, workspace);
}

static c10_npu::NPUGraph g_fixed_graph;

at::Tensor capture_decode_fixed(const at::Tensor &q, const at::Tensor &kv,
                                int64_t num_layers) {
  at::Tensor h = q;
  g_fixed_graph.capture_begin();
  for (int64_t layer = 0; layer < num_layers; ++layer)
    h = at::add(h, attention_layer_fixed(h, kv, kv));
  g_fixed_graph.capture_end();
  g_keep_alive.clear();
  return h;
}

//===--- ACL capture: the alias outlives its owner's scope ----------------===//
at::Tensor acl_scoped(int64_t stream_handle, const at::Tensor &q) {
  aclrtStream stream = reinterpret_cast<aclrtStream>(stream_handle);
  aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  at::Tensor scratch_ref;
  {
    at::Tensor scratch = at::empty_like(q);
    scratch_ref = weak_ref_tensor(scratch);
  }
  at::Tensor out = at::mul(q, scratch_ref);
  aclmdlRI model = nullptr;
  aclmdlRICaptureEnd(stream, &model);
  return out;
}
// CHECK: :[[@LINE-7]]:19: warning: weak reference made during graph capture
// CHECK: :[[@LINE-12]]:3: note: capture begins here
// CHECK: :[[@LINE-8]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-8]]:31: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE-7]]:3: note: capture ends here

// Negative twin: the alias is used only while its owner lives.
at::Tensor acl_scoped_ok(int64_t stream_handle, const at::Tensor &q) {
  aclrtStream stream = reinterpret_cast<aclrtStream>(stream_handle);
  aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  at::Tensor out;
  {
    at::Tensor scratch = at::empty_like(q);
    at::Tensor scratch_ref = weak_ref_tensor(scratch);
    out = at::mul(q, scratch_ref);
  }
  aclmdlRI model = nullptr;
  aclmdlRICaptureEnd(stream, &model);
  return out;
}

//===--- negative: aliases read only after capture (update at replay) ----===//
static std::unordered_map<int64_t, at::Tensor> g_attn_params;

at::Tensor attention_params_layer(const at::Tensor &q, const at::Tensor &kv) {
  at::Tensor workspace = at::empty_like(q);
  at::Tensor out = npu_fused_infer_attention_score(q, kv, kv, workspace);
  g_attn_params[q.size(0)] = weak_ref_tensor(workspace);
  return out;
}

at::Tensor replay_with_params(const at::Tensor &q, const at::Tensor &kv) {
  static c10_npu::NPUGraph graph;
  graph.capture_begin();
  at::Tensor out = attention_params_layer(q, kv);
  graph.capture_end();
  out = npu_fused_infer_attention_score(q, kv, kv, g_attn_params[q.size(0)]);
  graph.replay();
  return out;
}

} // namespace npu_ext

TORCH_LIBRARY(npu_ext, m) {
  m.def("capture_decode(Tensor q, Tensor kv, int num_layers) -> Tensor");
  m.def("capture_decode_fixed(Tensor q, Tensor kv, int num_layers) -> Tensor");
}

TORCH_LIBRARY_IMPL(npu_ext, PrivateUse1, m) {
  m.impl("capture_decode", &npu_ext::capture_decode);
  m.impl("capture_decode_fixed", &npu_ext::capture_decode_fixed);
}

PYBIND11_MODULE(npu_ext_py, m) {
  m.def("acl_scoped", &npu_ext::acl_scoped);
  m.def("acl_scoped_ok", &npu_ext::acl_scoped_ok);
  m.def("replay_with_params", &npu_ext::replay_with_params);
}
