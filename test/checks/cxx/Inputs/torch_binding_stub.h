// A small stand-in for the two ways an extension binds C++ into Python, in
// the shapes the binding finder reads (checks/cxx/lower/Bindings.cpp): a
// torch::Library whose init function a torch::detail::TorchLibraryInit
// object is constructed with (kind, function, namespace, ...), and a
// pybind11::module_ filled by pybind11_init_<name>. The real headers are
// exercised by test/integration/binding-libtorch.test.
#pragma once
#include "torch_npu_stub.h"
#include <string>

namespace torch {
class Library {
public:
  enum Kind { DEF, IMPL, FRAGMENT };
  Library &def(const char *Schema) { return *this; }
  template <typename Fn> Library &def(const char *Schema, Fn &&F) {
    return *this;
  }
  template <typename Fn> Library &impl(const char *Name, Fn &&F) {
    return *this;
  }
};
namespace detail {
class TorchLibraryInit {
public:
  using InitFn = void(Library &);
  TorchLibraryInit(Library::Kind K, InitFn *Fn, const char *Ns, int Key,
                   const char *File, unsigned Line);
};
} // namespace detail
} // namespace torch

#define TETHER_STUB_CAT2(a, b) a##b
#define TETHER_STUB_CAT(a, b) TETHER_STUB_CAT2(a, b)
#define TORCH_LIBRARY(ns, m)                                                   \
  static void TORCH_LIBRARY_init_##ns(torch::Library &);                       \
  static const torch::detail::TorchLibraryInit TORCH_LIBRARY_static_init_##ns( \
      torch::Library::DEF, &TORCH_LIBRARY_init_##ns, #ns, -1, __FILE__,        \
      __LINE__);                                                               \
  void TORCH_LIBRARY_init_##ns(torch::Library &m)
#define TORCH_LIBRARY_IMPL(ns, k, m)                                           \
  static void TETHER_STUB_CAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_,           \
                              __LINE__)(torch::Library &);                     \
  static const torch::detail::TorchLibraryInit TETHER_STUB_CAT(                \
      TORCH_LIBRARY_IMPL_static_init_##ns##_##k##_, __LINE__)(                 \
      torch::Library::IMPL,                                                    \
      [] { return &TETHER_STUB_CAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_,      \
                                   __LINE__); }(),                             \
      #ns, 0, __FILE__, __LINE__);                                             \
  void TETHER_STUB_CAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_,                  \
                       __LINE__)(torch::Library & m)

namespace pybind11 {
class module_ {
public:
  template <typename Fn, typename... Extra>
  module_ &def(const char *Name, Fn &&F, const Extra &...) {
    return *this;
  }
};
struct arg {
  explicit arg(const char *) {}
};
} // namespace pybind11
namespace py = pybind11;

#define PYBIND11_MODULE(name, variable)                                        \
  static void pybind11_init_##name(::pybind11::module_ &);                     \
  extern "C" void *PyInit_##name() { return nullptr; }                         \
  void pybind11_init_##name(::pybind11::module_ &(variable))
