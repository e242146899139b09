// One class in every TU that includes it (external linkage).
#pragma once
#include "torch_npu_stub.h"

struct SharedCache {
  at::Tensor ws;
};

extern at::Tensor g_shared_ws; // one global of the program
