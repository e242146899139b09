// Registration in its own translation unit: the kernels are only declared
// here, their bodies are in kernels.cpp.
#include "torch_binding_stub.h"

at::Tensor weak_view(const at::Tensor &t);
at::Tensor fresh_copy(const at::Tensor &t);
void keep_output(const at::Tensor &out, int key);

TORCH_LIBRARY(myext, m) {
  m.def("weak_view(Tensor t) -> Tensor");
  m.def("myext::fresh_copy(Tensor t) -> Tensor", &fresh_copy);
  m.def("keep_output(Tensor out, int key) -> ()", keep_output);
}

TORCH_LIBRARY_IMPL(myext, PrivateUse1, m) { m.impl("weak_view", &weak_view); }

static void init_views(py::module_ &m) {
  m.def("weak_view", &weak_view, py::arg("t"));
  m.def("weak_lambda", [](const at::Tensor &t) { return weak_view(t); });
}

PYBIND11_MODULE(_C, m) {
  init_views(m);
  m.def("fresh_copy", &fresh_copy);
}
