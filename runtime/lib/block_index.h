// The live blocks of one device, indexed for the allocator hot path.
//
// alloc and free name a block by its first byte, so the blocks themselves
// live in an open-addressing hash table keyed by that address: one probe,
// usually one cache miss, whatever the live count (a balanced tree costs ~17
// dependent misses per event at 100k blocks).
//
// Interior-pointer lookups (which block contains p?) need order, which a hash
// lacks. For them, every block is also listed in a bucket of its size class:
// class c holds sizes in (S(c-1), S(c)] with S(c) = 4 KiB * 8^c, bucketed by
// the S(c)-aligned page its first byte is in. Such a block reaches at most
// the next page, so the block containing p starts in p's page or the one
// before, and a page holds at most 8 blocks of its class (class 0: 8 blocks
// of 512 B, a caching allocator's rounding). Blocks above the largest class
// (128 MiB), and blocks under 512 B packed densely enough to overflow a
// bucket, go to an ordered map (O(log n)). A lookup of a block's own first byte (the common
// case: a tensor's data pointer) is one hash probe; an interior pointer costs
// two bucket probes per non-empty class.
//
// A free leaves the block's start in its bucket: the bucket is a second,
// random cache miss, and at 100k live blocks that miss was half the cost of a
// free. Lookups check every start against the hash table anyway, so a stale
// start is never mistaken for a live block; an allocation at a start its
// bucket still lists reuses the entry, a full bucket drops its stale starts
// before overflowing, and when stale starts outnumber live ones by more than
// kStaleSlack a sweep drops them all (amortised O(1) per allocation, memory stays
// proportional to the live set).
#ifndef TETHER_RUNTIME_BLOCK_INDEX_H
#define TETHER_RUNTIME_BLOCK_INDEX_H

#include "flat_table.h"
#include "node_pool.h"

#include <cstdint>
#include <map>
#include <vector>

namespace tether::rt {

struct Block {
  uint64_t size;
  uint64_t seq;      // alloc event: the block's identity
  uint64_t graph;    // capture it was allocated in, 0 if none
  uint64_t pool;
  uint64_t pinnedBy; // last running capture whose task baked it in
  uintptr_t stream;
  int32_t layer;
  uint8_t indexedIn = 0; // BlockIndex bookkeeping: size class or the map
  // A task of some graph reads it and it was allocated outside every
  // capture: its free is remembered for a graph-memory-dies report.
  uint8_t bound = 0;
};

class BlockIndex {
public:
  // Stale bucket starts tolerated beyond the live count before a sweep.
  static constexpr size_t kStaleSlack = 4096;

  // The block table starts with 2^log2Blocks slots (at least 2), the
  // bucket table with half as many.
  explicit BlockIndex(unsigned log2Blocks = 12);

  // Adds a block at `begin`, replacing one recorded at the same address
  // (its free was never seen). Returns the stored block, valid until the
  // next insert or erase. A block at the very last address is not kept.
  Block &insert(uintptr_t begin, const Block &b);
  // Removes the block starting at `begin` into *out; false if none.
  bool erase(uintptr_t begin, Block *out);
  // The block containing p, or null; *begin receives its start. Valid until
  // the next insert or erase.
  Block *owner(uintptr_t p, uintptr_t *begin);
  // Drops every block starting in [b, b+n).
  void eraseRange(uintptr_t b, uint64_t n);
  size_t size() const { return blocks_.size(); }
  // For batched frees: start loading what erase(begin) will read.
  void prefetch(uintptr_t begin) const {
    blocks_.prefetch(~static_cast<uint64_t>(begin));
  }
  // For batched allocations: start loading what insert(begin) of a block
  // of n bytes will read (its slot and its size class's bucket).
  void prefetchInsert(uintptr_t begin, uint64_t n) const {
    blocks_.prefetch(~static_cast<uint64_t>(begin));
    uint8_t c = classOf(n);
    if (c != kInMap)
      buckets_.prefetch(bucketKey(begin >> pageBits(c), c));
  }
  // Starts listed in buckets, stale ones included (for tests).
  size_t bucketEntries() const { return bucketEntries_; }

private:
  static constexpr unsigned kClasses = 6; // 4 KiB .. 128 MiB
  static constexpr uint8_t kInMap = kClasses;
  static constexpr unsigned kPerBucket = 8;

  struct Entry {
    uint64_t key; // ~begin
    Block block;
  };
  struct Bucket {
    uint64_t key; // ~(page << 3 | class)
    uint32_t n;
    uintptr_t begins[kPerBucket];
  };
  using LargeMap =
      std::map<uintptr_t, uint64_t, std::less<uintptr_t>,
               PoolAllocator<std::pair<const uintptr_t, uint64_t>>>;

  static unsigned pageBits(unsigned c) { return 12 + 3 * c; }
  static uint8_t classOf(uint64_t size);
  static uint64_t bucketKey(uintptr_t page, unsigned c) {
    return ~((static_cast<uint64_t>(page) << 3) | c);
  }

  void index(uintptr_t begin, Block &b);
  void unindex(uintptr_t begin, const Block &b);
  bool stale(uintptr_t begin, unsigned c);
  void dropStale(Bucket &bk, unsigned c);
  void sweep();
  void sweepIfStale();
  Block *ownerInBucket(unsigned c, uintptr_t page, uintptr_t p,
                       uintptr_t *begin);

  FlatTable<Entry> blocks_;
  FlatTable<Bucket> buckets_;
  size_t perClass_[kClasses] = {}; // live blocks indexed in each class
  size_t bucketEntries_ = 0;        // starts in buckets, live or stale
  std::vector<uint64_t> emptied_;   // sweep's scratch, kept for reuse
  NodePool largeNodes_;
  LargeMap large_;
  Block scratch_{};
};

} // namespace tether::rt

#endif
