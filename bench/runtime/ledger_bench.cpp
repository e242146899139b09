// Per-event cost of the ledger's hot path (alloc/free, what an allocator
// calls under its lock) with a given number of live blocks. Not a test:
// bench/runtime/run.sh runs it and prints the figures.
//
//   tether-runtime-bench LIVE [ROUNDS]
// prints "live=<n> alloc_ns=<median> free_ns=<median>".
#include "ledger.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using tether::rt::Ledger;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tether-runtime-bench LIVE [ROUNDS]\n");
    return 2;
  }
  const size_t live = std::strtoull(argv[1], nullptr, 10);
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  constexpr size_t kBatch = 1000; // events timed together, clock cost amortised
  constexpr uintptr_t kBlock = 512, kBase = uintptr_t{1} << 32;
  if (live < kBatch) {
    std::fprintf(stderr, "LIVE must be at least %zu\n", kBatch);
    return 2;
  }

  Ledger ledger(0);
  Ledger::Out out;
  for (size_t i = 0; i < live; ++i)
    ledger.alloc(kBase + i * kBlock, kBlock, 0x10, 0, -1, out);

  // Free a random batch, then re-allocate it: the live count stays `live`
  // and the addresses hit the map in allocator-like, non-sequential order.
  std::mt19937_64 rng(42);
  std::vector<uintptr_t> batch(kBatch);
  std::vector<double> allocNs, freeNs;
  using clock = std::chrono::steady_clock;
  for (int r = 0; r < rounds; ++r) {
    std::vector<size_t> idx(kBatch);
    for (auto &i : idx)
      i = rng() % live;
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    std::shuffle(idx.begin(), idx.end(), rng);
    for (size_t i = 0; i < idx.size(); ++i)
      batch[i] = kBase + idx[i] * kBlock;
    const size_t n = idx.size();
    auto t0 = clock::now();
    for (size_t i = 0; i < n; ++i)
      ledger.free(batch[i], -1);
    auto t1 = clock::now();
    for (size_t i = 0; i < n; ++i)
      ledger.alloc(batch[i], kBlock, 0x10, 0, -1, out);
    auto t2 = clock::now();
    freeNs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
    allocNs.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / n);
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  if (ledger.liveBlocks() != live || !out.empty()) {
    std::fprintf(stderr, "bench: ledger state drifted\n");
    return 1;
  }
  std::printf("live=%zu alloc_ns=%.1f free_ns=%.1f\n", live, median(allocNs),
              median(freeNs));
  return 0;
}
