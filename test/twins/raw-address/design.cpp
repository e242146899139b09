// Twin design raw-address, C++ side (Python side: design.py): the task
// update and the out-of-pool input of the task-update and out-of-pool twins,
// written as C++ graph executors write them: the kernel is handed raw
// addresses (`args.workspace = workspace.data_ptr()`, `void *` members, a
// launch that takes `void *`), not tensors. See design.py for the story.
//
// Expected: `bind` and `read` are tether-graph-memory-dies-before-replay,
// `replace` is tether-workspace-shared-across-layers; `fixed-keep`,
// `pool-read` and `fixed-fill` are silent.
#include "torch_npu_stub.h"
#include <memory>

struct AttnTaskArgs {
  void *query = nullptr;
  void *workspace = nullptr;
  int64_t num_tokens = 0;
};

// The kernel launches: defined in the kernel library, which records the
// addresses in the task.
void launch_attention(aclrtStream stream, const AttnTaskArgs &args);
void launch_rope(aclrtStream stream, const void *positions, void *out,
                 int64_t num_tokens);

static std::unordered_map<int64_t, at::Tensor> g_update_workspaces;

struct Updater {
  std::vector<AttnTaskArgs> args_;

  void update(aclrtStream stream, const std::vector<void *> &handles,
              const at::Tensor &query, int64_t num_tokens) {
    for (size_t i = 0; i < handles.size(); ++i) {
      at::Tensor workspace = at::empty({num_tokens});
      args_[i].query = query.data_ptr();
      args_[i].workspace = workspace.data_ptr();
      aclmdlRICaptureTaskUpdateBegin(stream, handles[i]);
      launch_attention(stream, args_[i]); // TWIN: bind
      aclmdlRICaptureTaskUpdateEnd(stream);
    }
  }

  void update_keeping(aclrtStream stream, const std::vector<void *> &handles,
                      const at::Tensor &query, int64_t num_tokens) {
    for (size_t i = 0; i < handles.size(); ++i) {
      at::Tensor workspace = at::empty({num_tokens});
      g_update_workspaces[int64_t(i)] = workspace;
      args_[i].query = query.data_ptr();
      args_[i].workspace = workspace.data_ptr();
      aclmdlRICaptureTaskUpdateBegin(stream, handles[i]);
      launch_attention(stream, args_[i]); // TWIN: fixed-keep
      aclmdlRICaptureTaskUpdateEnd(stream);
    }
  }
};

struct Runner {
  std::unordered_map<int64_t, c10_npu::NPUGraph *> graphs;

  void capture(c10_npu::NPUGraph &graph, aclrtStream stream,
               const at::Tensor &out, int64_t num_tokens) {
    at::Tensor positions = at::empty({num_tokens});
    void *pos = positions.data_ptr();
    graph.capture_begin();
    launch_rope(stream, pos, out.data_ptr(), num_tokens); // TWIN: read
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }

  void capture_pool(c10_npu::NPUGraph &graph, aclrtStream stream,
                    const at::Tensor &out, int64_t num_tokens) {
    graph.capture_begin();
    at::Tensor positions = at::empty({num_tokens});
    launch_rope(stream, positions.data_ptr(), out.data_ptr(), num_tokens); // TWIN: pool-read
    graph.capture_end();
    graphs[num_tokens] = &graph;
  }
};

//===--- road 6's shared context, its workspace handed by address ----------===//
// Every layer is handed one context (a std::shared_ptr member); a layer that
// needs more replaces the context's workspace during the capture, while the
// earlier layers' captured kernels hold the old one's address. Filled once
// with the largest size, it is silent.
struct ExecContext {
  at::Tensor workspace;
};
void launch_attention_raw(const void *query, void *workspace);
constexpr int64_t kMaxWorkspaceBytes = int64_t(64) << 20;

class AttentionLayer {
public:
  explicit AttentionLayer(std::shared_ptr<ExecContext> ctx)
      : ctx_(std::move(ctx)) {}
  void forward(const at::Tensor &query, int64_t size) {
    if (!ctx_->workspace.defined() || ctx_->workspace.numel() < size)
      ctx_->workspace = at::empty({size}); // TWIN: replace
    launch_attention_raw(query.data_ptr(), ctx_->workspace.data_ptr());
  }
  void forward_fixed(const at::Tensor &query) {
    if (!ctx_->workspace.defined())
      ctx_->workspace = at::empty({kMaxWorkspaceBytes}); // TWIN: fixed-fill
    launch_attention_raw(query.data_ptr(), ctx_->workspace.data_ptr());
  }

private:
  std::shared_ptr<ExecContext> ctx_;
};

void capture_decode(c10_npu::NPUGraph &graph, const at::Tensor &query,
                    AttentionLayer &first, AttentionLayer &second) {
  graph.capture_begin();
  first.forward(query, 64);
  second.forward(query, 128);
  graph.capture_end();
}

void capture_decode_fixed(c10_npu::NPUGraph &graph, const at::Tensor &query,
                          AttentionLayer &first, AttentionLayer &second) {
  graph.capture_begin();
  first.forward_fixed(query);
  second.forward_fixed(query);
  graph.capture_end();
}
