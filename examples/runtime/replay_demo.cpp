// tether-replay-demo: the vLLM Ascend shared-workspace precision anomaly,
// reproduced on the simulated ACL runtime, and its task-update sibling.
//
//   tether-replay-demo --variant=buggy|fixed|update-buggy|update-fixed
//                      [--layers=N] [--steps=S]
//
// Captures one graph per batch size, replays it S times with a new sequence
// length each step (task updates), and compares every replay with an eager
// run of the same inputs. Exit 0 when all match exactly, 3 when not, 2 on
// bad usage, 1 on a runtime failure.
#include "model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

struct Options {
  demo::Variant variant = demo::Variant::Buggy;
  bool variantGiven = false;
  int layers = 4;
  int steps = 16;
};

bool parseInt(const char *s, int lo, int hi, int *out) {
  char *end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi)
    return false;
  *out = static_cast<int>(v);
  return true;
}

const char *const kVariants[] = {"buggy", "fixed", "update-buggy",
                                 "update-fixed"}; // demo::Variant's order

int variantOf(const char *name) {
  for (int v = 0; v < 4; ++v)
    if (!std::strcmp(name, kVariants[v]))
      return v;
  return -1;
}

bool parse(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!std::strncmp(a, "--variant=", 10)) {
      int v = variantOf(a + 10);
      if (v < 0)
        return false;
      o->variant = static_cast<demo::Variant>(v);
      o->variantGiven = true;
    } else if (!std::strncmp(a, "--layers=", 9)) {
      if (!parseInt(a + 9, 1, 256, &o->layers))
        return false;
    } else if (!std::strncmp(a, "--steps=", 8)) {
      if (!parseInt(a + 8, 1, 10000000, &o->steps))
        return false;
    } else {
      return false;
    }
  }
  return o->variantGiven;
}

void fillInput(const demo::Tensor &x, int step) {
  uint32_t s = 0x9e3779b9u ^ static_cast<uint32_t>(step);
  for (size_t i = 0; i < x.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    x.data()[i] = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
}

int run(const Options &o) {
  constexpr int kHidden = 128;
  const int batchSizes[] = {8, 4}; // captured largest first, like vLLM
  aclrtStream stream = nullptr, updateStream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS ||
      aclrtCreateStream(&updateStream) != ACL_SUCCESS) {
    std::fprintf(stderr, "tether-replay-demo: cannot create streams\n");
    return 1;
  }
  demo::Model model(o.layers, kHidden, stream, updateStream, o.variant);
  std::printf("variant: %s, layers: %d, batch sizes: 8 4, steps: %d\n",
              kVariants[static_cast<int>(o.variant)], o.layers,
              o.steps);

  // Static inputs live outside the graphs, as a runner's input buffers do.
  demo::Tensor inputs[2];
  for (int b = 0; b < 2; ++b) {
    inputs[b] = demo::Tensor::empty(batchSizes[b] * kHidden, stream);
    fillInput(inputs[b], -1);
    model.capture(inputs[b], batchSizes[b], model.maxSeq());
  }

  double maxErr = 0;
  std::vector<double> replayNs; // per step: the median shrugs off preemption
  for (int step = 0; step < o.steps; ++step) {
    const int b = step % 2;
    const int64_t seqLen = 1 + (7 * step + 5) % model.maxSeq();
    fillInput(inputs[b], step);
    auto t0 = std::chrono::steady_clock::now();
    const demo::Tensor &got = model.replay(batchSizes[b], seqLen);
    auto t1 = std::chrono::steady_clock::now();
    replayNs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    demo::Tensor want = model.eager(inputs[b], seqLen);
    for (size_t i = 0; i < want.numel(); ++i) {
      double d = std::fabs(double(got.data()[i]) - double(want.data()[i]));
      maxErr = std::isnan(d) ? INFINITY : std::max(maxErr, d);
    }
  }
  std::nth_element(replayNs.begin(), replayNs.begin() + replayNs.size() / 2,
                   replayNs.end());
  std::printf("replay loop: %.0f ns/step (median of %d steps)\n",
              replayNs[replayNs.size() / 2], o.steps);
  std::printf("replay max abs error: %g\n", maxErr);
  return maxErr == 0 ? 0 : 3;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    std::fprintf(stderr, "usage: tether-replay-demo --variant=buggy|fixed|"
                         "update-buggy|update-fixed [--layers=N] [--steps=S]\n");
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tether-replay-demo: %s\n", e.what());
    return 1;
  }
}
