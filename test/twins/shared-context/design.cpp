// Twin design shared-context, C++ side (Python side: design.py).
//
// Models a graph executor that keeps the workspace in a context object
// every layer is handed at construction (a std::shared_ptr member, not a
// global), as C++ inference engines write it: a layer that needs more than
// the context's workspace replaces it during the capture, dropping the
// workspace that the earlier layers' captured tasks still point at.
//
// Expected: `replace`, the replacement of the context's slot, is
// tether-workspace-shared-across-layers. Silent: a layer that makes its own
// context (`own-fill`: no other layer reads it), and the shared context
// filled once with the largest workspace any layer needs (`fixed-fill`).
#include "torch_npu_stub.h"
#include <memory>

using at_npu::native::npu_paged_attention;

struct ExecContext {
  at::Tensor workspace;
};

class AttentionLayer {
public:
  explicit AttentionLayer(std::shared_ptr<ExecContext> ctx)
      : ctx_(std::move(ctx)) {}
  void forward(const at::Tensor &query, int64_t size) {
    if (!ctx_->workspace.defined() || ctx_->workspace.numel() < size)
      ctx_->workspace = at::empty({size}); // TWIN: replace
    npu_paged_attention(query, ctx_->workspace);
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

//===--- correct twins ------------------------------------------------------===//
// Each layer's own context: no other layer's task points at its workspace.
class OwnContextLayer {
public:
  OwnContextLayer() : ctx_(std::make_shared<ExecContext>()) {}
  void forward(const at::Tensor &query, int64_t size) {
    if (!ctx_->workspace.defined() || ctx_->workspace.numel() < size)
      ctx_->workspace = at::empty({size}); // TWIN: own-fill
    npu_paged_attention(query, ctx_->workspace);
  }

private:
  std::shared_ptr<ExecContext> ctx_;
};

void capture_decode_own(c10_npu::NPUGraph &graph, const at::Tensor &query,
                        OwnContextLayer &first, OwnContextLayer &second) {
  graph.capture_begin();
  first.forward(query, 64);
  second.forward(query, 128);
  graph.capture_end();
}

// The shared context filled once, with the largest workspace of the model.
constexpr int64_t kMaxWorkspaceBytes = int64_t(64) << 20;

class FixedLayer {
public:
  explicit FixedLayer(ExecContext *ctx) : ctx_(ctx) {}
  void forward(const at::Tensor &query) {
    if (!ctx_->workspace.defined())
      ctx_->workspace = at::empty({kMaxWorkspaceBytes}); // TWIN: fixed-fill
    npu_paged_attention(query, ctx_->workspace);
  }

private:
  ExecContext *ctx_;
};

void capture_decode_fixed(c10_npu::NPUGraph &graph, const at::Tensor &query,
                          FixedLayer &first, FixedLayer &second) {
  graph.capture_begin();
  first.forward(query);
  second.forward(query);
  graph.capture_end();
}
