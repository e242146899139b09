// A binding-style translation unit: the full libtorch headers (as a real
// torch_npu extension includes them) and a few functions the tether checks
// look at. Time to diagnostics is dominated by the headers, as in an editor.
#include <torch/extension.h>

at::Tensor weak_ref_tensor(const at::Tensor &t);

at::Tensor alias_of(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.options());
}

at::Tensor twice(const at::Tensor &x) {
  return weak_ref_tensor(weak_ref_tensor(x));
}

at::Tensor workspace_for(const at::Tensor &q, int64_t layers) {
  at::Tensor ws = at::empty({q.size(0), layers}, q.options());
  at::Tensor w = weak_ref_tensor(ws);
  return alias_of(w);
}
