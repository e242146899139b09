// A minimal tensor with at::Tensor's ownership model: a shared impl that
// either owns its storage (strong) or only aliases it (a weak reference made
// with weak_ref_tensor, which owns nothing, like from_blob without deleter).
#ifndef TETHER_EXAMPLES_RUNTIME_TENSOR_H
#define TETHER_EXAMPLES_RUNTIME_TENSOR_H

#include "acl_api.h"

#include <cstddef>
#include <memory>

namespace demo {

class Tensor {
public:
  Tensor() = default;
  // Floats from the caching allocator, on `stream`'s pool.
  static Tensor empty(size_t numel, aclrtStream stream);

  bool defined() const { return impl_ != nullptr; }
  float *data() const { return impl_ ? impl_->data : nullptr; }
  size_t numel() const { return impl_ ? impl_->numel : 0; }
  size_t bytes() const { return numel() * sizeof(float); }
  // The identity of the tensor object (what a TensorImpl* is in torch).
  const void *handle() const { return impl_.get(); }

private:
  struct Storage;
  struct Impl {
    std::shared_ptr<Storage> owner; // null for a weak reference
    float *data;
    size_t numel;
  };
  explicit Tensor(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;

  friend Tensor weak_ref_tensor(const Tensor &t);
};

// Same memory, no ownership. Tells the verifier, if present.
Tensor weak_ref_tensor(const Tensor &t);

} // namespace demo

#endif
