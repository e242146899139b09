// Twin design task-update, C++ side (Python side: design.py): the same
// design through ACL's task-update calls. See design.py for the story.
//
// Expected: `bind` is tether-graph-memory-dies-before-replay; `fixed-reuse`
// and `fixed-keep` are silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_captured_workspaces;
static std::unordered_map<int64_t, at::Tensor> g_update_workspaces;

void update_layers(aclrtStream stream, const std::vector<void *> &handles,
                   const at::Tensor &query, int64_t num_tokens) {
  for (void *handle : handles) {
    at::Tensor workspace = at::empty({num_tokens});
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    npu_paged_attention(query, workspace); // TWIN: bind
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}

void update_layers_reusing(aclrtStream stream, const std::vector<void *> &handles,
                           const at::Tensor &query, int64_t num_tokens) {
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    npu_paged_attention(query, g_captured_workspaces[num_tokens]); // TWIN: fixed-reuse
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}

void update_layers_keeping(aclrtStream stream, const std::vector<void *> &handles,
                           const at::Tensor &query, int64_t num_tokens) {
  int64_t i = 0;
  for (void *handle : handles) {
    at::Tensor workspace = at::empty({num_tokens});
    g_update_workspaces[i++] = workspace;
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    npu_paged_attention(query, workspace); // TWIN: fixed-keep
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}
