// The check on real ATen types (at::Tensor, c10::optional, std::optional,
// TORCH_CHECK) with TORCH_LIBRARY and pybind11 bindings (libtorch-dev).
// The sanitizer run leaves the plugin out here: tether runs the same
// checks over the same AST under ASan, the plugin meets ASan in the
// smaller tests, and each libtorch parse costs a minute there.
// RUN: %if !sanitizer %{ %clang_tidy --checks='-*,tether-weak-ref-of-maybe-null' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:' %}
// RUN: not %tether check --checks='tether-weak-ref-of-maybe-null' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

#include <ATen/ATen.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <optional>
#include <unordered_map>
#include <vector>

namespace npu_ext {

// Inferred weak-ref helper: from_blob over data_ptr() with no deleter.
at::Tensor weak_ref_tensor(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

//===--- c10::optional<Tensor> arguments, as op schemas declare them ------===//
at::Tensor weak_bias(const at::Tensor &x, const c10::optional<at::Tensor> &bias) {
  return weak_ref_tensor(*bias);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty (None, an undefined tensor or an empty optional) [tether-weak-ref-of-maybe-null]
  // CHECK: :[[@LINE-3]]:76: note: the value may be empty because of this
}

at::Tensor weak_bias_checked(const at::Tensor &x,
                             const c10::optional<at::Tensor> &bias) {
  if (!bias.has_value())
    return weak_ref_tensor(x);
  return weak_ref_tensor(*bias);
}

//===--- std::optional, filled on one path only ---------------------------===//
at::Tensor weak_scale(const at::Tensor &x, bool quantized) {
  std::optional<at::Tensor> scale;
  if (quantized)
    scale = at::ones({x.size(0)}, x.options());
  return weak_ref_tensor(*scale);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-5]]:29: note: the value may be empty because of this
}

at::Tensor weak_scale_guarded(const at::Tensor &x, bool quantized) {
  std::optional<at::Tensor> scale;
  if (quantized)
    scale = at::ones({x.size(0)}, x.options());
  if (scale)
    return weak_ref_tensor(*scale);
  return weak_ref_tensor(x);
}

//===--- possibly undefined at::Tensor; TORCH_CHECK guards ----------------===//
at::Tensor weak_residual(const at::Tensor &x,
                         const c10::optional<at::Tensor> &residual) {
  at::Tensor r = residual.value_or(at::Tensor());
  return weak_ref_tensor(r);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-3]]:36: note: the value may be empty because of this
}

at::Tensor weak_residual_checked(const at::Tensor &x,
                                 const c10::optional<at::Tensor> &residual) {
  at::Tensor r = residual.value_or(at::Tensor());
  TORCH_CHECK(r.defined(), "residual is required");
  return weak_ref_tensor(r);
}

//===--- a cache of graph params whose slots start undefined --------------===//
static std::unordered_map<int64_t, at::Tensor> g_graph_params;
static std::unordered_map<int64_t, at::Tensor> g_filled_params;

void reserve_graph_params(const std::vector<int64_t> &sizes) {
  for (int64_t n : sizes)
    g_graph_params[n] = at::Tensor();
}

void fill_params(const std::vector<int64_t> &sizes, const at::Tensor &like) {
  for (int64_t n : sizes)
    g_filled_params[n] = at::empty({n}, like.options());
}

std::vector<at::Tensor> weaken_graph_params() {
  std::vector<at::Tensor> out;
  for (auto &[num_tokens, t] : g_graph_params)
    out.push_back(weak_ref_tensor(t));
  // CHECK: :[[@LINE-1]]:19: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-13]]:25: note: the value may be empty because of this
  for (auto &kv : g_graph_params) {
    if (!kv.second.defined())
      continue;
    out.push_back(weak_ref_tensor(kv.second));
  }
  for (auto &kv : g_filled_params)
    out.push_back(weak_ref_tensor(kv.second));
  return out;
}

} // namespace npu_ext

TORCH_LIBRARY(npu_ext, m) {
  m.def("weak_bias(Tensor x, Tensor? bias) -> Tensor");
  m.def("weak_bias_checked(Tensor x, Tensor? bias) -> Tensor");
  m.def("weak_residual(Tensor x, Tensor? residual) -> Tensor");
  m.def("weak_residual_checked(Tensor x, Tensor? residual) -> Tensor");
}

TORCH_LIBRARY_IMPL(npu_ext, CPU, m) {
  m.impl("weak_bias", &npu_ext::weak_bias);
  m.impl("weak_bias_checked", &npu_ext::weak_bias_checked);
  m.impl("weak_residual", &npu_ext::weak_residual);
  m.impl("weak_residual_checked", &npu_ext::weak_residual_checked);
}

PYBIND11_MODULE(npu_ext_py, m) {
  m.def("weak_scale", &npu_ext::weak_scale);
  m.def("weak_scale_guarded", &npu_ext::weak_scale_guarded);
  m.def("reserve_graph_params", &npu_ext::reserve_graph_params);
  m.def("fill_params", &npu_ext::fill_params);
  m.def("weaken_graph_params", &npu_ext::weaken_graph_params);
}
