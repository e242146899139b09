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
  int maxSeq() const { return hidden_; }

private:
  Tensor layerForward(int l, const Tensor &x, int rows, int64_t seqLen,
                      bool capturing);
  void attentionImpl(int l, const Tensor &q, const Tensor &out, int rows,
                     int64_t seqLen, bool capturing);
  Tensor workspaceFor(int rows, int layer, size_t needed);
  void launchAttention(aclrtStream s, const Tensor &q, int l, const Tensor &ws,
                       const Tensor &out, int rows, int64_t seqLen);

  struct Graph {
    aclmdlRI ri = nullptr;
    Tensor output; // the graph's static output, held strongly
    std::vector<AttnParams> attn;
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
