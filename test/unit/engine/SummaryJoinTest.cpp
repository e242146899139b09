//===- SummaryJoinTest.cpp - Rounds of a recursive component only ascend --===//
#include "engine/SummaryJoin.h"

#include "gtest/gtest.h"

using namespace tether::engine;

namespace {

SrcLoc L(uint32_t Line) { return SrcLoc{0, Line, 1}; }

struct Places {
  MemTable M;
  MemId P0 = M.root(RootKind::Param, 0, 0);
  MemId P0x = M.child(P0, M.str("x"));
  MemId P0xy = M.child(P0x, M.str("y"));
  MemId P1 = M.root(RootKind::Param, 0, 1);
};

StoreEffect store(MemId Place, Value V, uint32_t Line) {
  StoreEffect E;
  E.Place = Place;
  E.V = std::move(V);
  E.At = L(Line);
  return E;
}

Value of(std::initializer_list<MemId> Ms) {
  Value V;
  for (MemId M : Ms)
    V.add(Atom::mem(M));
  return V;
}

TEST(SummaryJoinTest, OneEffectPerSiteWithTheValuesJoined) {
  Places Pl;
  Summary Into;
  Into.Stores.push_back(store(Pl.P1, of({Pl.P0}), 3));
  Summary New;
  New.Stores.push_back(store(Pl.P1, of({Pl.P0x}), 3)); // same site
  New.Stores.push_back(store(Pl.P1, of({Pl.P0}), 4));  // another site
  EXPECT_TRUE(joinSummary(Into, std::move(New), Pl.M, false));
  ASSERT_EQ(Into.Stores.size(), 2u);
  EXPECT_EQ(Into.Stores[0].V, of({Pl.P0, Pl.P0x}));
  EXPECT_EQ(Into.Stores[1].V, of({Pl.P0}));
}

TEST(SummaryJoinTest, WhatIsAlreadyThereIsNoGrowth) {
  Places Pl;
  Summary Into;
  Into.Returns = of({Pl.P0, Pl.P0x});
  Into.Stores.push_back(store(Pl.P1, of({Pl.P0}), 3));
  Into.Escapes.push_back(Pl.P0);
  Summary New;
  New.Returns = of({Pl.P0x});
  New.Stores.push_back(store(Pl.P1, of({Pl.P0}), 3));
  New.Escapes.push_back(Pl.P0);
  EXPECT_FALSE(joinSummary(Into, std::move(New), Pl.M, false));
  // A round that finds less than the last keeps the last: a join, not a
  // replacement (the widening of a large value used to shrink it, and the
  // next round grew it back, forever).
  Summary Less;
  EXPECT_FALSE(joinSummary(Into, std::move(Less), Pl.M, false));
  EXPECT_EQ(Into.Returns, of({Pl.P0, Pl.P0x}));
  EXPECT_EQ(Into.Stores.size(), 1u);
}

TEST(SummaryJoinTest, ShallowRoundsKeepPlacesNearTheirRoot) {
  Places Pl;
  Summary Into;
  Into.Returns = of({Pl.P0xy});
  Summary New;
  New.Returns = of({Pl.P0x, Pl.P0xy});
  New.Uses.push_back(UseEffect{of({Pl.P0xy}), L(5), "t", CaptureState(), -1});
  EXPECT_TRUE(joinSummary(Into, std::move(New), Pl.M, true));
  Value Want = of({Pl.P0x});
  Want.add(Atom::unknown());
  EXPECT_EQ(Into.Returns, Want);
  ASSERT_EQ(Into.Uses.size(), 1u);
  EXPECT_TRUE(Into.Uses[0].V.has(Atom::Unknown));
  EXPECT_FALSE(Into.Uses[0].V.has(Atom::Mem));
  // Once shallow, the same deep places again are nothing new.
  Summary Again;
  Again.Returns = of({Pl.P0xy});
  EXPECT_FALSE(joinSummary(Into, std::move(Again), Pl.M, true));
}

} // namespace
