// The check on real ATen, TORCH_LIBRARY and pybind11 code (libtorch-dev).
// The sanitizer run leaves the plugin out here: tether runs the same
// checks over the same AST under ASan, the plugin meets ASan in the
// smaller tests, and each libtorch parse costs a minute there.
// RUN: %if !sanitizer %{ %clang_tidy --checks='-*,tether-double-weak-ref' %s -- %torch_flags \
// RUN:   | FileCheck %s --implicit-check-not='warning:' %}
// RUN: not %tether check %s -- %torch_flags | FileCheck %s --implicit-check-not='warning:'

#include <ATen/ATen.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <unordered_map>

namespace npu_ext {

// Inferred weak-ref helper: from_blob over data_ptr() with no deleter.
at::Tensor weak_ref_tensor(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

// Owns its memory through the deleter: not a weak reference.
at::Tensor pinned_copy(const at::Tensor &t) {
  auto *keep = new at::Tensor(t);
  return at::from_blob(
      t.data_ptr(), t.sizes(), [keep](void *) { delete keep; }, t.options());
}

std::unordered_map<int64_t, at::Tensor> &workspaces() {
  static std::unordered_map<int64_t, at::Tensor> slots;
  return slots;
}

void update_graph_workspace(int64_t num_tokens, const at::Tensor &workspace) {
  workspaces()[num_tokens] = weak_ref_tensor(workspace);
}

at::Tensor paged_attention(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace = at::empty({num_tokens, 128}, query.options());
  update_graph_workspace(num_tokens, weak_ref_tensor(workspace));
  // CHECK: :[[@LINE-1]]:3: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
  // CHECK: :[[@LINE-2]]:38: note: first weak reference made here
  // CHECK: :[[@LINE-3]]:38: note: the weak reference is passed to 'update_graph_workspace' here
  // CHECK: :[[@LINE-9]]:30: note: 'update_graph_workspace' converts its parameter 'workspace' to a weak reference here
  return at::empty_like(query);
}

at::Tensor paged_attention_fixed(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace = at::empty({num_tokens, 128}, query.options());
  update_graph_workspace(num_tokens, workspace);
  return at::empty_like(query);
}

// A view that owns nothing, under a name the catalog does not know: only
// its body says it is a weak reference.
at::Tensor unowned_view(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

at::Tensor weak_of_weak(const at::Tensor &x) {
  at::Tensor w = unowned_view(x);
  return weak_ref_tensor(w);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-3]]:18: note: first weak reference made here
}

// Negative twin: both conversions written here, through a local.
at::Tensor visible_reconversion(const at::Tensor &x) {
  at::Tensor w = weak_ref_tensor(x);
  return weak_ref_tensor(w);
}

at::Tensor weak_of_owned(const at::Tensor &x) {
  at::Tensor owned = pinned_copy(x);
  return weak_ref_tensor(owned);
}

} // namespace npu_ext

TORCH_LIBRARY(npu_ext, m) {
  m.def("weak_of_weak(Tensor x) -> Tensor");
  m.def("weak_of_owned(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(npu_ext, CPU, m) {
  m.impl("weak_of_weak", &npu_ext::weak_of_weak);
  m.impl("weak_of_owned", &npu_ext::weak_of_owned);
}

PYBIND11_MODULE(npu_ext_py, m) {
  m.def("paged_attention", &npu_ext::paged_attention);
  m.def("paged_attention_fixed", &npu_ext::paged_attention_fixed);
}
