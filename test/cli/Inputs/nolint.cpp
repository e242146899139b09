#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

at::Tensor same_line(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x)); // NOLINT(tether-double-weak-ref)
}

at::Tensor next_line(const at::Tensor &x) {
  // NOLINTNEXTLINE(tether-double-weak-ref)
  return weak_ref_tensor(weak_ref_tensor(x));
}

at::Tensor other_check_named(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x)); // NOLINT(tether-weak-ref-of-maybe-null)
}
