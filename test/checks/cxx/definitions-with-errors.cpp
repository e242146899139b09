// Definitions clang could not build are not analysed: each broken function
// below would be reported if its remains were walked (a double conversion,
// a weak ref stored in capture), and none of them is; the whole functions
// around them still are.
// RUN: %expect_exit 1 %clang_tidy --checks='-*,tether-*' %s -- -std=c++17 \
// RUN:   -isystem %S/Inputs -ferror-limit=0 | FileCheck %s --implicit-check-not='warning:'
// RUN: %expect_exit 2 %tether check %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   -ferror-limit=0 2> %t.err | FileCheck %s --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=ERR --input-file=%t.err
// ERR: error: use of undeclared identifier 'missing_stream'

#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
static std::map<int, at::Tensor> g_ws;

at::Tensor whole(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
}

// A RecoveryExpr in the capture calls (and one as a weak-ref's argument).
void recovery_in_capture_calls(c10_npu::NPUGraph &g, const at::Tensor &q) {
  aclmdlRICaptureBegin(missing_stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  g_ws[0] = weak_ref_tensor(at::empty({4}));
  g_ws[1] = weak_ref_tensor(weak_ref_tensor(q));
  g_ws[2] = weak_ref_tensor(missing_tensor);
  at_npu::native::npu_paged_attention(q, g_ws[0]);
  g.capture_end(missing_handle);
}

// A statement with errors anywhere in the body.
at::Tensor recovery_elsewhere(const at::Tensor &x) {
  missing_call(x);
  return weak_ref_tensor(weak_ref_tensor(x));
}

// A local of an unknown type; a parameter of one.
at::Tensor invalid_local(const at::Tensor &x) {
  UnknownType y;
  return weak_ref_tensor(weak_ref_tensor(x));
}
at::Tensor invalid_parameter(UnknownType y, const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
}

// Methods of a class with a member of an unknown type.
struct BrokenLayer {
  UnknownType member;
  at::Tensor t;
  BrokenLayer() : t(weak_ref_tensor(weak_ref_tensor(t))) {}
  ~BrokenLayer() { g_ws[3] = weak_ref_tensor(weak_ref_tensor(t)); }
  at::Tensor forward() { return weak_ref_tensor(weak_ref_tensor(t)); }
};

// A constructor initialiser with errors.
struct BrokenInit {
  at::Tensor t;
  explicit BrokenInit(const at::Tensor &x) : t(missing_init(x)) {
    g_ws[4] = weak_ref_tensor(weak_ref_tensor(x));
  }
};

// A lambda whose body has errors, inside an otherwise fine function.
void lambda_with_errors(const at::Tensor &x) {
  auto f = [&] { return missing_in_lambda(x); };
  g_ws[5] = weak_ref_tensor(weak_ref_tensor(x));
}

// A handler of an unknown exception type.
void unknown_handler(const at::Tensor &x) {
  try {
    g_ws[6] = weak_ref_tensor(weak_ref_tensor(x));
  } catch (const UnknownError &) {
  }
}

// A call that uses a default argument with errors.
void with_bad_default(const at::Tensor &x, int n = missing_default);
void uses_bad_default(const at::Tensor &x) {
  with_bad_default(x);
  g_ws[7] = weak_ref_tensor(weak_ref_tensor(x));
}

at::Tensor whole_at_the_end(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
}
