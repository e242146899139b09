// Each step keeps a weak reference to a workspace that dies at its return,
// in a Cache of this TU's own, which nothing here reads, and in a
// SharedCache, which read.cpp reads.
#include "shared_cache.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

namespace {
struct Cache {
  at::Tensor ws;
};
} // namespace

void store_step(const at::Tensor &q) {
  Cache c;
  at::Tensor workspace = at::empty({16});
  c.ws = weak_ref_tensor(workspace);
}

void store_shared(const at::Tensor &q) {
  SharedCache c;
  at::Tensor workspace = at::empty({16});
  c.ws = weak_ref_tensor(workspace);
}

// The same with a global: this TU's own g_ws, and the extern g_shared_ws.
static at::Tensor g_ws;

void store_global(const at::Tensor &q) {
  at::Tensor workspace = at::empty({16});
  g_ws = weak_ref_tensor(workspace);
}

void store_shared_global(const at::Tensor &q) {
  at::Tensor workspace = at::empty({16});
  g_shared_ws = weak_ref_tensor(workspace);
}
