// An extension's ops: one makes a weak alias of its argument (from_blob
// over the same memory, no deleter), one copies.
#include <torch/extension.h>

at::Tensor weak_view(const at::Tensor &t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options());
}

at::Tensor fresh_copy(const at::Tensor &t) { return t.clone(); }

TORCH_LIBRARY(myext, m) {
  m.def("weak_view(Tensor t) -> Tensor");
  m.def("fresh_copy", &fresh_copy);
}

TORCH_LIBRARY_IMPL(myext, CPU, m) { m.impl("weak_view", &weak_view); }

PYBIND11_MODULE(_C, m) {
  m.def("weak_view", &weak_view, "a weak alias");
  m.def("weak_lambda", [](const at::Tensor &t) { return weak_view(t); });
  m.def("fresh_copy", &fresh_copy);
}
