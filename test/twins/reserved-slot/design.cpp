// Twin design reserved-slot, C++ side (Python side: design.py).
//
// A workspace cache keyed by the token count whose slot a helper reserves
// before the attention layer fills it, all during capture. Reserving by
// assignment (`cache[n] = at::Tensor()`) empties the slot the first layer
// filled, so the next layer makes a new workspace and replaces the one the
// earlier layers' captured tasks point at. Reserving with `emplace` fills an
// absent key only and leaves a held workspace where it is.
//
// Expected: `reserve-assign` is tether-workspace-shared-across-layers; the
// fixed twin's `reserve-absent` is silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;
using WorkspaceCache = std::unordered_map<int64_t, at::Tensor>;

static WorkspaceCache g_workspaces;

void reserve(WorkspaceCache &cache, int64_t num_tokens) {
  cache[num_tokens] = at::Tensor(); // TWIN: reserve-assign
}

void attention_layer(const at::Tensor &query) {
  if (c10_npu::is_current_stream_capturing()) {
    int64_t n = query.numel();
    reserve(g_workspaces, n);
    at::Tensor ws = g_workspaces.at(n);
    if (!ws.defined()) {
      ws = at::empty({n});
      g_workspaces[n] = ws;
    }
    npu_paged_attention(query, ws);
  }
}

// --- the fix ----------------------------------------------------------------
static WorkspaceCache g_kept_workspaces;

void reserve_fixed(WorkspaceCache &cache, int64_t num_tokens) {
  cache.emplace(num_tokens, at::Tensor()); // TWIN: reserve-absent
}

void attention_layer_fixed(const at::Tensor &query) {
  if (c10_npu::is_current_stream_capturing()) {
    int64_t n = query.numel();
    reserve_fixed(g_kept_workspaces, n);
    at::Tensor ws = g_kept_workspaces.at(n);
    if (!ws.defined()) {
      ws = at::empty({n});
      g_kept_workspaces[n] = ws;
    }
    npu_paged_attention(query, ws);
  }
}
