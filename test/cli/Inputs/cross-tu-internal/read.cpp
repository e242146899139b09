// A Cache of this TU's own, unrelated to store.cpp's of the same name, and
// a SharedCache, the class store.cpp's is.
#include "shared_cache.h"

namespace {
struct Cache {
  at::Tensor ws;
};
} // namespace

void read_step(const at::Tensor &q) {
  Cache c;
  c.ws = at::empty({16});
  at_npu::native::npu_paged_attention(q, c.ws);
}

void read_shared(const at::Tensor &q) {
  SharedCache c;
  at_npu::native::npu_paged_attention(q, c.ws);
}

static at::Tensor g_ws; // not store.cpp's

void read_global(const at::Tensor &q) {
  g_ws = at::empty({16});
  at_npu::native::npu_paged_attention(q, g_ws);
}

void read_shared_global(const at::Tensor &q) {
  at_npu::native::npu_paged_attention(q, g_shared_ws);
}
