#include "block_index.h"

#include <algorithm>

namespace tether::rt {

BlockIndex::BlockIndex()
    : large_(PoolAllocator<std::pair<const uintptr_t, Block>>(&largeNodes_)) {
  pages_.reserve(1024);
}

Block &BlockIndex::insert(uintptr_t begin, const Block &b) {
  Block stale;
  if (!large_.empty() && large_.count(begin))
    erase(begin, &stale); // a record whose free was never seen
  if (b.size > kPage) {
    erase(begin, &stale);
    ++count_;
    return large_.insert_or_assign(begin, b).first->second;
  }
  Page &page = pages_[pageOf(begin)];
  auto it = std::find(page.begins.begin(), page.begins.end(), begin);
  if (it != page.begins.end()) {
    Block &slot = page.blocks[static_cast<size_t>(it - page.begins.begin())];
    slot = b;
    return slot;
  }
  ++count_;
  page.begins.push_back(begin);
  page.blocks.push_back(b);
  return page.blocks.back();
}

bool BlockIndex::erase(uintptr_t begin, Block *out) {
  auto pit = pages_.find(pageOf(begin));
  if (pit != pages_.end()) {
    Page &page = pit->second;
    auto &bs = page.begins;
    auto it = std::find(bs.begin(), bs.end(), begin);
    if (it != bs.end()) {
      size_t i = static_cast<size_t>(it - bs.begin());
      *out = page.blocks[i];
      // Order within a page does not matter: swap with the last and pop.
      bs[i] = bs.back();
      bs.pop_back();
      page.blocks[i] = page.blocks.back();
      page.blocks.pop_back();
      --count_;
      return true;
    }
  }
  if (large_.empty())
    return false;
  auto lit = large_.find(begin);
  if (lit == large_.end())
    return false;
  *out = lit->second;
  large_.erase(lit);
  --count_;
  return true;
}

Block *BlockIndex::ownerInPage(uintptr_t page, uintptr_t p, uintptr_t *begin) {
  auto pit = pages_.find(page);
  if (pit == pages_.end())
    return nullptr;
  Page &pg = pit->second;
  for (size_t i = 0; i < pg.begins.size(); ++i)
    if (pg.begins[i] <= p && p < pg.begins[i] + pg.blocks[i].size) {
      *begin = pg.begins[i];
      return &pg.blocks[i];
    }
  return nullptr;
}

Block *BlockIndex::owner(uintptr_t p, uintptr_t *begin) {
  if (Block *b = ownerInPage(pageOf(p), p, begin))
    return b;
  if (pageOf(p) > 0)
    if (Block *b = ownerInPage(pageOf(p) - 1, p, begin))
      return b;
  auto it = large_.upper_bound(p);
  if (it == large_.begin())
    return nullptr;
  --it;
  if (p >= it->first + it->second.size)
    return nullptr;
  *begin = it->first;
  return &it->second;
}

void BlockIndex::eraseRange(uintptr_t b, uint64_t n) {
  if (n == 0)
    return;
  for (uintptr_t page = pageOf(b); page <= pageOf(b + n - 1); ++page) {
    auto pit = pages_.find(page);
    if (pit == pages_.end())
      continue;
    Page &pg = pit->second;
    for (size_t i = 0; i < pg.begins.size();) {
      if (pg.begins[i] >= b && pg.begins[i] < b + n) {
        pg.begins[i] = pg.begins.back();
        pg.begins.pop_back();
        pg.blocks[i] = pg.blocks.back();
        pg.blocks.pop_back();
        --count_;
      } else {
        ++i;
      }
    }
  }
  for (auto it = large_.lower_bound(b); it != large_.end() && it->first < b + n;) {
    it = large_.erase(it);
    --count_;
  }
}

} // namespace tether::rt
