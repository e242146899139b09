// A file that ends inside a function body, as an editor sends it while the
// body is being typed: the parser closes the open blocks at the end of the
// file. That body is not finished, so it is not analysed (here the capture
// it begins never ends, and its weak reference would be reported); the
// whole function before it still is.
// RUN: %expect_exit 1 %clang_tidy --checks='-*,tether-*' %s -- -std=c++17 \
// RUN:   -isystem %S/Inputs | FileCheck %s --implicit-check-not='warning:'
// RUN: %expect_exit 2 %tether check %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   2> %t.err | FileCheck %s --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=ERR --input-file=%t.err
// ERR: error: expected '}'

#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
static std::map<int, at::Tensor> g_ws;

at::Tensor whole(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
}

void being_typed(c10_npu::NPUGraph &g, const at::Tensor &q) {
  g.capture_begin();
  for (int layer = 0; layer < 4; ++layer) {
    g_ws[layer] = weak_ref_tensor(weak_ref_tensor(at::empty({4})));
    at_npu::native::npu_paged_attention(q, g_ws[layer]);
