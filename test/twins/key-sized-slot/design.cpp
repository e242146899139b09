// Twin design key-sized-slot, C++ side (Python side: design.py), with the
// find-then-emplace idiom (`it = m.emplace(k, v).first` re-points the
// iterator; it writes no slot). See design.py for the story.
//
// Expected: `fixed-key` is silent; `unsized` is
// tether-workspace-shared-across-layers.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_key_workspaces;
static std::unordered_map<int64_t, at::Tensor> g_one_workspaces;

void key_sized(const at::Tensor &query, int64_t num_tokens) {
  auto it = g_key_workspaces.find(num_tokens);
  if (it == g_key_workspaces.end())
    it = g_key_workspaces.emplace(num_tokens, at::empty({num_tokens, 4096})).first; // TWIN: fixed-key
  npu_paged_attention(query, it->second);
}

void one_sized(const at::Tensor &query, int64_t num_tokens, int64_t hidden) {
  auto it = g_one_workspaces.find(0);
  if (it == g_one_workspaces.end())
    it = g_one_workspaces.emplace(0, at::empty({num_tokens, hidden})).first; // TWIN: unsized
  npu_paged_attention(query, it->second);
}

void capture(c10_npu::NPUGraph &graph, const at::Tensor &query,
             int64_t num_tokens) {
  graph.capture_begin();
  key_sized(query, num_tokens);
  key_sized(query, num_tokens);
  one_sized(query, num_tokens, 1024);
  one_sized(query, num_tokens, 4096);
  graph.capture_end();
}
