// RUN: %clang_tidy --checks='-*,tether-weak-ref-before-capture-end' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: not %tether check --checks='tether-weak-ref-before-capture-end' %s -- -std=c++17 -isystem %S/Inputs \
// RUN:   | FileCheck %s --implicit-check-not='warning:' --implicit-check-not='note:'

// The same check instances over two TUs in one run (as clangd reuses them),
// three checks sharing each TU's analysis: each TU gets its own.
// RUN: cp %s %t-a.cpp && cp %s %t-b.cpp
// RUN: %clang_tidy --checks='-*,tether-weak-ref-before-capture-end,tether-double-weak-ref,tether-workspace-shared-across-layers' \
// RUN:   %t-a.cpp %t-b.cpp -- -std=c++17 -isystem %S/Inputs 2>/dev/null | FileCheck --check-prefix=TWO %s
// TWO-COUNT-13: -a.cpp:{{[0-9]+}}:{{[0-9]+}}: warning: weak reference made during graph capture
// TWO-COUNT-13: -b.cpp:{{[0-9]+}}:{{[0-9]+}}: warning: weak reference made during graph capture
// TWO-NOT: warning:

#include "cuda_runtime_stub.h"
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_paged_attention;

//===--- a local's weak ref stored in a cache the next layer reads -------===//
static std::unordered_map<int64_t, at::Tensor> g_attn_ws;

void attention_layer(const at::Tensor &q, int64_t n) {
  auto it = g_attn_ws.find(n);
  if (it != g_attn_ws.end()) {
    npu_paged_attention(q, it->second);
    return;
  }
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_attn_ws[n] = weak_ref_tensor(ws);
}
// CHECK: :[[@LINE-2]]:18: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
// CHECK: :[[@LINE+11]]:3: note: capture begins here
// CHECK: :[[@LINE+12]]:5: note: 'attention_layer' runs inside the capture through this call
// CHECK: :[[@LINE-5]]:3: note: the weak reference is stored in 'g_attn_ws[]', read by other code during the capture
// CHECK: :[[@LINE-5]]:1: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-12]]:28: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE+9]]:3: note: capture ends here

// Warm-up runs the same layer outside capture: the capturing call is named.
void warmup(const at::Tensor &q) { attention_layer(q, 16); }

void capture_decode(c10_npu::NPUGraph &graph, const at::Tensor &q, int layers) {
  graph.capture_begin();
  for (int i = 0; i < layers; ++i)
    attention_layer(q, 16);
  graph.capture_end();
}

//===--- fixed: a keep-alive list holds it until after capture ------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_ws;
static std::vector<at::Tensor> g_keep_alive;

void attention_layer_fixed(const at::Tensor &q, int64_t n) {
  auto it = g_fixed_ws.find(n);
  if (it != g_fixed_ws.end()) {
    npu_paged_attention(q, it->second);
    return;
  }
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_keep_alive.push_back(ws);
  g_fixed_ws[n] = weak_ref_tensor(ws);
}

void capture_fixed(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  graph.capture_begin();
  attention_layer_fixed(q, 16);
  attention_layer_fixed(q, 16);
  graph.capture_end();
  g_keep_alive.clear();
}

//===--- a temporary, through a store helper (parameter) -----------------===//
static std::map<int64_t, at::Tensor> g_tmp_ws;

void remember(int64_t n, const at::Tensor &ws) { g_tmp_ws[n] = weak_ref_tensor(ws); }

void layer_tmp(const at::Tensor &q, int64_t n) {
  remember(n, at::empty({n}));
  npu_paged_attention(q, g_tmp_ws[n]);
}
// The helper stores what its caller passes: the caller that passes a temporary
// is told, at its call (the negative twin below passes a global).
// CHECK: :[[@LINE-5]]:3: warning: weak reference made during graph capture
// CHECK: :[[@LINE+8]]:33: note: capture begins here
// CHECK: :[[@LINE+8]]:3: note: 'layer_tmp' runs inside the capture through this call
// CHECK: :[[@LINE-11]]:50: note: the weak reference is stored in 'g_tmp_ws[]', read by other code during the capture
// CHECK: :[[@LINE-9]]:15: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-9]]:26: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE+6]]:1: note: capture ends here

void capture_raii(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  c10_npu::NPUGraphCaptureGuard guard(graph);
  layer_tmp(q, 8);
  layer_tmp(q, 8);
}

// Negative twin: the caller's strong copy is a global, alive past capture.
static at::Tensor g_persistent;
static std::map<int64_t, at::Tensor> g_held_ws;
void remember_held(int64_t n, const at::Tensor &ws) { g_held_ws[n] = weak_ref_tensor(ws); }
void layer_held(const at::Tensor &q, int64_t n) {
  remember_held(n, g_persistent);
  npu_paged_attention(q, g_held_ws[n]);
}
void capture_held(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  c10_npu::NPUGraphCaptureGuard guard(graph);
  layer_held(q, 8);
}

//===--- used directly after the owner's scope ended, inside the region ---===//
void scoped_owner(aclrtStream s, const at::Tensor &q, bool early) {
  aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  if (early)
    return;
  at::Tensor w;
  {
    at::Tensor tmp = at::empty({4});
    w = weak_ref_tensor(tmp);
  }
  npu_paged_attention(q, w);
  aclmdlRI model;
  aclmdlRICaptureEnd(s, &model);
}
// CHECK: :[[@LINE-6]]:9: warning: weak reference made during graph capture
// CHECK: :[[@LINE-13]]:3: note: capture begins here
// CHECK: :[[@LINE-7]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-7]]:26: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE-6]]:3: note: capture ends here

// Negative twin: the alias is used only while its owner lives.
void scoped_owner_ok(aclrtStream s, const at::Tensor &q) {
  aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  {
    at::Tensor tmp = at::empty({4});
    at::Tensor w = weak_ref_tensor(tmp);
    npu_paged_attention(q, w);
  }
  aclmdlRI model;
  aclmdlRICaptureEnd(s, &model);
}

//===--- negative: weak refs made after the capture ended ----------------===//
static std::map<int64_t, at::Tensor> g_after_ws;
void layer_after(const at::Tensor &q, int64_t n) { npu_paged_attention(q, g_after_ws[n]); }
void capture_then_weaken(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  at::Tensor ws = at::empty({8});
  graph.capture_begin();
  layer_after(q, 8);
  graph.capture_end();
  g_after_ws[8] = weak_ref_tensor(ws);
}

//===--- negative: aliases read only after capture (update at replay) ----===//
static std::map<int64_t, at::Tensor> g_attn_params;
void layer_params(const at::Tensor &q, int64_t n) {
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_attn_params[n] = weak_ref_tensor(ws);
}
void capture_params(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  graph.capture_begin();
  layer_params(q, 8);
  graph.capture_end();
}
void update_at_replay(const at::Tensor &q, int64_t n) {
  npu_paged_attention(q, g_attn_params[n]);
}

//===--- negative: a different graph's end closes nothing ------------------===//
// (the first graph's region stays open; the member-held tensor is safe)
struct Runner {
  at::Tensor ws_;
  std::map<int64_t, at::Tensor> slots_;
  void step(const at::Tensor &q) {
    slots_[0] = weak_ref_tensor(ws_);
    npu_paged_attention(q, slots_[0]);
  }
};
void capture_member(c10_npu::NPUGraph &a, c10_npu::NPUGraph &b, Runner &r,
                    const at::Tensor &q) {
  a.capture_begin();
  b.capture_end();
  r.step(q);
  a.capture_end();
}

//===--- the strong reference reassigned after the weak ref ---------------===//
// A local reassigned from a new allocation: its old memory dies at the
// assignment, though the new memory is kept.
static std::map<int64_t, at::Tensor> g_reassigned_ws;
static std::vector<at::Tensor> g_new_kept;
void layer_reassigned(const at::Tensor &q, int64_t n) {
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_reassigned_ws[n] = weak_ref_tensor(ws);
  ws = at::empty({2 * n});
  g_new_kept.push_back(ws);
}
void read_reassigned(const at::Tensor &q, int64_t n) {
  npu_paged_attention(q, g_reassigned_ws[n]);
}
void capture_reassigned(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  graph.capture_begin();
  layer_reassigned(q, 8);
  read_reassigned(q, 8);
  graph.capture_end();
}
// CHECK: :[[@LINE-13]]:24: warning: weak reference made during graph capture
// CHECK: :[[@LINE-6]]:3: note: capture begins here
// CHECK: :[[@LINE-6]]:3: note: 'layer_reassigned' runs inside the capture through this call
// CHECK: :[[@LINE-16]]:3: note: the weak reference is stored in 'g_reassigned_ws[]', read by other code during the capture
// CHECK: :[[@LINE-16]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-13]]:26: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE-8]]:3: note: capture ends here

// Negative twin: the old memory is kept before the reassignment.
static std::map<int64_t, at::Tensor> g_kept_ws;
static std::vector<at::Tensor> g_old_kept;
void layer_kept(const at::Tensor &q, int64_t n) {
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_kept_ws[n] = weak_ref_tensor(ws);
  g_old_kept.push_back(ws);
  ws = at::empty({2 * n});
}
void read_kept(const at::Tensor &q, int64_t n) { npu_paged_attention(q, g_kept_ws[n]); }
void capture_kept(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  graph.capture_begin();
  layer_kept(q, 8);
  read_kept(q, 8);
  graph.capture_end();
}

// A member, the only holder, reset in the capture after the weak ref.
struct ResetRunner {
  at::Tensor ws_;
  std::map<int64_t, at::Tensor> cache_;
  void step(const at::Tensor &q, int64_t n) {
    ws_ = at::empty({n});
    cache_[n] = weak_ref_tensor(ws_);
    ws_.reset();
    npu_paged_attention(q, cache_[n]);
  }
};
void capture_reset(c10_npu::NPUGraph &graph, ResetRunner &r, const at::Tensor &q) {
  graph.capture_begin();
  r.step(q, 8);
  graph.capture_end();
}
// CHECK: :[[@LINE-10]]:17: warning: weak reference made during graph capture
// CHECK: :[[@LINE-5]]:3: note: capture begins here
// CHECK: :[[@LINE-5]]:3: note: 'ResetRunner::step' runs inside the capture through this call
// CHECK: :[[@LINE-13]]:5: note: the weak reference is stored in 'ResetRunner::cache_[]', read by other code during the capture
// CHECK: :[[@LINE-13]]:5: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-13]]:28: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE-8]]:3: note: capture ends here

// A global, the only holder, reassigned in the capture after the weak ref.
static at::Tensor g_grown_ws;
static std::map<int64_t, at::Tensor> g_grown_cache;
void read_grown_cache(const at::Tensor &q) { npu_paged_attention(q, g_grown_cache[0]); }
void capture_grown(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  g_grown_ws = at::empty({8});
  graph.capture_begin();
  g_grown_cache[0] = weak_ref_tensor(g_grown_ws);
  g_grown_ws = at::empty({16});
  read_grown_cache(q);
  graph.capture_end();
}
// CHECK: :[[@LINE-5]]:22: warning: weak reference made during graph capture
// CHECK: :[[@LINE-7]]:3: note: capture begins here
// CHECK: :[[@LINE-7]]:3: note: the weak reference is stored in 'g_grown_cache[]', read by other code during the capture
// CHECK: :[[@LINE-7]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-13]]:69: note: the weak reference is used by a later operation of the same capture here
// CHECK: :[[@LINE-7]]:3: note: capture ends here

// Negative twin: reassigned only after the capture ended.
static at::Tensor g_owner_ws;
static std::map<int64_t, at::Tensor> g_owner_cache;
void read_owner_cache(const at::Tensor &q) { npu_paged_attention(q, g_owner_cache[0]); }
void capture_owner_after(c10_npu::NPUGraph &graph, const at::Tensor &q) {
  g_owner_ws = at::empty({8});
  graph.capture_begin();
  g_owner_cache[0] = weak_ref_tensor(g_owner_ws);
  read_owner_cache(q);
  graph.capture_end();
  g_owner_ws = at::empty({16});
}

//===--- capture predicates: code that runs only while capturing ---------===//
struct ForwardContext {
  bool capturing = false;
};
ForwardContext &get_forward_context();

// The early-return form: the rest of the function runs in capture.
static std::map<int64_t, at::Tensor> g_pred_ws;
void attn_when_capturing(const at::Tensor &q, int64_t n) {
  ForwardContext &ctx = get_forward_context();
  if (!ctx.capturing)
    return;
  auto it = g_pred_ws.find(n);
  if (it != g_pred_ws.end()) {
    npu_paged_attention(q, it->second);
    return;
  }
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_pred_ws[n] = weak_ref_tensor(ws);
}
// CHECK: :[[@LINE-2]]:18: warning: weak reference made during graph capture
// CHECK: :[[@LINE-12]]:7: note: capture begins here
// CHECK: :[[@LINE-4]]:3: note: the weak reference is stored in 'g_pred_ws[]', read by other code during the capture
// CHECK: :[[@LINE-4]]:1: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-11]]:28: note: the weak reference is used by a later operation of the same capture here

// Negative twin: the early return is taken while capturing.
static std::map<int64_t, at::Tensor> g_eager_ws;
void attn_when_eager(const at::Tensor &q, int64_t n) {
  ForwardContext &ctx = get_forward_context();
  if (ctx.capturing)
    return;
  auto it = g_eager_ws.find(n);
  if (it != g_eager_ws.end()) {
    npu_paged_attention(q, it->second);
    return;
  }
  at::Tensor ws = at::empty({n});
  npu_paged_attention(q, ws);
  g_eager_ws[n] = weak_ref_tensor(ws);
}

// The guarded-block form, with torch_npu's predicate.
static std::map<int64_t, at::Tensor> g_npu_pred_ws;
void attn_npu_pred(const at::Tensor &q, int64_t n) {
  if (c10_npu::is_current_stream_capturing()) {
    at::Tensor ws = at::empty({n});
    g_npu_pred_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_npu_pred_ws[n]);
}
// CHECK: :[[@LINE-4]]:24: warning: weak reference made during graph capture
// CHECK: :[[@LINE-7]]:7: note: capture begins here
// CHECK: :[[@LINE-6]]:5: note: the weak reference is stored in 'g_npu_pred_ws[]', read by other code during the capture
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-6]]:26: note: the weak reference is used by a later operation of the same capture here

// Negative twin: CUDA's status compared with None, on the not-capturing side.
static std::map<int64_t, at::Tensor> g_status_ws;
void attn_status(const at::Tensor &q, int64_t n) {
  if (at::cuda::currentStreamCaptureStatus() == at::cuda::CaptureStatus::None) {
    at::Tensor ws = at::empty({n});
    g_status_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_status_ws[n]);
}

// The predicate stored in a local first: the local stands for it while it
// keeps its initial value.
static std::map<int64_t, at::Tensor> g_stored_pred_ws;
void attn_stored_pred(const at::Tensor &q, int64_t n) {
  const bool capturing =
      at::cuda::currentStreamCaptureStatus() != at::cuda::CaptureStatus::None;
  if (capturing) {
    at::Tensor ws = at::empty({n});
    g_stored_pred_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_stored_pred_ws[n]);
}
// CHECK: :[[@LINE-4]]:27: warning: weak reference made during graph capture
// CHECK: :[[@LINE-7]]:7: note: capture begins here
// CHECK: :[[@LINE-6]]:5: note: the weak reference is stored in 'g_stored_pred_ws[]', read by other code during the capture
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-6]]:26: note: the weak reference is used by a later operation of the same capture here

// Negative twins: a stored negation is true outside capture only; a local
// reassigned after its initialisation no longer stands for the predicate.
static std::map<int64_t, at::Tensor> g_stored_eager_ws;
void attn_stored_eager(const at::Tensor &q, int64_t n) {
  bool eager = !c10_npu::is_current_stream_capturing();
  if (eager) {
    at::Tensor ws = at::empty({n});
    g_stored_eager_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_stored_eager_ws[n]);
}

static std::map<int64_t, at::Tensor> g_reused_flag_ws;
void attn_reused_flag(const at::Tensor &q, int64_t n) {
  bool large = c10_npu::is_current_stream_capturing();
  large = n > 64; // the local is reused for another question
  if (large) {
    at::Tensor ws = at::empty({n});
    g_reused_flag_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_reused_flag_ws[n]);
}

// The capture status kept as it is, or as a number, and compared later (as
// op-plugin's uniform_ and its ATB command runner do); the runtime's own
// predicate answering through an out-parameter (vLLM's custom all-reduce).
static std::map<int64_t, at::Tensor> g_status_local_ws;
void attn_status_local(const at::Tensor &q, int64_t n) {
  auto status = at::cuda::currentStreamCaptureStatus();
  if (status == at::cuda::CaptureStatus::None)
    return;
  at::Tensor ws = at::empty({n});
  g_status_local_ws[n] = weak_ref_tensor(ws);
  npu_paged_attention(q, g_status_local_ws[n]);
}
// CHECK: :[[@LINE-3]]:26: warning: weak reference made during graph capture
// CHECK: :[[@LINE-7]]:7: note: capture begins here
// CHECK: :[[@LINE-5]]:3: note: the weak reference is stored in 'g_status_local_ws[]', read by other code during the capture
// CHECK: :[[@LINE-4]]:1: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-6]]:26: note: the weak reference is used by a later operation of the same capture here

static std::map<int64_t, at::Tensor> g_status_number_ws;
void attn_status_number(const at::Tensor &q, int64_t n) {
  const auto capturing =
      static_cast<int>(at::cuda::currentStreamCaptureStatus());
  if (capturing) {
    at::Tensor ws = at::empty({n});
    g_status_number_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_status_number_ws[n]);
}
// CHECK: :[[@LINE-4]]:29: warning: weak reference made during graph capture
// CHECK: :[[@LINE-7]]:7: note: capture begins here
// CHECK: :[[@LINE-6]]:5: note: the weak reference is stored in 'g_status_number_ws[]', read by other code during the capture
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-6]]:26: note: the weak reference is used by a later operation of the same capture here

static std::map<int64_t, at::Tensor> g_runtime_status_ws;
void attn_runtime_status(const at::Tensor &q, int64_t n, cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(stream, &status);
  if (status == cudaStreamCaptureStatusActive) {
    at::Tensor ws = at::empty({n});
    g_runtime_status_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_runtime_status_ws[n]);
}
// CHECK: :[[@LINE-4]]:30: warning: weak reference made during graph capture
// CHECK: :[[@LINE-7]]:7: note: capture begins here
// CHECK: :[[@LINE-6]]:5: note: the weak reference is stored in 'g_runtime_status_ws[]', read by other code during the capture
// CHECK: :[[@LINE-6]]:3: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-6]]:26: note: the weak reference is used by a later operation of the same capture here

// Negative twins: the runtime's status on the not-capturing side, and its
// error code (not the status) tested.
static std::map<int64_t, at::Tensor> g_runtime_eager_ws;
void attn_runtime_eager(const at::Tensor &q, int64_t n, cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(stream, &status);
  if (status == cudaStreamCaptureStatusNone) {
    at::Tensor ws = at::empty({n});
    g_runtime_eager_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_runtime_eager_ws[n]);
}

static std::map<int64_t, at::Tensor> g_runtime_error_ws;
void attn_runtime_error(const at::Tensor &q, int64_t n, cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    at::Tensor ws = at::empty({n});
    g_runtime_error_ws[n] = weak_ref_tensor(ws);
  }
  npu_paged_attention(q, g_runtime_error_ws[n]);
}

// A cache of structs read through a structured binding: `ws` names the
// element's member, the same place as `entry.workspace` would.
struct WsEntry {
  int64_t num_tokens;
  at::Tensor workspace;
};
static std::vector<WsEntry> g_bound_entries;
void attn_bound_entry(const at::Tensor &q, int64_t n) {
  if (!c10_npu::is_current_stream_capturing())
    return;
  for (auto &[tokens, ws] : g_bound_entries)
    if (tokens == n)
      return npu_paged_attention(q, ws);
  at::Tensor ws = at::empty({n});
  g_bound_entries.push_back(WsEntry{n, weak_ref_tensor(ws)});
  npu_paged_attention(q, ws);
}
// CHECK: :[[@LINE-3]]:40: warning: weak reference made during graph capture
// CHECK: :[[@LINE-10]]:7: note: capture begins here
// CHECK: :[[@LINE-5]]:40: note: the weak reference is stored in 'WsEntry.workspace', read by other code during the capture
// CHECK: :[[@LINE-4]]:1: note: the last strong reference to the memory dies here
// CHECK: :[[@LINE-9]]:37: note: the weak reference is used by a later operation of the same capture here

// Negative twin: the entry holds the workspace itself.
struct KeptWsEntry {
  int64_t num_tokens;
  at::Tensor workspace;
};
static std::vector<KeptWsEntry> g_kept_bound_entries;
void attn_kept_bound_entry(const at::Tensor &q, int64_t n) {
  if (!c10_npu::is_current_stream_capturing())
    return;
  for (auto &[tokens, ws] : g_kept_bound_entries)
    if (tokens == n)
      return npu_paged_attention(q, ws);
  at::Tensor ws = at::empty({n});
  g_kept_bound_entries.push_back(KeptWsEntry{n, ws});
  npu_paged_attention(q, ws);
}
