// The C ABI: callbacks, layers, modes, and the "never crash the host"
// promise (an internal error disables the verifier with one message).
#include "tether/verify.h"
#include "tether/verify.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Seen {
  std::vector<std::string> checks, kinds, json;
  std::vector<int32_t> layers;
  std::vector<uint64_t> graphs;
};

void collect(const tether_violation *v, void *user) {
  auto *s = static_cast<Seen *>(user);
  s->checks.push_back(v->check);
  s->kinds.push_back(v->kind);
  s->json.push_back(v->json);
  s->layers.push_back(v->layer);
  s->graphs.push_back(v->graph);
  EXPECT_EQ(v->api_version, TETHER_VERIFY_API_VERSION);
}

// Distinct streams and ranges per test: the verifier is process-wide.
const void *at(uintptr_t a) { return reinterpret_cast<const void *>(a); }

TEST(VerifyApi, ReportsTheWorkspaceReuseThroughTheCallback) {
  Seen seen;
  tether_verify_set_callback(collect, &seen);
  uint64_t before = tether_verify_violation_count();
  const void *s = at(0x1111);
  uint64_t g = tether_verify_capture_begin(0, s);
  ASSERT_NE(g, 0u);
  tether_verify_set_layer(0);
  tether_verify_alloc(0, at(0x100000), 4096, s, 42);
  tether_verify_workspace(0, s, 0, 16, at(0x100000), 4096, 4096);
  tether_verify_task_group_begin(0, s);
  tether_verify_task_uses(0, s, at(0x100000), 4096, nullptr);
  EXPECT_NE(tether_verify_task_group_end(0, s), 0u);
  tether_verify_free(0, at(0x100000));
  tether_verify_set_layer(1);
  tether_verify_alloc(0, at(0x100000), 4096, s, 42);
  tether_verify_set_layer(-1);
  EXPECT_EQ(tether_verify_capture_end(0, s), g);
  tether_verify_set_callback(nullptr, nullptr);

  ASSERT_EQ(seen.checks.size(), 1u);
  EXPECT_EQ(seen.checks[0], "tether-weak-ref-before-capture-end");
  EXPECT_EQ(seen.kinds[0], "reused");
  EXPECT_EQ(seen.layers[0], 1);
  EXPECT_EQ(seen.graphs[0], g);
  EXPECT_NE(seen.json[0].find("\"key\": 16"), std::string::npos);
  EXPECT_EQ(tether_verify_violation_count(), before + 1);
}

TEST(VerifyApi, CppCallbackSeesViolationsAndCanBeRemoved) {
  int calls = 0;
  tether::verify::onViolation([&](const tether_violation &v) {
    ++calls;
    EXPECT_STREQ(v.check, "tether-weak-ref-of-maybe-null");
  });
  {
    tether::verify::ScopedLayer layer(7);
    tether_verify_weak_ref(1, at(0xA1), at(0xA2), nullptr, 0);
  }
  tether::verify::onViolation(nullptr);
  tether_verify_weak_ref(1, at(0xA3), at(0xA4), nullptr, 0);
  EXPECT_EQ(calls, 1);
}

TEST(VerifyApi, VersionIsTheHeaders) {
  EXPECT_EQ(tether_verify_api_version(), TETHER_VERIFY_API_VERSION);
}

TEST(VerifyApiDeathTest, AbortModeAbortsAtTheFirstViolation) {
  EXPECT_DEATH(
      {
        tether_verify_set_mode(TETHER_MODE_ABORT);
        tether_verify_weak_ref(2, at(0xB1), at(0xB2), nullptr, 0);
      },
      "tether-weak-ref-of-maybe-null.*\n.*aborting");
}

TEST(VerifyApiDeathTest, InternalErrorDisablesWithOneMessage) {
  EXPECT_EXIT(
      {
        tether_verify_alloc(100000, at(0x10), 16, nullptr, 0); // no device
        tether_verify_alloc(100000, at(0x20), 16, nullptr, 0);
        bool off = tether_verify_enabled() == 0;
        // Once off, even a violating call is a no-op.
        tether_verify_weak_ref(0, at(0xC1), at(0xC2), nullptr, 0);
        std::exit(off && tether_verify_violation_count() == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "internal error \\(device index 100000\\); verifier disabled");
}

} // namespace
