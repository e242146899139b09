// Twin design flag-guarded-fill, C++ side (Python side: design.py).
//
// A workspace cache keyed by the token count, filled during capture by the
// attention layer through a flag: the layer decides whether to store, makes
// the workspace, and stores it later when the flag says so (the shape of
// vLLM Ascend's `should_update_workspace_cache`). Setting the flag when the
// held workspace is too small replaces, mid-capture, the workspace earlier
// layers' captured tasks point at.
//
// Expected: `resize-flag` is tether-workspace-shared-across-layers. The
// fixed twin sets the flag only when the slot is empty (`fill-flag`), and a
// layer that stores the slot's own workspace back (`write-back`) replaces
// nothing: both silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

void attention_layer(const at::Tensor &query, int64_t need) {
  if (c10_npu::is_current_stream_capturing()) {
    int64_t n = query.numel();
    auto it = g_workspaces.find(n);
    at::Tensor ws;
    bool update = false;
    if (it == g_workspaces.end() || it->second.numel() < need) {
      ws = at::empty({need});
      update = true;
    } else {
      ws = it->second;
    }
    if (update)
      g_workspaces[n] = ws; // TWIN: resize-flag
    npu_paged_attention(query, ws);
  }
}

// --- the fix ----------------------------------------------------------------
constexpr int64_t kMaxWorkspace = 1 << 20; // the largest any layer needs
static std::unordered_map<int64_t, at::Tensor> g_kept_workspaces;

void attention_layer_fixed(const at::Tensor &query) {
  if (c10_npu::is_current_stream_capturing()) {
    int64_t n = query.numel();
    auto it = g_kept_workspaces.find(n);
    at::Tensor ws;
    bool update = false;
    if (it == g_kept_workspaces.end()) {
      ws = at::empty({kMaxWorkspace});
      update = true;
    } else {
      ws = it->second;
    }
    if (update)
      g_kept_workspaces[n] = ws; // TWIN: fill-flag
    npu_paged_attention(query, ws);
  }
}

void attention_layer_write_back(const at::Tensor &query) {
  if (c10_npu::is_current_stream_capturing()) {
    int64_t n = query.numel();
    if (g_kept_workspaces.find(n) == g_kept_workspaces.end())
      g_kept_workspaces[n] = at::empty({kMaxWorkspace});
    at::Tensor ws = g_kept_workspaces[n];
    g_kept_workspaces[n] = ws; // TWIN: write-back
    npu_paged_attention(query, ws);
  }
}
