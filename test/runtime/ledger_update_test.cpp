// tether-graph-memory-dies-before-replay at run time: memory from outside
// the graph's pool that a task reads (bound by a task update, or read by a
// captured task) dies while the graph can still replay it. Reported at the
// replay (or at a task update that keeps the dead argument), with the
// binding, the allocation and the free in the story.
#include "ledger_fixture.h"

namespace tether::rt::test {
namespace {

const std::string kUpdate =
    std::string(check::GraphMemoryDiesBeforeReplay) + "/update-buffer-freed";
const std::string kOutOfPool =
    std::string(check::GraphMemoryDiesBeforeReplay) + "/out-of-pool-freed";
constexpr uintptr_t U = 0x40000;  // a buffer allocated for a task update
constexpr uintptr_t In = 0x80000; // a runner input allocated before capture

class UpdateTest : public LedgerTest {
protected:
  // A graph of `tasks` task groups over the captured workspace W.
  uint64_t captureTasks(int tasks, std::vector<uint64_t> *ids) {
    uint64_t g = begin();
    alloc(W, KB, 0);
    for (int l = 0; l < tasks; ++l)
      ids->push_back(taskGroup(W, KB, l));
    end();
    return g;
  }
  // vLLM Ascend's _update_attn_pa_params: a fresh buffer per update, on the
  // update stream, outside every pool.
  void update(uint64_t task, uintptr_t buf, int32_t layer) {
    L.taskUpdateBegin(S2, task);
    uses(buf, KB, layer, 0, S2);
    L.taskUpdateEnd(S2, out);
  }
};

TEST_F(UpdateTest, UpdateBufferFreedBeforeReplayIsReportedWithBothSites) {
  std::vector<uint64_t> t;
  uint64_t g = captureTasks(1, &t);
  alloc(U, KB, 2, S2, 0);
  update(t[0], U, 2);
  EXPECT_EQ(found(), Found{});
  free(U, 2); // the update's local dies
  EXPECT_EQ(found(), Found{}); // the task may still be re-pointed
  L.replay(g, out);
  ASSERT_EQ(found(), Found{kUpdate});
  const Violation &v = out[0];
  EXPECT_EQ(v.graph, g);
  EXPECT_EQ(v.layer, 2);
  EXPECT_EQ(v.begin, U);
  EXPECT_TRUE(storyHas(v, EventKind::TaskUse, U, 2)); // where it was bound
  EXPECT_TRUE(storyHas(v, EventKind::Free, U, 2));    // where it died
  EXPECT_TRUE(storyHas(v, EventKind::Alloc, U, 2));
  EXPECT_NE(v.message.find("freed before the replay"), std::string::npos);
  EXPECT_NE(v.message.find("task update"), std::string::npos);
}

// The buffer goes back to the cache and the next layer's update gets it:
// both tasks now share one block. One report per task, not per replay.
TEST_F(UpdateTest, BufferReusedByTheNextUpdateIsReportedOncePerTask) {
  std::vector<uint64_t> t;
  uint64_t g = captureTasks(2, &t);
  for (int step = 0; step < 3; ++step) {
    alloc(U, KB, 0, S2, 0);
    update(t[0], U, 0);
    free(U, 0);
    alloc(U, KB, 1, S2, 0); // the same block, layer 1's buffer now
    update(t[1], U, 1);
    free(U, 1);
    L.replay(g, out);
  }
  ASSERT_EQ(found(), (Found{kUpdate, kUpdate}));
  EXPECT_EQ(out[0].layer, 0);
  EXPECT_EQ(out[1].layer, 1);
  // Layer 0's story names the allocation that took its buffer.
  EXPECT_TRUE(storyHas(out[0], EventKind::Alloc, U, 1));
}

// The fix: the update's buffers live in a structure that lives as long as
// the graph, replaced only after the task points at the new one.
TEST_F(UpdateTest, BufferKeptWithTheGraphIsSilent) {
  std::vector<uint64_t> t;
  uint64_t g = captureTasks(1, &t);
  alloc(U, KB, 0, S2, 0);
  update(t[0], U, 0);
  L.replay(g, out);
  alloc(U + 4 * KB, KB, 0, S2, 0);
  update(t[0], U + 4 * KB, 0);
  free(U); // the previous step's buffer, no longer bound
  L.replay(g, out);
  L.graphDestroy(g);
  free(U + 4 * KB); // the graph is gone
  EXPECT_EQ(found(), Found{});
}

// A clean update lets the replay skip the task's pins; a free of a bound
// block must undo that, as an allocation does.
TEST_F(UpdateTest, FreeAfterACleanReplayIsSeenAtTheNextReplay) {
  std::vector<uint64_t> t;
  uint64_t g = captureTasks(1, &t);
  alloc(U, KB, 0, S2, 0);
  update(t[0], U, 0);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
  free(U);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{kUpdate});
}

// The vLLM Ascend fix reuses the workspace captured with the graph: memory
// of the graph's pool is the graph's to keep.
TEST_F(UpdateTest, UpdateWithTheCapturedWorkspaceIsSilent) {
  std::vector<uint64_t> t;
  uint64_t g = captureTasks(1, &t);
  update(t[0], W, 0);
  free(W);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

// Many correct steps (each freeing the buffer it just replaced) must not
// crowd out the free a later report needs.
TEST_F(UpdateTest, ManyReplacedBuffersKeepTheSiteOfALaterDeath) {
  std::vector<uint64_t> t;
  uint64_t g = captureTasks(1, &t);
  uintptr_t prev = 0;
  for (int step = 0; step < 3000; ++step) {
    uintptr_t buf = U + (step % 2) * 4 * KB;
    alloc(buf, KB, 0, S2, 0);
    update(t[0], buf, 0);
    if (prev)
      free(prev);
    L.replay(g, out);
    prev = buf;
  }
  EXPECT_EQ(found(), Found{});
  free(prev, 7);
  L.replay(g, out);
  ASSERT_EQ(found(), Found{kUpdate});
  EXPECT_TRUE(storyHas(out[0], EventKind::Free, prev, 7));
  EXPECT_NE(out[0].message.find("freed before the replay"), std::string::npos);
}

TEST_F(UpdateTest, OutOfPoolInputFreedWhileTheGraphLivesIsReported) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  alloc(W, KB, 0); // the capture's own memory names its pool
  taskGroup(W, KB, 1);
  end();
  free(In, 5);
  L.replay(g, out);
  ASSERT_EQ(found(), Found{kOutOfPool});
  const Violation &v = out[0];
  EXPECT_EQ(v.begin, In);
  EXPECT_EQ(v.layer, 0);
  EXPECT_TRUE(storyHas(v, EventKind::TaskUse, In, 0));
  EXPECT_TRUE(storyHas(v, EventKind::Free, In, 5));
  EXPECT_NE(v.message.find("while the graph lives"), std::string::npos);
}

TEST_F(UpdateTest, OutOfPoolInputFreedDuringTheCaptureIsReportedAtReplay) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  free(In);
  end();
  EXPECT_EQ(found(), Found{});
  L.replay(g, out);
  EXPECT_EQ(found(), Found{kOutOfPool});
}

TEST_F(UpdateTest, InputKeptUntilTheGraphIsDestroyedIsSilent) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  end();
  L.replay(g, out);
  L.graphDestroy(g);
  free(In);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

TEST_F(UpdateTest, InputFreedAfterTheLastReplayAndDestroyIsSilent) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  end();
  L.replay(g, out);
  free(In); // dropped, and the graph with it before any replay
  L.graphDestroy(g);
  EXPECT_EQ(found(), Found{});
}

// Activations: allocated by the capture, freed in it; the pool keeps them.
TEST_F(UpdateTest, MemoryOfTheCaptureIsSilent) {
  uint64_t g = begin();
  alloc(W, KB, 0, S, 0);
  taskGroup(W, KB, 0);
  free(W);
  end();
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

// A block allocated before the capture but from the pool the capture then
// uses (graphs sharing one pool) is the pool's, not an outside input.
TEST_F(UpdateTest, BlockOfTheGraphsPoolAllocatedEarlierIsSilent) {
  alloc(In, KB, -1, S, Pool);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  alloc(W, KB, 0); // names the graph's pool: Pool
  end();
  free(In);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

} // namespace
} // namespace tether::rt::test
