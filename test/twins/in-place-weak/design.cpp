// Twin design in-place-weak, C++ side (Python side: design.py).
//
// Issue 12, road 4: `t.set_data(weak_alias)` turns the very tensor other
// code holds as the owner into a non-owner. Here a captured step weakens
// its output in place while the capture still runs, and a later op of the
// same capture reads it: the output's storage has no strong holder left.
//
// Expected: `in-place`, the weak reference made for the in-place
// assignment, is tether-weak-ref-before-capture-end. The fixed twin weakens
// the output after the capture (`fixed-in-place`): silent.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
at::Tensor relu(const at::Tensor &t);

at::Tensor capture_step(c10_npu::NPUGraph &graph,
                        const std::function<at::Tensor(const at::Tensor &)> &runnable,
                        const at::Tensor &x) {
  graph.capture_begin();
  at::Tensor out = runnable(x);
  out.set_data(weak_ref_tensor(out)); // TWIN: in-place
  at::Tensor y = relu(out);
  graph.capture_end();
  return y;
}

//===--- the fix ------------------------------------------------------------===//
at::Tensor capture_step_fixed(c10_npu::NPUGraph &graph,
                              const std::function<at::Tensor(const at::Tensor &)> &runnable,
                              const at::Tensor &x) {
  graph.capture_begin();
  at::Tensor out = runnable(x);
  at::Tensor y = relu(out);
  graph.capture_end();
  out.set_data(weak_ref_tensor(out)); // TWIN: fixed-in-place
  return y;
}
