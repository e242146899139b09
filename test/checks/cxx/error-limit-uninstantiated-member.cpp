// Past the error limit clang stops instantiating templates, so Executor's
// member Holder<Node> is left with no definition at all. Asked for the CFG of
// Executor's (virtual, defaulted) destructor, clang's CFG builder looked up
// that member's destructor and crashed: tether check and clang-tidy --load
// died with SIGSEGV. Such a definition is skipped; whole definitions, before
// and after the errors, are still analysed.
// RUN: %expect_exit 1 %clang_tidy --checks='-*,tether-*' %s -- -std=c++17 \
// RUN:   -isystem %S/Inputs -ferror-limit=1 | FileCheck %s --check-prefixes=CHECK,TIDY
// RUN: %expect_exit 2 %tether check %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   -ferror-limit=1 2> %t.err | FileCheck %s --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=ERR --input-file=%t.err
// ERR-DAG: error-limit-uninstantiated-member.cpp:{{[0-9]+}}:13: error: use of undeclared identifier 'undeclared_one'
// ERR-DAG: error: too many errors emitted, stopping now

#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

at::Tensor before_the_errors(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
}

template <class T> struct Holder {
  T *p = nullptr;
  ~Holder() { delete p; }
};
struct Node {
  at::Tensor t;
};
struct Base {
  virtual ~Base() = default;
};

int first = undeclared_one;
// TIDY: :[[@LINE-1]]:13: error: use of undeclared identifier 'undeclared_one'
int second = undeclared_two; // fatal: no template is instantiated from here on

struct Executor : Base {
  Executor();
  Holder<Node> slot;
  ~Executor() override = default;
};
Executor::Executor() {}

at::Tensor after_the_errors(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
  // CHECK: :[[@LINE-1]]:10: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
}
