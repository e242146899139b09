//===- LoopOrderTest.cpp - The worklist's order keeps loops contiguous ----===//
#include "engine/LoopOrder.h"

#include "gtest/gtest.h"
#include <algorithm>

using namespace tether::engine;

namespace {

/// A function of N blocks; edges are set by the helpers below.
Function blocks(uint32_t N) {
  Function F;
  F.Blocks.resize(N); // every terminator a Return until set
  return F;
}
void jump(Function &F, uint32_t From, uint32_t To) {
  F.Blocks[From].Term.Kind = Terminator::Goto;
  F.Blocks[From].Term.Succ[0] = To;
}
void branch(Function &F, uint32_t From, uint32_t Yes, uint32_t No) {
  F.Blocks[From].Term.Kind = Terminator::Branch;
  F.Blocks[From].Term.Succ[0] = Yes;
  F.Blocks[From].Term.Succ[1] = No;
}

size_t at(const std::vector<uint32_t> &Order, uint32_t B) {
  return std::find(Order.begin(), Order.end(), B) - Order.begin();
}

TEST(LoopOrderTest, LoopsInSequenceEachComeWholeBeforeTheNext) {
  // entry -> loop 1 (head 1, body 2, exit 3) -> loop 2 (head 3, body 4,
  // exit 5). A depth-first walk that enters each body first puts every
  // body after all that follows its loop in reverse post-order.
  Function F = blocks(6);
  jump(F, 0, 1);
  branch(F, 1, 2, 3);
  jump(F, 2, 1);
  branch(F, 3, 4, 5);
  jump(F, 4, 3);
  EXPECT_EQ(loopOrder(F), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(LoopOrderTest, ABodyOnTheSecondEdgeStillFollowsItsHead) {
  // The head's taken edge leaves the loop; its other edge is the body.
  Function F = blocks(4);
  jump(F, 0, 1);
  branch(F, 1, 3, 2);
  jump(F, 2, 1);
  EXPECT_EQ(loopOrder(F), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(LoopOrderTest, ANestedLoopIsContiguousInsideItsOuterLoop) {
  // Outer head 1 (exit 6); inner head 2 with body 3 and exit 4; latch 4
  // back to 1; a block 5 after the inner loop inside the outer one.
  Function F = blocks(7);
  jump(F, 0, 1);
  branch(F, 1, 2, 6);
  branch(F, 2, 3, 4);
  jump(F, 3, 2);
  jump(F, 4, 5);
  jump(F, 5, 1);
  std::vector<uint32_t> O = loopOrder(F);
  ASSERT_EQ(O.size(), 7u);
  EXPECT_EQ(O.front(), 0u);
  EXPECT_EQ(O.back(), 6u);
  EXPECT_EQ(at(O, 1), 1u);          // the outer head first in its loop
  EXPECT_EQ(at(O, 3), at(O, 2) + 1); // the inner body right after its head
  EXPECT_LT(at(O, 3), at(O, 4));     // the inner loop whole before its exit
  EXPECT_LT(at(O, 4), at(O, 5));
}

TEST(LoopOrderTest, SelfLoopsIrreducibleLoopsAndUnreachableBlocks) {
  // 1 loops on itself; 2 and 3 enter each other, each reached from 1
  // (a loop with two entries); 5 is unreachable.
  Function F = blocks(6);
  jump(F, 0, 1);
  branch(F, 1, 1, 2);
  branch(F, 2, 3, 4);
  branch(F, 3, 2, 4);
  jump(F, 5, 1);
  std::vector<uint32_t> O = loopOrder(F);
  std::vector<uint32_t> Sorted = O;
  std::sort(Sorted.begin(), Sorted.end());
  EXPECT_EQ(Sorted, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(O.front(), 0u);
  EXPECT_EQ(O.back(), 4u);
}

TEST(LoopOrderTest, DeepNestingNeedsNoRecursion) {
  // 1,000 loops nested in each other: heads 0..K-1 enter the next, the
  // latches K..2K-1 go back to their head or out to the enclosing latch.
  const uint32_t K = 1000;
  Function F = blocks(2 * K + 1);
  for (uint32_t I = 0; I + 1 < K; ++I)
    jump(F, I, I + 1);
  jump(F, K - 1, 2 * K - 1);
  for (uint32_t I = 0; I < K; ++I)
    branch(F, K + I, I, I == 0 ? 2 * K : K + I - 1);
  std::vector<uint32_t> O = loopOrder(F);
  ASSERT_EQ(O.size(), size_t(2 * K + 1));
  for (uint32_t I = 0; I < K; ++I)
    EXPECT_EQ(O[I], I) << "heads, outermost first";
  EXPECT_EQ(O.back(), 2 * K);
}

TEST(LoopOrderTest, AnEmptyFunctionHasNoOrder) {
  EXPECT_TRUE(loopOrder(Function()).empty());
}

} // namespace
