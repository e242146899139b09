// Twin design struct-entries, C++ side (Python side: design.py).
//
// A workspace cache kept as a list of small records (tokens, workspace)
// rather than a map, searched by every attention layer during capture. The
// C++ layer reads a record through a structured binding (`auto &[tokens, ws]`
// over structs: each name is a member of the element, not a hidden variable
// as for std::pair); the Python layer reads the attribute of the element.
// On a miss the first layer makes the workspace and stores only a weak
// reference in the record, so the workspace dies when the layer returns
// while later layers hand the record's alias to their captured tasks.
//
// Expected: `weak-store` is tether-weak-ref-before-capture-end. The fixed
// twin's record holds the workspace itself (`kept-store`): silent.
#include "torch_npu_stub.h"

at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_paged_attention;

struct WsEntry {
  int64_t num_tokens;
  at::Tensor workspace;
};
static std::vector<WsEntry> g_entries;

void attention_layer(const at::Tensor &query, int64_t num_tokens) {
  if (!c10_npu::is_current_stream_capturing())
    return;
  for (auto &[tokens, ws] : g_entries)
    if (tokens == num_tokens)
      return npu_paged_attention(query, ws);
  at::Tensor workspace = at::empty({num_tokens});
  g_entries.push_back(WsEntry{num_tokens, weak_ref_tensor(workspace)}); // TWIN: weak-store
  npu_paged_attention(query, workspace);
}

//===--- the fix ------------------------------------------------------------===//
struct KeptWsEntry {
  int64_t num_tokens;
  at::Tensor workspace;
};
static std::vector<KeptWsEntry> g_kept_entries;

void attention_layer_fixed(const at::Tensor &query, int64_t num_tokens) {
  if (!c10_npu::is_current_stream_capturing())
    return;
  for (auto &[tokens, ws] : g_kept_entries)
    if (tokens == num_tokens)
      return npu_paged_attention(query, ws);
  at::Tensor workspace = at::empty({num_tokens});
  g_kept_entries.push_back(KeptWsEntry{num_tokens, workspace}); // TWIN: kept-store
  npu_paged_attention(query, workspace);
}
