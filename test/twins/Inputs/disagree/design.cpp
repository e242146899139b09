// twin_compare self-test: C++ reports a double conversion, Python does not.
#include "torch_npu_stub.h"
at::Tensor weak_ref_tensor(const at::Tensor &t);
at::Tensor twice(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x)); // TWIN: twice
}
