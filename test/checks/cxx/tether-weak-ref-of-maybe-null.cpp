// RUN: %clang_tidy --checks='-*,tether-weak-ref-of-maybe-null' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: not %tether check --checks='tether-weak-ref-of-maybe-null' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

//===--- std::optional ----------------------------------------------------===//
at::Tensor unchecked(std::optional<at::Tensor> bias) {
  return weak_ref_tensor(*bias);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty (None, an undefined tensor or an empty optional) [tether-weak-ref-of-maybe-null]
  // CHECK: :[[@LINE-3]]:48: note: the value may be empty because of this
}

at::Tensor checked(std::optional<at::Tensor> bias) {
  if (bias)
    return weak_ref_tensor(*bias);
  if (bias.has_value())
    return weak_ref_tensor(*bias);
  return at::Tensor();
}

at::Tensor early_return(const std::optional<at::Tensor> &bias) {
  if (!bias.has_value())
    return {};
  return weak_ref_tensor(*bias);
}

//===--- possibly undefined tensors --------------------------------------===//
at::Tensor from_value_or(const std::optional<at::Tensor> &bias) {
  at::Tensor t = bias.value_or(at::Tensor());
  return weak_ref_tensor(t);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-3]]:32: note: the value may be empty because of this
}

at::Tensor default_on_some_path(const at::Tensor &x, bool c) {
  at::Tensor t;
  if (c)
    t = x;
  return weak_ref_tensor(t);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-5]]:14: note: the value may be empty because of this
}

at::Tensor defined_guard(const at::Tensor &x, bool c) {
  at::Tensor t;
  if (c)
    t = x;
  if (t.defined())
    return weak_ref_tensor(t);
  return x;
}

at::Tensor assigned_on_every_path(const at::Tensor &x, bool c) {
  at::Tensor t;
  if (c)
    t = x;
  else
    t = x.clone();
  return weak_ref_tensor(t);
}

//===--- a cache whose entries are initialised empty ---------------------===//
static std::map<int64_t, at::Tensor> g_graph_params;

void reserve_slots(int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    g_graph_params[i] = at::Tensor();
}

std::vector<at::Tensor> weaken_all() {
  std::vector<at::Tensor> out;
  for (auto &[size, t] : g_graph_params)
    out.push_back(weak_ref_tensor(t));
  // CHECK: :[[@LINE-1]]:19: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-8]]:25: note: the value may be empty because of this
  for (auto &kv : g_graph_params)
    out.push_back(weak_ref_tensor(kv.second));
  // CHECK: :[[@LINE-1]]:19: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-12]]:25: note: the value may be empty because of this
  return out;
}

std::vector<at::Tensor> weaken_defined() {
  std::vector<at::Tensor> out;
  for (auto &[size, t] : g_graph_params) {
    if (!t.defined())
      continue;
    out.push_back(weak_ref_tensor(t));
  }
  for (auto &kv : g_graph_params)
    if (kv.second.defined())
      out.push_back(weak_ref_tensor(kv.second));
  return out;
}

at::Tensor weaken_slot(int64_t n) {
  return weak_ref_tensor(g_graph_params[n]);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that may be empty
  // CHECK: :[[@LINE-32]]:25: note: the value may be empty because of this
}

// A cache that is only ever filled with real tensors.
static std::map<int64_t, at::Tensor> g_filled;
void fill(int64_t n) { g_filled[n] = at::empty({n}); }
std::vector<at::Tensor> weaken_filled() {
  std::vector<at::Tensor> out;
  for (auto &[size, t] : g_filled)
    out.push_back(weak_ref_tensor(t));
  return out;
}

//===--- binding code ----------------------------------------------------===//
struct Module {
  template <typename F> Module &def(const char *, F &&) { return *this; }
};
void bind(Module &m) {
  m.def("weak_bias", [](std::optional<at::Tensor> bias) {
    return weak_ref_tensor(*bias);
    // CHECK: :[[@LINE-1]]:12: warning: weak-ref conversion of a value that may be empty
    // CHECK: :[[@LINE-3]]:51: note: the value may be empty because of this
  });
  m.def("weak_bias_checked", [](std::optional<at::Tensor> bias) {
    return bias ? weak_ref_tensor(*bias) : at::Tensor();
  });
}
