// Twin design two-streams, C++ side (Python side: design.py).
//
// Models a decoder layer that overlaps work on a side stream inside one
// captured graph (vLLM Ascend's multistream shared experts / MLA prefetch,
// SGLang's two-batch overlap), written against torch_npu's C++ API: attention
// runs on the main stream and the shared expert on a side stream, and both
// take the same scratch workspace from the cache shared by all layers,
// filled before the capture.
// Nothing orders the two streams, so the captured kernels may run at the same
// time on one buffer.
//
// Expected: `side-use`, the use on the side stream, is
// tether-workspace-shared-across-layers (used on different streams inside the
// capture without ordering); the main stream's use `main-use` carries no
// finding of its own. The fixed twin makes the side stream wait for the main
// one before its use and the main stream wait for the side one after it
// (`fixed-main-use`, `fixed-side-use`): silent.
#include "torch_npu_stub.h"

using at_npu::native::npu_fused_infer_attention_score;
using at_npu::native::npu_paged_attention;

static std::unordered_map<int64_t, at::Tensor> g_workspaces;

const at::Tensor &get_workspace(int64_t num_tokens) { return g_workspaces[num_tokens]; }

at::Tensor decoder_layer(const at::Tensor &query, int64_t num_tokens,
                         c10_npu::NPUStream side_stream) {
  at::Tensor hidden = npu_fused_infer_attention_score(query, query, query, get_workspace(num_tokens)); // TWIN: main-use
  {
    c10_npu::NPUStreamGuard guard(side_stream);
    npu_paged_attention(query, get_workspace(num_tokens)); // TWIN: side-use
  }
  return hidden;
}

void reserve_workspaces(const std::vector<int64_t> &sizes, int64_t nbytes) {
  for (int64_t num_tokens : sizes)
    g_workspaces[num_tokens] = at::empty({nbytes});
}

at::Tensor capture_decode(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers,
                          c10_npu::NPUStream side_stream) {
  reserve_workspaces({16}, 1 << 20);
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = decoder_layer(query, 16, side_stream);
  graph.capture_end();
  return query;
}

//===--- the fix ------------------------------------------------------------===//
static std::unordered_map<int64_t, at::Tensor> g_fixed_workspaces;

const at::Tensor &get_workspace_fixed(int64_t num_tokens) {
  return g_fixed_workspaces[num_tokens];
}

at::Tensor decoder_layer_fixed(const at::Tensor &query, int64_t num_tokens,
                               c10_npu::NPUStream side_stream) {
  c10_npu::NPUStream main_stream = c10_npu::getCurrentNPUStream();
  c10_npu::NPUEvent main_done, side_done;
  at::Tensor hidden = npu_fused_infer_attention_score(query, query, query, get_workspace_fixed(num_tokens)); // TWIN: fixed-main-use
  main_done.record(main_stream);
  main_done.block(side_stream);
  {
    c10_npu::NPUStreamGuard guard(side_stream);
    npu_paged_attention(query, get_workspace_fixed(num_tokens)); // TWIN: fixed-side-use
  }
  side_done.record(side_stream);
  side_done.block(main_stream);
  return hidden;
}

void reserve_workspaces_fixed(const std::vector<int64_t> &sizes, int64_t nbytes) {
  for (int64_t num_tokens : sizes)
    g_fixed_workspaces[num_tokens] = at::empty({nbytes});
}

at::Tensor capture_decode_fixed(c10_npu::NPUGraph &graph, at::Tensor query, int num_layers,
                                c10_npu::NPUStream side_stream) {
  reserve_workspaces_fixed({16}, 1 << 20);
  graph.capture_begin();
  for (int i = 0; i < num_layers; ++i)
    query = decoder_layer_fixed(query, 16, side_stream);
  graph.capture_end();
  return query;
}
