//===- TemporariesTest.cpp - Where temporaries stop being read ------------===//
#include "engine/Builder.h"
#include "engine/Temporaries.h"

#include "gtest/gtest.h"

using namespace tether::engine;

namespace {

using Ends = std::vector<std::pair<uint32_t, VarId>>;

TEST(TemporariesTest, ATemporaryEndsAfterItsLastReadInItsBlock) {
  Function F;
  FunctionBuilder B(F);
  VarId X = B.var("x");
  VarId T1 = B.var(), T2 = B.var();
  B.emit(Op::Alloc, {}).Dst = T1;   // 0: t1 = alloc
  Inst &W = B.emit(Op::WeakRef, {}); // 1: t2 = weak(t1)
  W.Dst = T2;
  W.A = T1;
  Inst &C = B.emit(Op::Copy, {}); // 2: x = t2
  C.Dst = X;
  C.A = T2;
  B.finish();
  TemporaryEnds E = temporaryEnds(F);
  EXPECT_EQ(E.AfterInst[0], (Ends{{1, T1}, {2, T2}}));
  EXPECT_TRUE(E.AfterTerm[0].empty());
}

TEST(TemporariesTest, NamedLocalsAndParametersNeverEnd) {
  Function F;
  FunctionBuilder B(F);
  VarId P = B.param("p");
  VarId X = B.var("x");
  Inst &C = B.emit(Op::Copy, {});
  C.Dst = X;
  C.A = P;
  B.finish();
  EXPECT_TRUE(temporaryEnds(F).AfterInst[0].empty());
}

TEST(TemporariesTest, ABranchConditionEndsOnTheOutEdges) {
  Function F;
  FunctionBuilder B(F);
  VarId T = B.var();
  Inst &Te = B.emit(Op::Test, {});
  Te.Dst = T;
  Te.Test = TestKind::CapturePredicate;
  uint32_t Yes = B.block(), No = B.block();
  B.branch(T, Yes, No, {});
  B.setBlock(Yes);
  B.finish();
  TemporaryEnds E = temporaryEnds(F);
  EXPECT_TRUE(E.AfterInst[0].empty());
  EXPECT_EQ(E.AfterTerm[0], std::vector<VarId>{T});
}

TEST(TemporariesTest, OneDefinedOnTwoBranchesAndReadWhereTheyMeetStays) {
  // `y = a if c else b`: the value temporary is defined in both arms.
  Function F;
  FunctionBuilder B(F);
  VarId C = B.param("c");
  VarId Y = B.var("y");
  VarId V = B.var();
  uint32_t Then = B.block(), Else = B.block(), Join = B.block();
  B.branch(C, Then, Else, {});
  B.setBlock(Then);
  B.emit(Op::Alloc, {}).Dst = V;
  B.jump(Join);
  B.setBlock(Else);
  B.emit(Op::Null, {}).Dst = V;
  B.jump(Join);
  B.setBlock(Join);
  Inst &Cp = B.emit(Op::Copy, {});
  Cp.Dst = Y;
  Cp.A = V;
  B.finish();
  TemporaryEnds E = temporaryEnds(F);
  for (const auto &L : E.AfterInst)
    EXPECT_TRUE(L.empty());
}

TEST(TemporariesTest, OneReadBeforeItIsDefinedInItsBlockStays) {
  // A loop body that reads what its last iteration left (t = f(t)).
  Function F;
  FunctionBuilder B(F);
  VarId T = B.var();
  uint32_t Loop = B.block();
  B.jump(Loop);
  B.setBlock(Loop);
  Inst &Cp = B.emit(Op::Copy, {});
  Cp.Dst = T;
  Cp.A = T;
  B.jump(Loop);
  B.finish();
  EXPECT_TRUE(temporaryEnds(F).AfterInst[Loop].empty());
}

} // namespace
