// The graph runner: captures the decode step, whose layers are defined in
// layer.cpp (declared here only).
#include "torch_npu_stub.h"

at::Tensor attention_layer(const at::Tensor &query, int64_t num_tokens);
at::Tensor warmup_layer(const at::Tensor &query);

at::Tensor capture_decode(c10_npu::NPUGraph &graph, at::Tensor query,
                          int num_layers) {
  query = warmup_layer(query);
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = attention_layer(query, 16);
  graph.capture_end();
  return query;
}
