// N attention-like layers and a graph runner shaped like vLLM Ascend's:
// per batch size one captured graph, one attention task group per layer,
// one workspace per batch size shared by all layers through a cache, and
// task updates (new sequence length) before every replay.
#ifndef TETHER_EXAMPLES_RUNTIME_MODEL_H
#define TETHER_EXAMPLES_RUNTIME_MODEL_H

#include "tensor.h"

#include <cstdint>
#include <map>
#include <vector>

namespace demo {

enum class Variant {
  Buggy, // the workspace cache holds only a weak alias during capture
  Fixed, // held strongly until capture ends, weakened afterwards
  // The task-update road: attention reads per-layer tiling data from its
  // workspace, and every update gets a fresh workspace (vLLM Ascend's
  // _update_attn_pa_params). The capture itself is done as in Fixed.
  UpdateBuggy, // the update's workspace is a local, freed at the next layer
  UpdateFixed, // kept with the graph until the task's next update
};

struct Layer {
  Tensor wq, k, v; // weights and KV cache: allocated before any capture
};

// What an attention task needs to be updated at replay (vLLM Ascend's
// attn_params): weak aliases of its tensors plus the task group handle. The
// workspace is read from the cache at update time, as vLLM Ascend does.
struct AttnParams {
  Tensor q, out; // weak
  int layer;
  aclrtTaskGrp handle;
};

class Model {
public:
  Model(int layers, int hidden, aclrtStream stream, aclrtStream updateStream,
        Variant variant);
  ~Model();

  // Eager forward: kernels run at once, each layer owns a fresh workspace.
  Tensor eager(const Tensor &x, int64_t seqLen);

  // Capture the forward for x's batch size; x stays the graph's input.
  void capture(const Tensor &x, int rows, int64_t seqLen);
  // Re-point every attention task at `seqLen`, replay, return the output.
  const Tensor &replay(int rows, int64_t seqLen);

  int hidden() const { return hidden_; }
  bool tiled() const {
    return variant_ == Variant::UpdateBuggy || variant_ == Variant::UpdateFixed;
  }
  int maxSeq() const { return hidden_; }

private:
  Tensor layerForward(int l, const Tensor &x, int rows, int64_t seqLen,
                      bool capturing);
  void attentionImpl(int l, const Tensor &q, const Tensor &out, int rows,
                     int64_t seqLen, bool capturing);
  Tensor workspaceFor(int rows, int layer, size_t needed);
  size_t workspaceBytes(int rows) const;
  // Tiled variants: alternating local and global layers (as Gemma's), so
  // layers' tiling data differ: odd layers attend to at most 16 keys.
  int64_t contextOf(int layer, int64_t seqLen) const;
  void launchAttention(aclrtStream s, const Tensor &q, int l, const Tensor &ws,
                       const Tensor &out, int rows, int64_t seqLen);

  struct Graph {
    aclmdlRI ri = nullptr;
    Tensor output; // the graph's static output, held strongly
    std::vector<AttnParams> attn;
    // UpdateFixed: each task's update workspace, kept as long as the graph
    // (graph_params.update_workspaces in the fix).
    std::map<int, Tensor> updateWorkspaces;
  };

  int hidden_;
  aclrtStream stream_, updateStream_;
  Variant variant_;
  std::vector<Layer> layers_;
  std::map<int, Tensor> workspaces_; // batch size -> shared workspace
  std::map<int, Graph> graphs_;
};

} // namespace demo

#endif
