// The ledger's block index on its own: exact and interior lookups in every
// size class, bucket overflow, replacement, range erasure and table growth,
// checked against a plain reference model.
#include "block_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace tether::rt {
namespace {

Block blk(uint64_t size, uint64_t seq) {
  Block b{};
  b.size = size;
  b.seq = seq;
  return b;
}

// The reference answer: the live block whose range contains p.
const std::pair<const uintptr_t, uint64_t> *
refOwner(const std::map<uintptr_t, uint64_t> &ref, uintptr_t p) {
  auto it = ref.upper_bound(p);
  if (it == ref.begin())
    return nullptr;
  --it;
  return p - it->first < it->second ? &*it : nullptr;
}

TEST(BlockIndexTest, FindsExactAndInteriorPointersInEveryClass) {
  BlockIndex ix;
  // One block per size class and the map, with gaps between them.
  const uint64_t sizes[] = {64,        512,        4096,      32768,
                            300000,    2u << 20,   20u << 20, 100u << 20,
                            512u << 20};
  uintptr_t at = uintptr_t{1} << 36;
  uint64_t seq = 1;
  for (uint64_t s : sizes) {
    ix.insert(at + 8, blk(s, seq++)); // deliberately unaligned
    uintptr_t b = 0;
    Block *first = ix.owner(at + 8, &b);
    ASSERT_NE(first, nullptr) << s;
    EXPECT_EQ(b, at + 8);
    Block *last = ix.owner(at + 8 + s - 1, &b);
    ASSERT_NE(last, nullptr) << s;
    EXPECT_EQ(last->size, s);
    EXPECT_EQ(b, at + 8);
    EXPECT_EQ(ix.owner(at + 8 + s, &b), nullptr) << s;
    EXPECT_EQ(ix.owner(at + 7, &b), nullptr) << s;
    at += 2 * s + (uintptr_t{1} << 30);
  }
  EXPECT_EQ(ix.size(), std::size(sizes));
}

TEST(BlockIndexTest, TinyBlocksOverflowingABucketStayFindable) {
  BlockIndex ix;
  const uintptr_t base = 0x100000;
  for (uint64_t i = 0; i < 40; ++i) // 40 blocks of 8 B in one 4 KiB page
    ix.insert(base + 8 * i, blk(8, i + 1));
  for (uint64_t i = 0; i < 40; ++i) {
    uintptr_t b = 0;
    Block *x = ix.owner(base + 8 * i + 5, &b);
    ASSERT_NE(x, nullptr) << i;
    EXPECT_EQ(x->seq, i + 1);
  }
  Block gone;
  for (uint64_t i = 0; i < 40; i += 2)
    ASSERT_TRUE(ix.erase(base + 8 * i, &gone));
  uintptr_t b = 0;
  EXPECT_EQ(ix.owner(base + 3, &b), nullptr);
  ASSERT_NE(ix.owner(base + 8 + 3, &b), nullptr);
  EXPECT_EQ(ix.size(), 20u);
}

TEST(BlockIndexTest, ReplacingARecordMovesItBetweenClasses) {
  BlockIndex ix;
  ix.insert(0x40000, blk(512, 1));
  ix.insert(0x40200, blk(512, 3));
  ix.insert(0x40000, blk(1 << 20, 2)); // the free of the first was missed
  EXPECT_EQ(ix.size(), 2u);
  uintptr_t b = 0;
  Block *x = ix.owner(0x40000 + (1 << 19), &b);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->seq, 2u);
  Block gone;
  ASSERT_TRUE(ix.erase(0x40000, &gone));
  EXPECT_EQ(gone.seq, 2u);
  EXPECT_EQ(ix.owner(0x40000 + 100, &b), nullptr);
  EXPECT_FALSE(ix.erase(0x40000, &gone));
  ASSERT_NE(ix.owner(0x40200 + 100, &b), nullptr); // its neighbour stayed
  EXPECT_EQ(b, 0x40200u);
}

TEST(BlockIndexTest, EraseRangeDropsOnlyBlocksStartingInside) {
  BlockIndex ix;
  const uintptr_t seg = uintptr_t{1} << 32;
  ix.insert(seg - 512, blk(1024, 1)); // starts before, reaches in
  ix.insert(seg, blk(4096, 2));
  ix.insert(seg + 8192, blk(512, 3));
  ix.insert(seg + (1 << 20), blk(3 << 20, 4));
  ix.insert(seg + (2 << 20), blk(512, 5)); // first byte after the range
  ix.eraseRange(seg, 2 << 20);
  EXPECT_EQ(ix.size(), 2u);
  uintptr_t b = 0;
  ASSERT_NE(ix.owner(seg + 100, &b), nullptr); // block 1's tail
  EXPECT_EQ(b, seg - 512);
  EXPECT_EQ(ix.owner(seg + 8192, &b), nullptr);
  ASSERT_NE(ix.owner(seg + (2 << 20), &b), nullptr);
}

// Random churn across classes and table growth, against the reference.
TEST(BlockIndexTest, MatchesAReferenceUnderRandomChurn) {
  BlockIndex ix;
  std::map<uintptr_t, uint64_t> ref;
  std::mt19937_64 rng(7);
  const uintptr_t base = uintptr_t{1} << 40;
  // Non-overlapping slots of 1 MiB, each holding at most one block.
  for (int step = 0; step < 60000; ++step) {
    uintptr_t slot = base + (rng() % 20000) * (uintptr_t{1} << 20);
    auto it = ref.find(slot);
    if (it == ref.end()) {
      uint64_t size = 1 + rng() % (uint64_t{1} << (1 + rng() % 20));
      ix.insert(slot, blk(size, static_cast<uint64_t>(step) + 1));
      ref.emplace(slot, size);
    } else {
      Block gone;
      ASSERT_TRUE(ix.erase(slot, &gone));
      EXPECT_EQ(gone.size, it->second);
      ref.erase(it);
    }
    if (step % 64 == 0) {
      uintptr_t p = base + rng() % (uint64_t{20000} << 20);
      uintptr_t b = 0;
      Block *got = ix.owner(p, &b);
      auto want = refOwner(ref, p);
      ASSERT_EQ(got != nullptr, want != nullptr) << std::hex << p;
      if (got) {
        EXPECT_EQ(b, want->first);
        EXPECT_EQ(got->size, want->second);
      }
    }
  }
  EXPECT_EQ(ix.size(), ref.size());
}

// A caching allocator splits and merges blocks inside its segments, so block
// starts move and the starts a free leaves in their buckets go stale for
// good. Lookups must never see them, a full bucket must make room by dropping
// them, and a sweep must keep their number proportional to the live set.
TEST(BlockIndexTest, StaleStartsOfSplitAndMergedBlocksStayInvisibleAndBounded) {
  BlockIndex ix;
  std::map<uintptr_t, uint64_t> ref;
  // The segment tiled into free and live pieces: start -> (size, live).
  std::map<uintptr_t, std::pair<uint64_t, bool>> tiles;
  const uintptr_t seg = uintptr_t{1} << 36;
  const uint64_t segSize = uint64_t{64} << 20;
  tiles[seg] = {segSize, false};
  std::mt19937_64 rng(11);
  size_t maxEntries = 0, maxLive = 0;
  for (int step = 0; step < 200000; ++step) {
    auto it = tiles.upper_bound(seg + rng() % segSize);
    --it;
    auto &[size, live] = it->second;
    const uintptr_t at = it->first;
    if (live) {
      Block gone;
      ASSERT_TRUE(ix.erase(at, &gone));
      ASSERT_EQ(gone.size, size);
      ref.erase(at);
      live = false;
    } else {
      // Merge with a free successor, then take a piece, leaving the rest
      // free: the next block starting here may be of another size.
      auto next = std::next(it);
      if (next != tiles.end() && !next->second.second) {
        size += next->second.first;
        tiles.erase(next);
      }
      uint64_t want = 512 * (1 + rng() % (rng() % 4 == 0 ? 4096 : 32));
      if (want < size) {
        tiles[at + want] = {size - want, false};
        size = want;
      }
      ix.insert(at, blk(size, static_cast<uint64_t>(step) + 1));
      ref[at] = size;
      live = true;
    }
    maxEntries = std::max(maxEntries, ix.bucketEntries());
    maxLive = std::max(maxLive, ix.size());
    if (step % 16 == 0) {
      uintptr_t p = seg - 4096 + rng() % (segSize + 8192);
      uintptr_t b = 0;
      Block *got = ix.owner(p, &b);
      auto want = refOwner(ref, p);
      ASSERT_EQ(got != nullptr, want != nullptr) << std::hex << p;
      if (got) {
        ASSERT_EQ(b, want->first);
        ASSERT_EQ(got->size, want->second);
      }
    }
  }
  EXPECT_EQ(ix.size(), ref.size());
  // Stale starts did accumulate (the sweep had work), yet stayed bounded.
  EXPECT_GT(maxEntries, maxLive);
  EXPECT_LE(maxEntries, 2 * maxLive + BlockIndex::kStaleSlack + 1);
}

} // namespace
} // namespace tether::rt
