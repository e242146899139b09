// 16 threads feeding one process-wide verifier (and one ledger directly).
// Built with -fsanitize=thread: any data race fails the test binary.
#include "ledger.h"
#include "tether/verify.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 16;
constexpr int kRounds = 200;

const void *at(uintptr_t a) { return reinterpret_cast<const void *>(a); }

std::atomic<int> gViolations{0};
std::mutex gGraphsMu;
std::set<uint64_t> gGraphs;

void countViolation(const tether_violation *v, void *) {
  ++gViolations;
  std::lock_guard<std::mutex> lock(gGraphsMu);
  gGraphs.insert(v->graph);
}

template <class F> void runThreads(F f) {
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back(f, t);
  for (auto &t : ts)
    t.join();
}

// Each thread captures on its own stream (4 devices, so ledgers are created
// concurrently too) and does the fixed pattern: no violations.
void cleanCapture(int t) {
  const int dev = t % 4;
  const void *s = at(0x1000 + t);
  const uintptr_t base = 0x10000000ull * (t + 1);
  tether_verify_set_layer(t);
  for (int r = 0; r < kRounds; ++r) {
    uint64_t g = tether_verify_capture_begin(dev, s);
    tether_verify_alloc(dev, at(base), 4096, s, 100 + t);
    tether_verify_workspace(dev, s, 0, 1, at(base), 4096, 4096);
    for (int layer = 0; layer < 4; ++layer) {
      uintptr_t act = base + 4096 * (layer + 1);
      tether_verify_alloc(dev, at(act), 4096, s, 100 + t);
      tether_verify_workspace(dev, s, layer, 1, at(base), 4096, 4096);
      tether_verify_task_group_begin(dev, s);
      tether_verify_task_uses(dev, s, at(base), 4096, nullptr);
      tether_verify_task_uses(dev, s, at(act), 4096, nullptr);
      tether_verify_task_group_end(dev, s);
      tether_verify_free(dev, at(act));
    }
    tether_verify_capture_end(dev, s);
    tether_verify_weak_ref(dev, at(0xF0 + t), at(0xF00 + t), at(base), 4096);
    tether_verify_free(dev, at(base));
    tether_verify_replay(dev, g);
    tether_verify_graph_destroy(dev, g);
  }
}

// Each thread reproduces the bug once on its own stream: one report each.
void buggyCapture(int t) {
  const int dev = t % 4;
  const void *s = at(0x2000 + t);
  const uintptr_t base = 0x10000000ull * (t + 1) + 0x8000000;
  uint64_t g = tether_verify_capture_begin(dev, s);
  tether_verify_alloc(dev, at(base), 4096, s, 200 + t);
  tether_verify_workspace(dev, s, 0, 1, at(base), 4096, 4096);
  tether_verify_task_group_begin(dev, s);
  tether_verify_task_uses(dev, s, at(base), 4096, nullptr);
  tether_verify_task_group_end(dev, s);
  tether_verify_free(dev, at(base));
  tether_verify_alloc(dev, at(base), 4096, s, 200 + t);
  tether_verify_capture_end(dev, s);
  tether_verify_graph_destroy(dev, g);
}

TEST(VerifyConcurrency, SixteenThreadsCleanAndBuggyCaptures) {
  tether_verify_set_callback(countViolation, nullptr);
  runThreads(cleanCapture);
  EXPECT_EQ(gViolations.load(), 0);
  runThreads(buggyCapture);
  EXPECT_EQ(gViolations.load(), kThreads);
  EXPECT_EQ(gGraphs.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(tether_verify_enabled(), 1);
  tether_verify_set_callback(nullptr, nullptr);
}

TEST(LedgerConcurrency, SixteenThreadsChurnOneLedger) {
  tether::rt::Ledger ledger(0);
  constexpr int kLive = 64;
  runThreads([&](int t) {
    tether::rt::Ledger::Out out;
    const uintptr_t base = 0x100000ull * (t + 1);
    const uintptr_t stream = 0x100 + t;
    for (int r = 0; r < kRounds; ++r) {
      for (int i = 0; i < kLive; ++i)
        ledger.alloc(base + i * 256, 256, stream, 0, t, out);
      for (int i = 0; i < kLive; i += 2)
        ledger.free(base + i * 256, t);
      for (int i = 0; i < kLive; i += 2)
        ledger.alloc(base + i * 256, 256, stream, 0, t, out);
      if (r + 1 < kRounds)
        for (int i = 0; i < kLive; ++i)
          ledger.free(base + i * 256, t);
    }
    EXPECT_TRUE(out.empty());
  });
  EXPECT_EQ(ledger.liveBlocks(), static_cast<size_t>(kThreads * kLive));
  const uint64_t perRound = kLive + kLive / 2 + kLive / 2;
  EXPECT_EQ(ledger.eventCount(),
            kThreads * (kRounds * perRound + (kRounds - 1) * kLive));
}

} // namespace
