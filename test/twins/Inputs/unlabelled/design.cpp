// twin_compare self-test: the same finding in both languages, on lines
// without a label.
#include "torch_npu_stub.h"
at::Tensor weak_ref_tensor(const at::Tensor &t);
at::Tensor twice(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
}
at::Tensor once(const at::Tensor &x) {
  return weak_ref_tensor(x); // TWIN: once
}
