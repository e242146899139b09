#include "model.h"

#include "acl_sim/sim.h"
#include "kernels.h"
#include "verifier_hooks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace demo {
namespace {

void check(aclError rc, const char *what) {
  if (rc != ACL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " +
                             std::to_string(rc));
}

// Deterministic small values, so runs and variants are comparable.
void fill(const Tensor &t, uint32_t seed, float scale) {
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data()[i] = scale * (static_cast<float>(s >> 8) / 16777216.0f - 0.5f);
  }
}

void setLayer(int l) {
  if (auto fn = VerifierHooks::get().setLayer)
    fn(l);
}

struct LayerMark {
  explicit LayerMark(int l) { setLayer(l); }
  ~LayerMark() { setLayer(-1); }
};

} // namespace

Model::Model(int layers, int hidden, aclrtStream stream,
             aclrtStream updateStream, Variant variant)
    : hidden_(hidden), stream_(stream), updateStream_(updateStream),
      variant_(variant) {
  const float w = 2.0f / std::sqrt(static_cast<float>(hidden));
  for (int l = 0; l < layers; ++l) {
    Layer L{Tensor::empty(hidden * hidden, stream),
            Tensor::empty(maxSeq() * hidden, stream),
            Tensor::empty(maxSeq() * hidden, stream)};
    fill(L.wq, 3 * l + 1, w);
    fill(L.k, 3 * l + 2, 1.0f);
    fill(L.v, 3 * l + 3, 1.0f);
    layers_.push_back(std::move(L));
  }
}

Model::~Model() {
  for (auto &[rows, g] : graphs_)
    aclmdlRIDestroy(g.ri);
}

// vLLM Ascend's update_graph_params_workspaces / get_workspace: one
// workspace per batch size, created by the first layer that needs it and
// read by every later layer from the cache.
Tensor Model::workspaceFor(int rows, int layer, size_t needed) {
  auto it = workspaces_.find(rows);
  Tensor ws;
  if (it == workspaces_.end()) {
    ws = Tensor::empty(needed / sizeof(float), stream_);
    // The bug: only a weak alias goes into the cache while capturing, so
    // the workspace lives exactly as long as this layer's local `ws`. The
    // update variants capture as Fixed does.
    workspaces_[rows] = variant_ == Variant::Buggy ? weak_ref_tensor(ws) : ws;
  } else {
    ws = it->second;
  }
  if (auto fn = VerifierHooks::get().workspace)
    fn(0, stream_, layer, rows, ws.data(), ws.bytes(), needed);
  return ws;
}

size_t Model::workspaceBytes(int rows) const {
  const size_t scores = static_cast<size_t>(rows) * maxSeq();
  return (scores + (tiled() ? kernels::kTilingFloats : 0)) * sizeof(float);
}

int64_t Model::contextOf(int layer, int64_t seqLen) const {
  return layer % 2 ? std::min<int64_t>(seqLen, 16) : seqLen;
}

void Model::launchAttention(aclrtStream s, const Tensor &q, int l,
                            const Tensor &ws, const Tensor &out, int rows,
                            int64_t seqLen) {
  const Layer &L = layers_[l];
  // The op layer writes the tiling data at launch (host memory here; an
  // H2D copy on the launch stream on a device). At capture all layers share
  // one workspace, so only the updates' tiling counts, as on a device.
  if (tiled())
    ws.data()[0] = static_cast<float>(contextOf(l, seqLen));
  aclsim::KernelArgs a;
  a.ptr[0] = q.data();
  a.ptr[1] = L.k.data();
  a.ptr[2] = L.v.data();
  a.ptr[3] = ws.data();
  a.ptr[4] = out.data();
  a.i[0] = rows;
  a.i[1] = hidden_;
  a.i[2] = maxSeq();
  a.i[3] = seqLen;
  check(aclsim::launch(s, tiled() ? kernels::attentionTiled : kernels::attention,
                      a),
        "attention launch");
  // The op layer tells the verifier what the task bakes in.
  if (auto fn = VerifierHooks::get().taskUses)
    for (const Tensor *t : {&q, &L.k, &L.v, &ws, &out})
      fn(0, s, t->data(), t->bytes(), t->handle());
}

// The attention op as vLLM Ascend's forward_impl runs it: the workspace is
// a local of this frame, so in the buggy variant its last strong reference
// dies on return, while the layer's other tensors are still alive.
void Model::attentionImpl(int l, const Tensor &q, const Tensor &out, int rows,
                          int64_t seqLen, bool capturing) {
  const size_t needed = workspaceBytes(rows);
  if (!capturing) {
    Tensor ws = Tensor::empty(needed / sizeof(float), stream_);
    launchAttention(stream_, q, l, ws, out, rows, seqLen);
    return;
  }
  Tensor ws = workspaceFor(rows, l, needed);
  check(aclmdlRICaptureTaskGrpBegin(stream_), "task group begin");
  launchAttention(stream_, q, l, ws, out, rows, seqLen);
  aclrtTaskGrp handle = nullptr;
  check(aclmdlRICaptureTaskGrpEnd(stream_, &handle), "task group end");
  graphs_[rows].attn.push_back(
      AttnParams{weak_ref_tensor(q), weak_ref_tensor(out), l, handle});
}

Tensor Model::layerForward(int l, const Tensor &x, int rows, int64_t seqLen,
                           bool capturing) {
  LayerMark mark(l); // first in, last out: the frees below belong to layer l
  const size_t act = static_cast<size_t>(rows) * hidden_;
  Tensor q = Tensor::empty(act, stream_);
  aclsim::KernelArgs lin;
  lin.ptr[0] = x.data();
  lin.ptr[1] = layers_[l].wq.data();
  lin.ptr[2] = q.data();
  lin.i[0] = rows;
  lin.i[1] = hidden_;
  check(aclsim::launch(stream_, kernels::linear, lin), "linear launch");

  Tensor out = Tensor::empty(act, stream_);
  attentionImpl(l, q, out, rows, seqLen, capturing);

  Tensor y = Tensor::empty(act, stream_); // the residual: next layer's input
  aclsim::KernelArgs sum;
  sum.ptr[0] = x.data();
  sum.ptr[1] = out.data();
  sum.ptr[2] = y.data();
  sum.i[0] = static_cast<int64_t>(act);
  check(aclsim::launch(stream_, kernels::add, sum), "add launch");
  return y;
}

Tensor Model::eager(const Tensor &x, int64_t seqLen) {
  const int rows = static_cast<int>(x.numel() / hidden_);
  Tensor h = x;
  for (int l = 0; l < static_cast<int>(layers_.size()); ++l)
    h = layerForward(l, h, rows, seqLen, false);
  return h;
}

void Model::capture(const Tensor &x, int rows, int64_t seqLen) {
  Graph &g = graphs_[rows];
  check(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
        "capture begin");
  Tensor h = x;
  for (int l = 0; l < static_cast<int>(layers_.size()); ++l)
    h = layerForward(l, h, rows, seqLen, true);
  g.output = h;
  check(aclmdlRICaptureEnd(stream_, &g.ri), "capture end");
  // The fix: weaken only now that no later op of the capture can reuse it;
  // the graph's pool keeps the memory for replay.
  if (variant_ != Variant::Buggy)
    workspaces_[rows] = weak_ref_tensor(workspaces_[rows]);
}

const Tensor &Model::replay(int rows, int64_t seqLen) {
  Graph &g = graphs_.at(rows);
  for (const AttnParams &p : g.attn) {
    LayerMark mark(p.layer); // first in: the update's free is the layer's too
    // vLLM Ascend's _update_attn_pa_params: a workspace per update, sized
    // and filled for the new sequence length.
    Tensor ws = tiled() ? Tensor::empty(workspaceBytes(rows) / sizeof(float),
                                        updateStream_)
                        : workspaces_.at(rows);
    check(aclmdlRICaptureTaskUpdateBegin(updateStream_, p.handle),
          "task update begin");
    launchAttention(updateStream_, p.q, p.layer, ws, p.out, rows, seqLen);
    check(aclmdlRICaptureTaskUpdateEnd(updateStream_), "task update end");
    // The fix: the graph keeps it; the one it replaces is no longer bound.
    if (variant_ == Variant::UpdateFixed)
      g.updateWorkspaces[p.layer] = ws;
    // UpdateBuggy: `ws` dies here and the next layer's update gets its
    // block, tiling data and all: at replay every task reads the last one's.
  }
  check(aclmdlRIExecuteAsync(g.ri, stream_), "execute");
  check(aclrtSynchronizeStream(stream_), "synchronize");
  return g.output;
}

} // namespace demo
