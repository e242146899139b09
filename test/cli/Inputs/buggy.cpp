// A translation unit with one finding of each kind the CLI tests count on.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

at::Tensor twice(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
}

at::Tensor via_local(const at::Tensor &x) {
  at::Tensor w = weak_ref_tensor(x);
  return weak_ref_tensor(w);
}
