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
#ifndef TETHER_RUNTIME_BLOCK_INDEX_H
#define TETHER_RUNTIME_BLOCK_INDEX_H

#include "flat_table.h"
#include "node_pool.h"

#include <cstdint>
#include <map>

namespace tether::rt {

struct Block {
  uint64_t size;
  uint64_t seq;      // alloc event: the block's identity
  uint64_t graph;    // capture it was allocated in, 0 if none
  uint64_t pool;
  uint64_t pinnedBy; // last graph whose task baked this block in
  uintptr_t stream;
  int32_t layer;
  uint8_t indexedIn = 0; // BlockIndex bookkeeping: size class or the map
};

class BlockIndex {
public:
  BlockIndex();

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
  // For batched frees: start loading what erase(begin) will read, in two
  // steps (the block first; then, with the block cached, its bucket).
  void prefetchBlock(uintptr_t begin) const {
    blocks_.prefetch(~static_cast<uint64_t>(begin));
  }
  void prefetchBucket(uintptr_t begin);

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
  Block *ownerInBucket(unsigned c, uintptr_t page, uintptr_t p,
                       uintptr_t *begin);

  FlatTable<Entry> blocks_;
  FlatTable<Bucket> buckets_;
  size_t perClass_[kClasses] = {};
  NodePool largeNodes_;
  LargeMap large_;
  Block scratch_{};
};

} // namespace tether::rt

#endif
