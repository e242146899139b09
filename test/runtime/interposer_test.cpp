// libtether_acl.so preloaded in front of the simulated ACL runtime: calls
// are forwarded unchanged, and the verifier sees captures, task groups,
// updates, replays and (through the allocator trace) every block.
#include "acl_sim/sim.h"
#include "tether/verify.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Seen {
  std::vector<std::string> found; // "check/kind"
  std::vector<std::string> json;
};

void collect(const tether_violation *v, void *user) {
  auto *s = static_cast<Seen *>(user);
  s->found.push_back(std::string(v->check) + "/" + v->kind);
  s->json.push_back(v->json);
}

// ptr[0][j] += i[0] for j < i[1]
void addScalar(const aclsim::KernelArgs &a) {
  float *p = static_cast<float *>(a.ptr[0]);
  for (int64_t j = 0; j < a.i[1]; ++j)
    p[j] += static_cast<float>(a.i[0]);
}

aclsim::KernelArgs argsOf(void *p, int64_t add, int64_t n) {
  aclsim::KernelArgs a;
  a.ptr[0] = p;
  a.i[0] = add;
  a.i[1] = n;
  return a;
}

using Found = std::vector<std::string>;
// Memory from the default pool that a graph reads and that dies while the
// graph lives (the simulated allocator gives no pool id to eager blocks).
const std::string kOutOfPool =
    "tether-graph-memory-dies-before-replay/out-of-pool-freed";

class InterposerTest : public ::testing::Test {
protected:
  void SetUp() override {
    tether_verify_set_callback(collect, &seen);
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&updater), ACL_SUCCESS);
  }
  void TearDown() override { tether_verify_set_callback(nullptr, nullptr); }

  // One task group launching addScalar on p, announced to the verifier as
  // the framework's op layer would.
  aclrtTaskGrp capturedTask(void *p, size_t bytes, int64_t add) {
    EXPECT_EQ(aclmdlRICaptureTaskGrpBegin(stream), ACL_SUCCESS);
    EXPECT_EQ(aclsim::launch(stream, addScalar, argsOf(p, add, 4)),
              ACL_SUCCESS);
    tether_verify_task_uses(0, stream, p, bytes, nullptr);
    aclrtTaskGrp h = nullptr;
    EXPECT_EQ(aclmdlRICaptureTaskGrpEnd(stream, &h), ACL_SUCCESS);
    return h;
  }

  Seen seen;
  aclrtStream stream = nullptr, updater = nullptr;
};

TEST(InterposerLoad, SitsInFrontOfTheRuntime) {
  for (const char *fn :
       {"aclrtMalloc", "aclrtFree", "aclmdlRICaptureBegin",
        "aclmdlRICaptureEnd", "aclmdlRICaptureTaskGrpBegin",
        "aclmdlRICaptureTaskGrpEnd", "aclmdlRICaptureTaskUpdateBegin",
        "aclmdlRICaptureTaskUpdateEnd", "aclmdlRIExecuteAsync",
        "aclmdlRIDestroy"}) {
    Dl_info info{};
    void *sym = dlsym(RTLD_DEFAULT, fn);
    ASSERT_NE(sym, nullptr) << fn;
    ASSERT_NE(dladdr(sym, &info), 0) << fn;
    EXPECT_NE(std::strstr(info.dli_fname, "libtether_acl"), nullptr)
        << fn << " resolves to " << info.dli_fname;
  }
}

TEST_F(InterposerTest, ForwardsCaptureUpdateAndReplayUnchanged) {
  float *buf = static_cast<float *>(aclsim::allocate(16, stream));
  ASSERT_EQ(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
            ACL_SUCCESS);
  aclrtTaskGrp task = capturedTask(buf, 16, 1);
  aclmdlRI graph = nullptr;
  ASSERT_EQ(aclmdlRICaptureEnd(stream, &graph), ACL_SUCCESS);
  EXPECT_EQ(buf[0], 0.0f); // captured, not run
  ASSERT_EQ(aclmdlRIExecuteAsync(graph, stream), ACL_SUCCESS);
  EXPECT_EQ(buf[3], 1.0f);
  ASSERT_EQ(aclmdlRICaptureTaskUpdateBegin(updater, task), ACL_SUCCESS);
  ASSERT_EQ(aclsim::launch(updater, addScalar, argsOf(buf, 5, 4)),
            ACL_SUCCESS);
  ASSERT_EQ(aclmdlRICaptureTaskUpdateEnd(updater), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIExecuteAsync(graph, stream), ACL_SUCCESS);
  EXPECT_EQ(buf[3], 6.0f);
  // Errors of the runtime come back as they are.
  EXPECT_NE(aclmdlRICaptureTaskUpdateEnd(updater), ACL_SUCCESS);
  EXPECT_EQ(aclmdlRIDestroy(graph), ACL_SUCCESS);
  EXPECT_NE(aclmdlRIExecuteAsync(graph, stream), ACL_SUCCESS);
  aclsim::release(buf);
  EXPECT_EQ(seen.found, Found{});
}

// The bug with only allocator-trace blocks: the sim's graph pool hands the
// freed workspace to the next allocation of the same capture.
TEST_F(InterposerTest, ReportsWorkspaceReuseSeenThroughTheAllocatorTrace) {
  ASSERT_EQ(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
            ACL_SUCCESS);
  void *ws = aclsim::allocate(1024, stream);
  tether_verify_workspace(0, stream, 0, 99, ws, 1024, 1024);
  capturedTask(ws, 1024, 1);
  aclsim::release(ws);
  EXPECT_EQ(seen.found, Found{});
  void *x = aclsim::allocate(1024, stream);
  ASSERT_EQ(x, ws) << "the graph pool should reuse the freed block";
  ASSERT_EQ(seen.found,
            Found{"tether-weak-ref-before-capture-end/reused"});
  EXPECT_NE(seen.json[0].find("\"key\": 99"), std::string::npos);
  aclsim::release(x);
  aclmdlRI graph = nullptr;
  ASSERT_EQ(aclmdlRICaptureEnd(stream, &graph), ACL_SUCCESS);
  EXPECT_EQ(aclmdlRIDestroy(graph), ACL_SUCCESS);
  EXPECT_EQ(seen.found.size(), 1u);
}

TEST_F(InterposerTest, WorkspaceReleasedAfterCaptureEndIsClean) {
  ASSERT_EQ(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
            ACL_SUCCESS);
  void *ws = aclsim::allocate(1024, stream);
  tether_verify_workspace(0, stream, 0, 98, ws, 1024, 1024);
  capturedTask(ws, 1024, 1);
  void *x = aclsim::allocate(1024, stream);
  aclmdlRI graph = nullptr;
  ASSERT_EQ(aclmdlRICaptureEnd(stream, &graph), ACL_SUCCESS);
  aclsim::release(ws); // back to the graph's pool, not to eager code
  void *eager = aclsim::allocate(1024, stream);
  EXPECT_NE(eager, ws);
  ASSERT_EQ(aclmdlRIExecuteAsync(graph, stream), ACL_SUCCESS);
  aclsim::release(eager);
  aclsim::release(x);
  EXPECT_EQ(aclmdlRIDestroy(graph), ACL_SUCCESS);
  EXPECT_EQ(seen.found, Found{});
}

// Memory from the default pool baked into a task, dropped after capture and
// taken by eager code: reported at replay, before the launch.
TEST_F(InterposerTest, ReplayReportsOutOfPoolInputFreedWhileTheGraphLives) {
  void *in = aclsim::allocate(2048, stream);
  ASSERT_EQ(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
            ACL_SUCCESS);
  capturedTask(in, 2048, 1);
  aclmdlRI graph = nullptr;
  ASSERT_EQ(aclmdlRICaptureEnd(stream, &graph), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIExecuteAsync(graph, stream), ACL_SUCCESS);
  EXPECT_EQ(seen.found, Found{});
  aclsim::release(in);
  void *other = aclsim::allocate(2048, stream);
  ASSERT_EQ(other, in);
  ASSERT_EQ(aclmdlRIExecuteAsync(graph, stream), ACL_SUCCESS);
  EXPECT_EQ(seen.found, Found{kOutOfPool});
  aclsim::release(other);
  EXPECT_EQ(aclmdlRIDestroy(graph), ACL_SUCCESS);
}

// An update that leaves the stale argument in place is checked at its end,
// through the task group handle the interposer mapped at capture.
TEST_F(InterposerTest, TaskUpdateThatKeepsADeadInputIsReportedAtItsEnd) {
  void *in = aclsim::allocate(3072, stream);
  ASSERT_EQ(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
            ACL_SUCCESS);
  aclrtTaskGrp task = capturedTask(in, 3072, 1);
  aclmdlRI graph = nullptr;
  ASSERT_EQ(aclmdlRICaptureEnd(stream, &graph), ACL_SUCCESS);
  aclsim::release(in);
  void *other = aclsim::allocate(3072, stream);
  ASSERT_EQ(other, in);
  ASSERT_EQ(aclmdlRICaptureTaskUpdateBegin(updater, task), ACL_SUCCESS);
  ASSERT_EQ(aclsim::launch(updater, addScalar, argsOf(in, 2, 4)),
            ACL_SUCCESS);
  EXPECT_EQ(seen.found, Found{});
  ASSERT_EQ(aclmdlRICaptureTaskUpdateEnd(updater), ACL_SUCCESS);
  ASSERT_EQ(seen.found, Found{kOutOfPool});
  EXPECT_NE(seen.json[0].find("at task update"), std::string::npos);
  aclsim::release(other);
  EXPECT_EQ(aclmdlRIDestroy(graph), ACL_SUCCESS);
}

} // namespace
