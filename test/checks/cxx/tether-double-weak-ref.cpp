// RUN: %clang_tidy --checks='-*,tether-double-weak-ref' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:'
// RUN: not %tether check %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:'
// Fix-its: the redundant inner conversion of a nested call is dropped.
// RUN: cp %s %t.cpp
// RUN: not %tether check --fix %t.cpp -- -std=c++17 -isystem %S/Inputs > /dev/null
// RUN: FileCheck --check-prefix=FIXED %s < %t.cpp

#include "torch_npu_stub.h"

// A catalog primitive (declared only, as in a binding's header).
at::Tensor weak_ref_tensor(const at::Tensor &t);

// An inferred helper: returns from_blob over data_ptr() with no deleter.
at::Tensor alias_of(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.options());
}

//===--- nested calls ---------------------------------------------------===//
at::Tensor nested(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
  // CHECK: :[[@LINE-2]]:26: note: first weak reference made here
  // FIXED: return weak_ref_tensor(x);
}

at::Tensor nested_parens_and_helper(const at::Tensor &x) {
  return alias_of((weak_ref_tensor(x)));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-2]]:20: note: first weak reference made here
  // FIXED: return alias_of((x));
}

at::Tensor blob_of_weak(const at::Tensor &x) {
  at::Tensor w = alias_of(x);
  return at::from_blob(w.data_ptr(), w.sizes(), w.options());
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-3]]:18: note: first weak reference made here
}

// Negative twin: two conversions of different tensors.
at::Tensor two_tensors(const at::Tensor &x, const at::Tensor &y) {
  at::Tensor a = weak_ref_tensor(x);
  at::Tensor b = weak_ref_tensor(y);
  (void)a;
  return b;
}

//===--- locals: reaching definitions on the CFG -------------------------===//
// A local is reported when one of its two conversions is hidden in a helper
// (here alias_of); both written in one function, it is a visible no-op.
at::Tensor some_path(const at::Tensor &x, bool c) {
  at::Tensor w = x;
  if (c)
    w = alias_of(x);
  return weak_ref_tensor(w);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-3]]:9: note: first weak reference made here
}

at::Tensor in_loop(const at::Tensor &x, int n) {
  at::Tensor w = x;
  for (int i = 0; i < n; ++i) {
    at::Tensor v = weak_ref_tensor(w);
    // CHECK: :[[@LINE-1]]:20: warning: weak-ref conversion of a value that is already a weak reference
    // CHECK: :[[@LINE+2]]:9: note: first weak reference made here
    (void)v;
    w = alias_of(x);
  }
  return w;
}

// Negative twin: the weak definition is killed on every path.
at::Tensor killed(const at::Tensor &x) {
  at::Tensor w = alias_of(x);
  w = x.clone();
  return weak_ref_tensor(w);
}

// Negative twin: assigned from a weak ref only after the conversion.
at::Tensor after_use(const at::Tensor &x) {
  at::Tensor w = x;
  at::Tensor r = weak_ref_tensor(w);
  w = alias_of(x);
  return r;
}

// Negative twins: both conversions written in this function, through a
// local -- vLLM's wrappers weaken a capture's output inside it and store a
// weak ref of it after.
struct Entry {
  at::Tensor output;
};
void store_output(Entry &entry, const at::Tensor &out) {
  at::Tensor output = weak_ref_tensor(out);
  entry.output = weak_ref_tensor(output);
}

at::Tensor blob_of_local_weak(const at::Tensor &x) {
  at::Tensor w = weak_ref_tensor(x);
  return at::from_blob(w.data_ptr(), w.sizes(), w.options());
}

//===--- across functions: the paged-attention double conversion ---------===//
static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void update_workspace(int64_t num_tokens, at::Tensor workspace) {
  g_workspaces[num_tokens] = weak_ref_tensor(workspace);
}

// Forwards its parameter to the helper above: also a converter (summary).
void record_workspace(int64_t num_tokens, const at::Tensor &ws) {
  update_workspace(num_tokens, ws);
}

void paged_attention(int64_t num_tokens, const at::Tensor &workspace) {
  update_workspace(num_tokens, weak_ref_tensor(workspace));
  // CHECK: :[[@LINE-1]]:3: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-2]]:32: note: first weak reference made here
  // CHECK: :[[@LINE-3]]:32: note: the weak reference is passed to 'update_workspace' here
  // CHECK: :[[@LINE-13]]:30: note: 'update_workspace' converts its parameter 'workspace' to a weak reference here
  // FIXED: update_workspace(num_tokens, workspace);
}

void through_two_helpers(int64_t n, const at::Tensor &ws) {
  at::Tensor w = alias_of(ws);
  record_workspace(n, w);
  // CHECK: :[[@LINE-1]]:3: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-3]]:18: note: first weak reference made here
  // CHECK: :[[@LINE-3]]:23: note: the weak reference is passed to 'record_workspace' here
  // CHECK: :[[@LINE-23]]:30: note: 'record_workspace' converts its parameter 'ws' to a weak reference here
}

// Negative twin: the helper is handed the strong tensor.
void paged_attention_fixed(int64_t num_tokens, const at::Tensor &workspace) {
  update_workspace(num_tokens, workspace);
}

//===--- from_blob with a deleter owns its memory ------------------------===//
at::Tensor with_deleter(const at::Tensor &x) {
  at::Tensor o = at::from_blob(x.data_ptr(), x.sizes(), [](void *) {}, x.options());
  return weak_ref_tensor(o);
}

//===--- suppression -----------------------------------------------------===//
at::Tensor suppressed(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x)); // NOLINT(tether-double-weak-ref)
}

//===--- from_blob over a data pointer held in a local (vLLM Ascend csrc) --===//
// The real weak_ref_tensor of vLLM Ascend, as a helper: inferred weak.
at::Tensor ascend_weak_ref(at::Tensor &tensor) {
  void *data_ptr = tensor.data_ptr();
  std::vector<int64_t> sizes = tensor.sizes();
  std::vector<int64_t> strides = tensor.strides();
  auto options = tensor.options();
  auto new_tensor = at_npu::native::from_blob(data_ptr, sizes, strides, options);
  return new_tensor;
}

at::Tensor ascend_twice(at::Tensor &x) {
  at::Tensor w = weak_ref_tensor(x);
  return ascend_weak_ref(w);
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-3]]:18: note: first weak reference made here
}

at::Tensor npu_blob_of_weak(const at::Tensor &x) {
  at::Tensor w = alias_of(x);
  void *p = w.data_ptr();
  return at_npu::native::from_blob(p, w.sizes(), w.options());
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-4]]:18: note: first weak reference made here
}

// Negative twin: the pointer is re-pointed at other memory before the wrap.
at::Tensor npu_blob_repointed(const at::Tensor &x, void *other) {
  at::Tensor w = alias_of(x);
  void *p = w.data_ptr();
  p = other;
  return at_npu::native::from_blob(p, w.sizes(), w.options());
}

// Negative twin: torch_npu's from_blob with a deleter owns its memory.
at::Tensor npu_blob_deleter(const at::Tensor &x) {
  at::Tensor w = alias_of(x);
  void *p = w.data_ptr();
  return at_npu::native::from_blob(p, w.sizes(), [](void *) {}, w.options());
}

//===--- for_blob(...)...make_tensor() without a deleter --------------------===//
at::Tensor maker_of_weak(const at::Tensor &x) {
  at::Tensor w = alias_of(x);
  return at::for_blob(w.data_ptr(), w.sizes()).strides(w.strides()).make_tensor();
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-3]]:18: note: first weak reference made here
}

// Negative twin: a deleter in the chain makes the tensor manage its memory.
at::Tensor maker_with_deleter(const at::Tensor &x) {
  at::Tensor w = alias_of(x);
  return at::for_blob(w.data_ptr(), w.sizes()).deleter([](void *) {}).make_tensor();
}

//===--- libtorch's stable ABI (SGLang's sgl-kernel weak_ref_tensor) ------===//
// torch::stable::from_blob has no deleter parameter: a helper built on it is
// inferred weak whatever its name.
namespace torch::stable {
struct Device {};
class Tensor {
public:
  void *data_ptr() const;
  c10::IntArrayRef sizes() const;
  c10::IntArrayRef strides() const;
  Device device() const;
};
Tensor from_blob(void *data, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                 Device device, int64_t storage_offset = 0);
} // namespace torch::stable

torch::stable::Tensor stable_alias(const torch::stable::Tensor &t) {
  void *data_ptr = t.data_ptr();
  return torch::stable::from_blob(data_ptr, t.sizes(), t.strides(), t.device());
}
torch::stable::Tensor stable_twice(const torch::stable::Tensor &x) {
  return stable_alias(stable_alias(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference
  // CHECK: :[[@LINE-2]]:23: note: first weak reference made here
}
