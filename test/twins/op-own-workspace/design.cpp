// Twin design op-own-workspace, C++ side (Python side: design.py): the same
// design through ACL's task-update calls. See design.py for the story.
//
// Expected: `bind-in-op` is tether-graph-memory-dies-before-replay;
// `fixed-passed`, `fixed-captured` and `fixed-eager` are silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_captured_workspaces;
static std::unordered_map<int64_t, c10_npu::NPUGraph *> g_graphs;

void run_paged_attention(const at::Tensor &query, int64_t num_tokens) {
  at::Tensor workspace = at::empty({num_tokens});
  npu_paged_attention(query, workspace);
}

void run_paged_attention_with(const at::Tensor &query,
                              const at::Tensor &workspace) {
  npu_paged_attention(query, workspace);
}

void update_layers(aclrtStream stream, const std::vector<void *> &handles,
                   const at::Tensor &query, int64_t num_tokens) {
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    run_paged_attention(query, num_tokens); // TWIN: bind-in-op
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}

void update_layers_passing(aclrtStream stream,
                           const std::vector<void *> &handles,
                           const at::Tensor &query, int64_t num_tokens) {
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    run_paged_attention_with(query, g_captured_workspaces[num_tokens]); // TWIN: fixed-passed
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}

void capture(c10_npu::NPUGraph *graph, const at::Tensor &query,
             int64_t num_tokens) {
  graph->capture_begin();
  run_paged_attention(query, num_tokens); // TWIN: fixed-captured
  graph->capture_end();
  g_graphs[num_tokens] = graph;
}

void forward(const at::Tensor &query, int64_t num_tokens) {
  run_paged_attention(query, num_tokens); // TWIN: fixed-eager
}
