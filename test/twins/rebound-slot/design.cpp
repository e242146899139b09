// Twin design rebound-slot, C++ side (Python side: design.py): the same
// design through ACL's task-update calls. See design.py for the story.
//
// Expected: `fixed-rebound` is silent; `replace` is
// tether-workspace-shared-across-layers.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_rebound_workspaces;
static std::unordered_map<int64_t, at::Tensor> g_captured_workspaces;
static std::unordered_map<int64_t, std::vector<at::Tensor>> g_captured_args;

const at::Tensor &keep_largest_rebound(int64_t n, int64_t size) {
  auto it = g_rebound_workspaces.find(n);
  if (it == g_rebound_workspaces.end() || it->second.numel() < size)
    g_rebound_workspaces[n] = at::empty({size}); // TWIN: fixed-rebound
  return g_rebound_workspaces[n];
}

const at::Tensor &keep_largest_captured(int64_t n, int64_t size) {
  auto it = g_captured_workspaces.find(n);
  if (it == g_captured_workspaces.end() || it->second.numel() < size)
    g_captured_workspaces[n] = at::empty({size}); // TWIN: replace
  return g_captured_workspaces[n];
}

void capture(c10_npu::NPUGraph &graph, const at::Tensor &query, int64_t n,
             int num_layers) {
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i) {
    npu_paged_attention(query, keep_largest_rebound(n, 64 * (i + 1)));
    const at::Tensor &kept = keep_largest_captured(n, 64 * (i + 1));
    npu_paged_attention(query, kept);
    g_captured_args[n].push_back(kept);
  }
  graph.capture_end();
}

void update_rebound(aclrtStream stream, const std::vector<void *> &handles,
                    const at::Tensor &query, int64_t n) {
  const at::Tensor &ws = g_rebound_workspaces[n];
  for (void *handle : handles) {
    aclmdlRICaptureTaskUpdateBegin(stream, handle);
    npu_paged_attention(query, ws);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}

void update_captured(aclrtStream stream, const std::vector<void *> &handles,
                     const at::Tensor &query, int64_t n) {
  std::vector<at::Tensor> &args = g_captured_args[n];
  for (size_t i = 0; i < handles.size(); ++i) {
    aclmdlRICaptureTaskUpdateBegin(stream, handles[i]);
    npu_paged_attention(query, args[i]);
    aclmdlRICaptureTaskUpdateEnd(stream);
  }
}
