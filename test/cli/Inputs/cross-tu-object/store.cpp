// The helpers: one keeps only a weak reference in the caller's cache, the
// other a strong one. Nothing here captures.
#include "cache.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);

void keep_weak(Cache &c, const at::Tensor &t) { c.ws = weak_ref_tensor(t); }

void keep_strong(Cache &c, const at::Tensor &t) { c.kept = t; }
