// Capture sessions (issue 12, road 3) in C++: several graphs captured in
// turn into one pool, delimited by the engine's own calls, named by the
// check options (SessionPairs) or a .tether.yaml (session_pairs), and a
// session flag (SessionPredicates / session_predicates).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/sessions.cpp
// RUN: %clang_tidy --checks='-*,tether-weak-ref-before-capture-end' \
// RUN:   --config="{CheckOptions: {tether-weak-ref-before-capture-end.SessionPairs: 'engine::session_begin=engine::session_end', tether-weak-ref-before-capture-end.SessionPredicates: 'engine::in_session'}}" \
// RUN:   %t/sessions.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: printf 'session_pairs:\n  - begin: engine::session_begin\n    end: engine::session_end\nsession_predicates: [engine::in_session]\n' > %t/.tether.yaml
// RUN: not %tether check %t/sessions.cpp -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
//
// Without them there is no session: silent.
// RUN: rm %t/.tether.yaml && %tether check %t/sessions.cpp -- -std=c++17 -isystem %S/Inputs | count 0

#include "torch_npu_stub.h"

namespace engine {
void session_begin();
void session_end();
bool in_session();
} // namespace engine

at::Tensor weak_ref_tensor(const at::Tensor &t);
at::Tensor matmul(const at::Tensor &a, const at::Tensor &b);
at::Tensor relu(const at::Tensor &t);

//===--- a layer's runner keeps its forward output weakly -----------------===//
struct LayerGraphs {
  at::Tensor weight;
  c10_npu::NPUGraph fwd, bwd;
  at::Tensor saved;

  void capture_forward(const at::Tensor &x) {
    fwd.capture_begin();
    at::Tensor out = matmul(x, weight);
    fwd.capture_end();
    saved = weak_ref_tensor(out);
    // CHECK: sessions.cpp:[[@LINE-1]]:13: warning: weak reference made during a capture session to memory whose last strong reference can die before a later capture of the session uses it [tether-weak-ref-before-capture-end]
    // CHECK: sessions.cpp:[[@LINE+15]]:3: note: capture session begins here
    // CHECK: sessions.cpp:[[@LINE+15]]:3: note: 'LayerGraphs::capture_forward' runs inside the capture session through this call
    // CHECK: sessions.cpp:[[@LINE-4]]:5: note: the weak reference is stored in 'LayerGraphs::saved', read by a later capture of the session
    // CHECK: sessions.cpp:[[@LINE+1]]:3: note: the last strong reference to the memory dies here
  }
  at::Tensor capture_backward() {
    bwd.capture_begin();
    at::Tensor g = relu(saved);
    // CHECK: sessions.cpp:[[@LINE-1]]:25: note: a later capture of the same session uses the weak reference here
    bwd.capture_end();
    return g;
  }
};

void capture_model(LayerGraphs &a, LayerGraphs &b, const at::Tensor &x) {
  engine::session_begin();
  a.capture_forward(x);
  b.capture_forward(x);
  b.capture_backward();
  a.capture_backward();
  engine::session_end();
  // CHECK: sessions.cpp:[[@LINE-1]]:3: note: capture session ends here
}

//===--- under the session flag, between captures --------------------------===//
static std::unordered_map<int, at::Tensor> keep;

void prepare(int n) {
  if (engine::in_session()) {
    at::Tensor scale = relu(at::Tensor());
    keep[n] = weak_ref_tensor(scale);
    // CHECK: sessions.cpp:[[@LINE-1]]:15: warning: weak reference made during a capture session {{.*}} [tether-weak-ref-before-capture-end]
    // CHECK: sessions.cpp:[[@LINE-4]]:7: note: capture session begins here
    // CHECK: sessions.cpp:[[@LINE-3]]:5: note: the weak reference is stored in 'keep[]', read by a later capture of the session
    // CHECK: sessions.cpp:[[@LINE+1]]:3: note: the last strong reference to the memory dies here
  }
}

at::Tensor capture_scaled(c10_npu::NPUGraph &g, int n) {
  if (!engine::in_session())
    return at::Tensor();
  g.capture_begin();
  at::Tensor y = relu(keep[n]);
  // CHECK: sessions.cpp:[[@LINE-1]]:23: note: a later capture of the same session uses the weak reference here
  g.capture_end();
  return y;
}

//===--- correct: weakened once no later capture of the session reads it ---===//
struct FixedLayerGraphs {
  at::Tensor weight;
  c10_npu::NPUGraph fwd, bwd;
  at::Tensor saved;

  void capture_forward(const at::Tensor &x) {
    fwd.capture_begin();
    saved = matmul(x, weight);
    fwd.capture_end();
  }
  at::Tensor capture_backward() {
    bwd.capture_begin();
    at::Tensor g = relu(saved);
    bwd.capture_end();
    saved = weak_ref_tensor(saved);
    return g;
  }
};

void capture_fixed_model(FixedLayerGraphs &a, FixedLayerGraphs &b,
                         const at::Tensor &x) {
  engine::session_begin();
  a.capture_forward(x);
  b.capture_forward(x);
  b.capture_backward();
  a.capture_backward();
  engine::session_end();
}
