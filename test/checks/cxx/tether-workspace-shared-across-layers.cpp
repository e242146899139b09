// RUN: %clang_tidy --checks='-*,tether-workspace-shared-across-layers' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: not %tether check --checks='tether-workspace-shared-across-layers' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// Negative twins: a slot keyed by the layer; a first fill with a size
// check; a fill before capture (the warm-up), never replaced in capture.
#include "torch_npu_stub.h"
void TORCH_CHECK_LIKE(bool);
using at_npu::native::npu_paged_attention;

// (a) keep-the-larger cache replaced mid-capture.
static at::Tensor g_workspace;
void attn_larger(const at::Tensor &q, int64_t need) {
  if (!g_workspace.defined() || g_workspace.numel() < need)
    g_workspace = at::empty({need});
  npu_paged_attention(q, g_workspace);
}
// (b) sized by the first caller, never compared.
static std::unordered_map<int, at::Tensor> g_fia_workspace;
void attn_first(const at::Tensor &q, int64_t need) {
  if (g_fia_workspace.find(0) == g_fia_workspace.end())
    g_fia_workspace[0] = at::empty({need});
  npu_paged_attention(q, g_fia_workspace[0]);
}
// negative: keyed by layer.
static std::unordered_map<int, at::Tensor> g_layer_workspace;
void attn_per_layer(const at::Tensor &q, int layer_id, int64_t need) {
  if (g_layer_workspace.find(layer_id) == g_layer_workspace.end())
    g_layer_workspace[layer_id] = at::empty({need});
  npu_paged_attention(q, g_layer_workspace[layer_id]);
}
// negative: size compared before reuse (first fill, then checked).
static at::Tensor g_checked_workspace;
void attn_checked(const at::Tensor &q, int64_t need) {
  if (!g_checked_workspace.defined())
    g_checked_workspace = at::empty({need});
  TORCH_CHECK_LIKE(g_checked_workspace.numel() >= need);
  npu_paged_attention(q, g_checked_workspace);
}
// negative: filled only during warm-up, before the capture.
static at::Tensor g_warm_workspace;
void warm(int64_t need) { g_warm_workspace = at::empty({need}); }
void attn_warm(const at::Tensor &q) { npu_paged_attention(q, g_warm_workspace); }
// (c) two streams.
static at::Tensor g_shared_workspace = at::empty({1024});
void attn_main(const at::Tensor &q) { npu_paged_attention(q, g_shared_workspace); }
void attn_side(const at::Tensor &q, c10_npu::NPUStream side) {
  c10_npu::NPUStreamGuard guard(side);
  npu_paged_attention(q, g_shared_workspace);
}
void capture(c10_npu::NPUGraph &g, const at::Tensor &q, c10_npu::NPUStream side) {
  warm(4096);
  g.capture_begin();
  for (int i = 0; i < 2; ++i) {
    attn_larger(q, 64 * (i + 1));
    attn_first(q, 64 * (i + 1));
    attn_per_layer(q, i, 64);
    attn_main(q);
    attn_side(q, side);
    attn_checked(q, 64);
    attn_warm(q);
  }
  g.capture_end();
}

// Expected diagnostics, in order (the notes tell each story).
// CHECK: :[[@LINE-52]]:5: warning: workspace slot 'g_workspace' shared by several layers is replaced during graph capture; tasks captured by earlier layers still point at the old workspace [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-15]]:3: note: capture begins here
// CHECK: :[[@LINE-14]]:5: note: 'attn_larger' runs inside the capture through this call
// CHECK: :[[@LINE-54]]:26: note: an earlier layer reads the slot and hands the workspace to a captured task here
// CHECK: :[[@LINE-8]]:3: note: capture ends here
// CHECK: :[[@LINE-50]]:5: warning: workspace cached in 'g_fia_workspace[]' is sized for the first caller and reused by other layers without a size check [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-20]]:3: note: capture begins here
// CHECK: :[[@LINE-18]]:5: note: 'attn_first' runs inside the capture through this call
// CHECK: :[[@LINE-53]]:26: note: the workspace size is computed from this caller's arguments here
// CHECK: :[[@LINE-53]]:26: note: another layer reads the slot and hands the workspace to a captured task without a size check here
// CHECK: :[[@LINE-14]]:3: note: capture ends here
// CHECK: :[[@LINE-29]]:26: warning: workspace slot 'g_shared_workspace' is used on different streams inside the capture without ordering [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-26]]:3: note: capture begins here
// CHECK: :[[@LINE-21]]:5: note: 'attn_side' runs inside the capture through this call
// CHECK: :[[@LINE-35]]:62: note: the slot is also used on another stream here
// CHECK: :[[@LINE-19]]:3: note: capture ends here

// negative (c): the two streams are ordered by events between the uses, both
// ways round the layer loop (fork: record on main, block side; join: record
// on side, block main).
static at::Tensor g_ordered_workspace = at::empty({1024});
void ordered_main(const at::Tensor &q) { npu_paged_attention(q, g_ordered_workspace); }
void ordered_side(const at::Tensor &q, c10_npu::NPUStream side,
                  c10_npu::NPUEvent &done) {
  c10_npu::NPUStreamGuard guard(side);
  npu_paged_attention(q, g_ordered_workspace);
  done.record(side);
}
void capture_ordered(c10_npu::NPUGraph &g, const at::Tensor &q,
                     c10_npu::NPUStream side) {
  c10_npu::NPUEvent fork, join;
  g.capture_begin();
  for (int i = 0; i < 2; ++i) {
    ordered_main(q);
    fork.record(c10_npu::getCurrentNPUStream());
    fork.block(side);
    ordered_side(q, side, join);
    join.block(c10_npu::getCurrentNPUStream());
  }
  g.capture_end();
}

// (c) an event elsewhere in the capture, not between the uses, orders nothing.
static at::Tensor g_unordered_workspace = at::empty({1024});
void unordered_main(const at::Tensor &q) { npu_paged_attention(q, g_unordered_workspace); }
void unordered_side(const at::Tensor &q, c10_npu::NPUStream side) {
  c10_npu::NPUStreamGuard guard(side);
  npu_paged_attention(q, g_unordered_workspace);
}
void capture_unordered(c10_npu::NPUGraph &g, const at::Tensor &q,
                       c10_npu::NPUStream side) {
  c10_npu::NPUEvent ev;
  g.capture_begin();
  ev.record(side);
  ev.block(c10_npu::getCurrentNPUStream());
  unordered_main(q);
  unordered_side(q, side);
  g.capture_end();
}
// CHECK: :[[@LINE-12]]:26: warning: workspace slot 'g_unordered_workspace' is used on different streams inside the capture without ordering [tether-workspace-shared-across-layers]
// CHECK: :[[@LINE-8]]:3: note: capture begins here
// CHECK: :[[@LINE-5]]:3: note: 'unordered_side' runs inside the capture through this call
// CHECK: :[[@LINE-18]]:67: note: the slot is also used on another stream here
// CHECK: :[[@LINE-6]]:3: note: capture ends here

// negative (d): a map's emplace and try_emplace fill an absent key only, as
// Python's setdefault does: reserving the slot with an empty handle during
// capture replaces no workspace the slot holds.
static std::unordered_map<int64_t, at::Tensor> g_reserved_workspaces;
void reserve_slot(std::unordered_map<int64_t, at::Tensor> &cache, int64_t key) {
  cache.emplace(key, at::Tensor());
  cache.try_emplace(key);
}
void attn_reserved(const at::Tensor &q) {
  if (c10_npu::is_current_stream_capturing()) {
    int64_t n = q.numel();
    reserve_slot(g_reserved_workspaces, n);
    auto it = g_reserved_workspaces.find(n);
    if (!it->second.defined())
      it->second = at::empty({n});
    npu_paged_attention(q, it->second);
  }
}
