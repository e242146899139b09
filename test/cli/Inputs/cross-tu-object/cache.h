// A cache object the runner owns and hands to helpers defined in another
// translation unit, by reference.
#pragma once
#include "torch_npu_stub.h"

struct Cache {
  at::Tensor ws;
  at::Tensor kept;
};
void keep_weak(Cache &c, const at::Tensor &t);
void keep_strong(Cache &c, const at::Tensor &t);
