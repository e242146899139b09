// The runner: a temporary's memory is handed to each helper with the cache
// during the capture, and read through the cache later in the capture.
#include "cache.h"

void run(c10_npu::NPUGraph &graph, const at::Tensor &x) {
  Cache c;
  graph.capture_begin();
  {
    at::Tensor tmp = at::empty({16});
    keep_weak(c, tmp);
  }
  {
    at::Tensor tmp = at::empty({16});
    keep_strong(c, tmp);
  }
  at::Tensor y =
      at_npu::native::npu_fused_infer_attention_score(c.ws, x, x, x);
  at::Tensor z =
      at_npu::native::npu_fused_infer_attention_score(c.kept, x, x, x);
  graph.capture_end();
}
