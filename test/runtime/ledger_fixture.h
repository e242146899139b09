// Shared helpers for the ledger tests: one ledger, one stream pair, and
// terse event helpers so each test reads like the event trace it replays.
#ifndef TETHER_TEST_RUNTIME_LEDGER_FIXTURE_H
#define TETHER_TEST_RUNTIME_LEDGER_FIXTURE_H

#include "ledger.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tether::rt::test {

class LedgerTest : public ::testing::Test {
protected:
  static constexpr uintptr_t S = 0x5000;  // capturing stream
  static constexpr uintptr_t S2 = 0x6000; // a second stream
  static constexpr uint64_t Pool = 7;     // the graph's private pool
  static constexpr uintptr_t W = 0x10000; // a workspace block
  static constexpr uint64_t KB = 1024;

  explicit LedgerTest(LedgerConfig cfg = {}) : L(0, cfg) {}

  void alloc(uintptr_t p, uint64_t n, int32_t layer, uintptr_t stream = S,
             uint64_t pool = Pool) {
    L.alloc(p, n, stream, pool, layer, out);
  }
  void free(uintptr_t p, int32_t layer = -1) { L.free(p, layer); }
  void uses(uintptr_t p, uint64_t n, int32_t layer, uintptr_t handle = 0,
            uintptr_t stream = S) {
    L.taskUses(stream, p, n, handle, layer, out);
  }
  // One attention-like op as vLLM Ascend captures it: a task group whose
  // task bakes in `p`.
  uint64_t taskGroup(uintptr_t p, uint64_t n, int32_t layer,
                     uintptr_t handle = 0) {
    L.taskGroupBegin(S);
    uses(p, n, layer, handle);
    return L.taskGroupEnd(S);
  }
  void workspace(int32_t layer, int64_t key, uintptr_t p, uint64_t n,
                 uint64_t needed, uintptr_t stream = S) {
    L.workspace(stream, layer, key, p, n, needed, out);
  }
  uint64_t begin() { return L.captureBegin(S, -1); }
  uint64_t end() { return L.captureEnd(S, -1, out); }

  std::vector<std::string> found() const {
    std::vector<std::string> r;
    for (const Violation &v : out)
      r.push_back(std::string(v.check) + "/" + v.kind);
    return r;
  }
  bool storyHas(const Violation &v, EventKind k, uintptr_t p,
                int32_t layer) const {
    for (const Event &e : v.events)
      if (e.kind == k && e.ptr == p && e.layer == layer)
        return true;
    return false;
  }

  Ledger L;
  Ledger::Out out;
};

using Found = std::vector<std::string>;

} // namespace tether::rt::test

#endif
