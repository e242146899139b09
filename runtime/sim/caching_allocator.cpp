// A caching allocator in the manner of c10's / torch_npu's: blocks rounded
// to 512 B, best fit per (stream, size), split and coalesced within
// aclrtMalloc'd segments, one pool per graph capture. The property the demo
// depends on is the real one: a block freed during a capture returns to the
// graph's pool at once and the next fitting allocation of that capture gets
// it.
#include "acl_sim/sim.h"
#include "sim_internal.h"

#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace aclsim {
namespace {

constexpr size_t kRound = 512;
constexpr size_t kSegment = 2 << 20;

struct Block {
  char *ptr;
  size_t size;
  aclrtStream stream;
  uint64_t pool;
  bool used;
  Block *prev; // neighbours within the segment
  Block *next;
};

struct BySize {
  bool operator()(const Block *a, const Block *b) const {
    return std::tie(a->stream, a->size, a->ptr) <
           std::tie(b->stream, b->size, b->ptr);
  }
};

struct Pool {
  std::set<Block *, BySize> free;
  bool released = false;
};

struct State {
  std::mutex mu;
  std::map<uint64_t, Pool> pools; // 0: the default pool
  std::unordered_map<void *, Block *> used;
  std::vector<AllocatorTraceTracker> trackers;
  size_t reserved = 0;
};

State &state() {
  static State *s = new State; // outlives static destructors of its users
  return *s;
}

void trace(State &s, TraceEntry::Action a, const Block &b) {
  TraceEntry e{a, 0, reinterpret_cast<size_t>(b.ptr), b.size, b.stream,
               MempoolId_t{b.pool, 0}};
  for (auto &t : s.trackers)
    t(e);
}

// A whole free segment of a released pool goes back to the runtime.
bool returnSegment(State &s, Block *b) {
  Pool &pool = s.pools[b->pool];
  if (!pool.released || b->prev || b->next || b->used)
    return false;
  trace(s, TraceEntry::SEGMENT_FREE, *b);
  s.reserved -= b->size;
  aclrtFree(b->ptr);
  delete b;
  return true;
}

} // namespace

void *allocate(size_t bytes, aclrtStream stream) {
  const size_t n = ((bytes ? bytes : 1) + kRound - 1) / kRound * kRound;
  const uint64_t poolId = detail::capturePoolOf(stream);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Pool &pool = s.pools[poolId];
  Block key{nullptr, n, stream, poolId, false, nullptr, nullptr};
  auto it = pool.free.lower_bound(&key);
  Block *b;
  if (it != pool.free.end() && (*it)->stream == stream) {
    b = *it;
    pool.free.erase(it);
  } else {
    const size_t segSize = n > kSegment ? n : kSegment;
    void *seg = nullptr;
    if (aclrtMalloc(&seg, segSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
      return nullptr;
    s.reserved += segSize;
    b = new Block{static_cast<char *>(seg), segSize, stream, poolId, false,
                  nullptr, nullptr};
    trace(s, TraceEntry::SEGMENT_ALLOC, *b);
  }
  if (b->size - n >= kRound) {
    Block *rest = new Block{b->ptr + n, b->size - n, stream, poolId, false,
                            b, b->next};
    if (b->next)
      b->next->prev = rest;
    b->next = rest;
    b->size = n;
    pool.free.insert(rest);
  }
  b->used = true;
  s.used[b->ptr] = b;
  trace(s, TraceEntry::ALLOC, *b);
  return b->ptr;
}

void release(void *ptr) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.used.find(ptr);
  if (it == s.used.end())
    return;
  Block *b = it->second;
  s.used.erase(it);
  b->used = false;
  // Every stream is synchronous here, so the free completes at once.
  trace(s, TraceEntry::FREE_REQUESTED, *b);
  trace(s, TraceEntry::FREE_COMPLETED, *b);
  Pool &pool = s.pools[b->pool];
  if (b->prev && !b->prev->used) {
    Block *p = b->prev;
    pool.free.erase(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next)
      b->next->prev = p;
    delete b;
    b = p;
  }
  if (b->next && !b->next->used) {
    Block *x = b->next;
    pool.free.erase(x);
    b->size += x->size;
    b->next = x->next;
    if (x->next)
      x->next->prev = b;
    delete x;
  }
  if (!returnSegment(s, b))
    pool.free.insert(b);
}

void attachAllocatorTraceTracker(AllocatorTraceTracker tracker) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.trackers.push_back(std::move(tracker));
}

size_t reservedBytes() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.reserved;
}

namespace detail {

void releasePool(uint64_t poolId) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.pools.find(poolId);
  if (it == s.pools.end())
    return;
  Pool &pool = it->second;
  pool.released = true;
  for (auto f = pool.free.begin(); f != pool.free.end();) {
    Block *b = *f;
    f = pool.free.erase(f);
    if (!returnSegment(s, b))
      pool.free.insert(b); // keeps ordering; already visited
  }
}

} // namespace detail
} // namespace aclsim
