#include "tensor.h"

#include "acl_sim/sim.h"
#include "verifier_hooks.h"

#include <stdexcept>

namespace demo {

struct Tensor::Storage {
  explicit Storage(void *p) : ptr(p) {}
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  ~Storage() { aclsim::release(ptr); }
  void *ptr;
};

Tensor Tensor::empty(size_t numel, aclrtStream stream) {
  void *p = aclsim::allocate(numel * sizeof(float), stream);
  if (!p)
    throw std::runtime_error("simulated device out of memory");
  auto storage = std::make_shared<Storage>(p);
  return Tensor(std::make_shared<Impl>(
      Impl{std::move(storage), static_cast<float *>(p), numel}));
}

Tensor weak_ref_tensor(const Tensor &t) {
  Tensor w;
  if (t.defined())
    w = Tensor(std::make_shared<Tensor::Impl>(
        Tensor::Impl{nullptr, t.impl_->data, t.impl_->numel}));
  if (auto fn = VerifierHooks::get().weakRef)
    fn(0, t.handle(), w.handle(), t.data(), t.bytes());
  return w;
}

} // namespace demo
