// A translation unit with one finding of each kind the CLI tests count on.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
static at::Tensor weakened(const at::Tensor &t) { return weak_ref_tensor(t); }
at::Tensor twice(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
}

at::Tensor via_local(const at::Tensor &x) {
  at::Tensor w = weakened(x); // the first conversion, in a helper
  return weak_ref_tensor(w);
}
