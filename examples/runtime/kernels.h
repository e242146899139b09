// Host "kernels" of the demo model, launched through the simulated runtime
// so capture records them and replay runs them.
#ifndef TETHER_EXAMPLES_RUNTIME_KERNELS_H
#define TETHER_EXAMPLES_RUNTIME_KERNELS_H

#include "acl_sim/sim.h"

namespace demo::kernels {

// y[b] = x[b] W          ptr: x, W, y          i: rows, hidden
void linear(const aclsim::KernelArgs &a);
// Single-head attention over the first seq_len cached keys. The scores live
// in the workspace, row b at ws + b*max_seq, between the two passes.
//   ptr: q, K, V, ws, out   i: rows, hidden, max_seq, seq_len
void attention(const aclsim::KernelArgs &a);
// Floats of tiling data at the head of a tiled attention's workspace.
constexpr int64_t kTilingFloats = 16;
// attention with its context length taken from tiling data the op layer
// wrote into the workspace's head at launch (ws[0]), as Ascend kernels take
// theirs: the task reads its workspace, not only scratch. The scores follow
// the tiling data.   ptr: q, K, V, ws, out   i: rows, hidden, max_seq
void attentionTiled(const aclsim::KernelArgs &a);
// c = a + b              ptr: a, b, c          i: numel
void add(const aclsim::KernelArgs &a);

} // namespace demo::kernels

#endif
