#include "block_index.h"

#include <algorithm>
#include <vector>

namespace tether::rt {

BlockIndex::BlockIndex(unsigned log2Blocks)
    : blocks_(std::max(log2Blocks, 2u)), buckets_(std::max(log2Blocks, 2u) - 1),
      large_(PoolAllocator<std::pair<const uintptr_t, uint64_t>>(&largeNodes_)) {}

uint8_t BlockIndex::classOf(uint64_t size) {
  if (size <= 4096)
    return 0;
  unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(size - 1));
  unsigned c = (bits - 12 + 2) / 3; // smallest c with size <= 4096 << 3c
  return c < kClasses ? static_cast<uint8_t>(c) : kInMap;
}

void BlockIndex::index(uintptr_t begin, Block &b) {
  uint8_t c = classOf(b.size);
  if (c != kInMap) {
    bool fresh = false;
    Bucket &bk = buckets_.insert(bucketKey(begin >> pageBits(c), c), &fresh);
    bool listed = false;
    for (uint32_t i = 0; i < bk.n && !listed; ++i)
      listed = bk.begins[i] == begin;
    if (!listed && bk.n == kPerBucket)
      dropStale(bk, c);
    if (listed || bk.n < kPerBucket) {
      if (!listed) {
        bk.begins[bk.n++] = begin;
        ++bucketEntries_;
      }
      ++perClass_[c];
      b.indexedIn = c;
      return;
    }
    // Only blocks far smaller than their class (tiny ones, or stale records
    // overlapping live ones) can fill a bucket: they go to the map.
  }
  large_.insert_or_assign(begin, b.size);
  b.indexedIn = kInMap;
}

// The bucket entry is left behind (see the header): only the counts change.
void BlockIndex::unindex(uintptr_t begin, const Block &b) {
  uint8_t c = b.indexedIn;
  if (c == kInMap)
    large_.erase(begin);
  else
    --perClass_[c];
}

// A start listed in class c's bucket that no live block indexed in c has.
bool BlockIndex::stale(uintptr_t begin, unsigned c) {
  Entry *e = blocks_.find(~static_cast<uint64_t>(begin));
  return !e || e->block.indexedIn != c;
}

void BlockIndex::dropStale(Bucket &bk, unsigned c) {
  for (uint32_t i = 0; i < bk.n;)
    if (stale(bk.begins[i], c)) {
      bk.begins[i] = bk.begins[--bk.n];
      --bucketEntries_;
    } else {
      ++i;
    }
}

void BlockIndex::sweep() {
  emptied_.clear();
  buckets_.forEach([&](Bucket &bk) {
    dropStale(bk, static_cast<unsigned>(~bk.key & 7));
    if (bk.n == 0)
      emptied_.push_back(bk.key);
  });
  for (uint64_t key : emptied_)
    if (Bucket *bk = buckets_.find(key))
      buckets_.erase(bk);
}

void BlockIndex::sweepIfStale() {
  size_t live = 0;
  for (size_t n : perClass_)
    live += n;
  if (bucketEntries_ > 2 * live + kStaleSlack)
    sweep();
}

Block &BlockIndex::insert(uintptr_t begin, const Block &b) {
  if (~static_cast<uint64_t>(begin) == 0)
    return scratch_ = b;
  bool fresh = false;
  // Index first: the bucket table may grow, the block table must not move
  // after we take the reference below.
  Entry *e = blocks_.find(~static_cast<uint64_t>(begin));
  if (e) {
    // A record whose free was never seen: replace it, re-indexed if its
    // size class changed.
    uint8_t old = e->block.indexedIn;
    if (classOf(b.size) == old && old != kInMap) {
      e->block = b;
      e->block.indexedIn = old;
      return e->block;
    }
    unindex(begin, e->block);
    Block nb = b;
    index(begin, nb);
    e = blocks_.find(~static_cast<uint64_t>(begin));
    e->block = nb;
  } else {
    Block nb = b;
    index(begin, nb);
    e = &blocks_.insert(~static_cast<uint64_t>(begin), &fresh);
    e->block = nb;
  }
  // After the block is stored (a sweep must see it live); a sweep reads the
  // block table and never moves it.
  sweepIfStale();
  return e->block;
}

bool BlockIndex::erase(uintptr_t begin, Block *out) {
  Entry *e = blocks_.find(~static_cast<uint64_t>(begin));
  if (!e)
    return false;
  *out = e->block;
  blocks_.erase(e);
  unindex(begin, *out);
  return true;
}

Block *BlockIndex::ownerInBucket(unsigned c, uintptr_t page, uintptr_t p,
                                 uintptr_t *begin) {
  Bucket *bk = buckets_.find(bucketKey(page, c));
  if (!bk)
    return nullptr;
  for (uint32_t i = 0; i < bk->n; ++i) {
    uintptr_t b = bk->begins[i];
    if (b > p)
      continue;
    Entry *e = blocks_.find(~static_cast<uint64_t>(b));
    if (e && p - b < e->block.size) {
      *begin = b;
      return &e->block;
    }
  }
  return nullptr;
}

Block *BlockIndex::owner(uintptr_t p, uintptr_t *begin) {
  Entry *e = blocks_.find(~static_cast<uint64_t>(p));
  if (e && e->block.size) {
    *begin = p;
    return &e->block;
  }
  for (unsigned c = 0; c < kClasses; ++c) {
    if (!perClass_[c])
      continue;
    uintptr_t page = p >> pageBits(c);
    if (Block *b = ownerInBucket(c, page, p, begin))
      return b;
    if (page > 0)
      if (Block *b = ownerInBucket(c, page - 1, p, begin))
        return b;
  }
  if (large_.empty())
    return nullptr;
  auto it = large_.upper_bound(p);
  if (it == large_.begin())
    return nullptr;
  --it;
  if (p - it->first >= it->second)
    return nullptr;
  e = blocks_.find(~static_cast<uint64_t>(it->first));
  if (!e)
    return nullptr;
  *begin = it->first;
  return &e->block;
}

// Not on the hot path (a caching allocator's segment event): collect the
// starts first, as erasing moves table entries.
void BlockIndex::eraseRange(uintptr_t b, uint64_t n) {
  if (n == 0)
    return;
  const uintptr_t last = b + (n - 1);
  std::vector<uintptr_t> doomed;
  auto inRange = [&](uintptr_t x) { return x >= b && x <= last; };
  for (unsigned c = 0; c < kClasses; ++c) {
    if (!perClass_[c])
      continue;
    const uintptr_t first = b >> pageBits(c), lastPage = last >> pageBits(c);
    if (lastPage - first >= buckets_.capacity()) {
      // Fewer buckets than pages in range: walk the buckets instead.
      buckets_.forEach([&](Bucket &bk) {
        if ((~bk.key & 7) == c)
          for (uint32_t i = 0; i < bk.n; ++i)
            if (inRange(bk.begins[i]))
              doomed.push_back(bk.begins[i]);
      });
      continue;
    }
    for (uintptr_t page = first;; ++page) {
      if (Bucket *bk = buckets_.find(bucketKey(page, c)))
        for (uint32_t i = 0; i < bk->n; ++i)
          if (inRange(bk->begins[i]))
            doomed.push_back(bk->begins[i]);
      if (page == lastPage)
        break;
    }
  }
  for (auto it = large_.lower_bound(b); it != large_.end() && it->first <= last;
       ++it)
    doomed.push_back(it->first);
  Block gone;
  for (uintptr_t x : doomed)
    erase(x, &gone);
}

} // namespace tether::rt
