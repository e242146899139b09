// The graph runner: one capture runs the steps of store.cpp and read.cpp.
#include "shared_cache.h"

void store_step(const at::Tensor &q);
void read_step(const at::Tensor &q);
void store_shared(const at::Tensor &q);
void read_shared(const at::Tensor &q);
void store_global(const at::Tensor &q);
void read_global(const at::Tensor &q);
void store_shared_global(const at::Tensor &q);
void read_shared_global(const at::Tensor &q);

at::Tensor g_shared_ws;

void capture_steps(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  graph.capture_begin();
  store_step(q);
  read_step(q);
  store_shared(q);
  read_shared(q);
  store_global(q);
  read_global(q);
  store_shared_global(q);
  read_shared_global(q);
  graph.capture_end();
}
