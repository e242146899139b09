// At replay or task update: a range baked into a task now owned by a live
// block outside the graph and its pool. Memory the capture allocated (no pool
// id given, so the graph's pool is unknown) is the weak-ref check's road; a
// block allocated before the capture that dies is graph-memory-dies-before-
// replay's (ledger_update_test.cpp).
#include "ledger_fixture.h"

namespace tether::rt::test {
static const std::string kTaken =
    std::string(check::WeakRefBeforeCaptureEnd) + "/pinned-range-taken";
static const std::string kOutOfPool =
    std::string(check::GraphMemoryDiesBeforeReplay) + "/out-of-pool-freed";
static constexpr uintptr_t In = 0x80000; // a static input allocated before capture

namespace {

TEST_F(LedgerTest, PinnedRangeTakenByEagerBlockIsReportedAtReplay) {
  uint64_t g = begin();
  alloc(W, KB, 0, S, 0);
  taskGroup(W, KB, 0);
  end();
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
  free(W);                // dropped after capture...
  alloc(W, KB, 9, S2, 0); // ...and taken by eager code
  L.replay(g, out);
  ASSERT_EQ(found(), Found{kTaken});
  EXPECT_EQ(out[0].graph, g);
  EXPECT_EQ(out[0].layer, 0);
  EXPECT_TRUE(storyHas(out[0], EventKind::Alloc, W, 9));
  L.replay(g, out); // reported once per pin
  EXPECT_EQ(out.size(), 1u);
}

// A replay skips pins checked since the last allocation (the task updates
// just before it checked them); an allocation in between must undo that.
TEST_F(LedgerTest, RangeTakenAfterACleanTaskUpdateIsReportedAtReplay) {
  uint64_t g = begin();
  alloc(W, KB, 0, S, 0);
  uint64_t task = taskGroup(W, KB, 0);
  end();
  L.taskUpdateBegin(S2, task);
  uses(W, KB, 0, 0, S2);
  L.taskUpdateEnd(S2, out);
  L.replay(g, out); // checked clean by the update: skipped
  EXPECT_EQ(found(), Found{});
  free(W);
  L.replay(g, out); // freed only: nobody owns the range yet
  EXPECT_EQ(found(), Found{});
  alloc(W, KB, 9, S2, 0);
  L.replay(g, out);
  ASSERT_EQ(found(), Found{kTaken});
}

// The same sequence over a runner input (allocated before the capture): its
// death is the violation, whoever takes the range; reported once, as the
// other check, never as both.
TEST_F(LedgerTest, OutOfPoolInputFreedAndTakenIsReportedOnceAtReplay) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  end();
  free(In);
  alloc(In, KB, 9, S2, 0);
  L.replay(g, out);
  ASSERT_EQ(found(), Found{kOutOfPool});
  EXPECT_TRUE(storyHas(out[0], EventKind::Alloc, In, 9)); // the taker
  L.replay(g, out);
  EXPECT_EQ(out.size(), 1u);
}

TEST_F(LedgerTest, RangeReusedWithinTheGraphPoolIsCleanAtReplay) {
  uint64_t g = begin();
  alloc(W, KB, 0);
  taskGroup(W, KB, 0);
  end();
  free(W);
  alloc(W, KB, 3, S2, Pool); // another capture sharing the pool
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

TEST_F(LedgerTest, PinnedRangeTakenIsReportedAtTaskUpdate) {
  begin();
  alloc(W, KB, 0, S, 0);
  uint64_t task = taskGroup(W, KB, 0);
  end();
  free(W);
  alloc(W, KB, 9, S2, 0);
  L.taskUpdateBegin(S2, task);
  L.taskUpdateEnd(S2, out); // the update kept the stale argument
  ASSERT_EQ(found(), Found{kTaken});
  EXPECT_NE(out[0].message.find("task update"), std::string::npos);
}

TEST_F(LedgerTest, OutOfPoolInputKeptByAnUpdateIsReportedAtItsEnd) {
  alloc(In, KB, -1, S, 0);
  begin();
  uint64_t task = taskGroup(In, KB, 0);
  end();
  free(In);
  L.taskUpdateBegin(S2, task);
  L.taskUpdateEnd(S2, out); // the update kept the dead argument
  ASSERT_EQ(found(), Found{kOutOfPool});
  EXPECT_NE(out[0].message.find("at task update"), std::string::npos);
}

TEST_F(LedgerTest, TaskUpdateThatRepointsTheArgumentIsClean) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  uint64_t task = taskGroup(In, KB, 0);
  end();
  free(In);
  alloc(In, KB, 9, S2, 0);
  alloc(In + 8 * KB, KB, 9, S2, 0);
  L.taskUpdateBegin(S2, task);
  uses(In + 8 * KB, KB, 0, 0, S2);
  L.taskUpdateEnd(S2, out);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

TEST_F(LedgerTest, DestroyedGraphReleasesItsPins) {
  alloc(In, KB, -1, S, 0);
  uint64_t g = begin();
  taskGroup(In, KB, 0);
  end();
  L.graphDestroy(g);
  free(In);
  alloc(In, KB, 9, S2, 0);
  L.replay(g, out);
  EXPECT_EQ(found(), Found{});
}

} // namespace
} // namespace tether::rt::test

namespace tether::rt::test {
namespace {

// vLLM Ascend's update path passes attn_params' weak aliases: if the source
// died after capture and eager code took the range, the update re-points the
// task at foreign memory.
TEST_F(LedgerTest, UpdateThroughAliasOfDeadBlockIsReported) {
  alloc(In, KB, -1, S, 0);
  begin();
  uint64_t task = taskGroup(In, KB, 0, 0xA);
  L.weakRef(0xA, 0xB, In, KB, 0, out);
  end();
  free(In);
  alloc(In, KB, 9, S2, 0);
  L.taskUpdateBegin(S2, task);
  uses(In, KB, 0, 0xB, S2);
  ASSERT_EQ(found(), Found{kTaken});
  L.taskUpdateEnd(S2, out);
  EXPECT_EQ(out.size(), 1u);
}

} // namespace
} // namespace tether::rt::test
