// CFG shapes with edges clang proves impossible (null successors): logging
// macros' do { } while (0), if (true), if constexpr, while (false). Every
// check must analyse them (a crash here once took the whole TU down) and
// still report what they contain.
// RUN: %clang_tidy --checks='-*,tether-*' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:'
// RUN: %expect_exit 1 %tether check -j 1 %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:'

#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
#define LOG_IT(x) do { (void)(x); } while (0)

at::Tensor logged(const at::Tensor &q) {
  LOG_IT(q);
  return weak_ref_tensor(q);
}

at::Tensor always(const at::Tensor &q) {
  if (true) {
    return weak_ref_tensor(weak_ref_tensor(q));
    // CHECK: :[[@LINE-1]]:12: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
    // CHECK: :[[@LINE-2]]:28: note: first weak reference made here
  }
  return q;
}

template <bool B> at::Tensor compile_time(const at::Tensor &q) {
  if constexpr (B)
    return weak_ref_tensor(q);
  else
    return q;
}
template at::Tensor compile_time<true>(const at::Tensor &);

at::Tensor never_loops(const at::Tensor &q) {
  at::Tensor w = q;
  while (false)
    w = weak_ref_tensor(q);
  LOG_IT(w);
  return weak_ref_tensor(w);
}
