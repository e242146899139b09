// The per-device ledger: which blocks are live, which captures are active,
// which ranges captured tasks have baked in, which workspace slots and weak
// aliases exist. Every event goes through one method; violations found by it
// are appended to `out` for the caller to emit after the lock is released
// (a callback may re-enter the verifier).
#ifndef TETHER_RUNTIME_LEDGER_H
#define TETHER_RUNTIME_LEDGER_H

#include "event.h"
#include "block_index.h"
#include "history.h"
#include "node_pool.h"
#include "violation.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tether::rt {

struct LedgerConfig {
  size_t historyEvents = 1 << 14; // ring capacity (1 MiB)
  size_t maxAliases = 1 << 16;    // weak aliases remembered at once
  // Initial live-block table: 2^n slots (the bucket table starts at half).
  // The tables grow, so this trades early growth for footprint; the fuzzer
  // starts tiny to exercise growth and wrap-around probing.
  unsigned blockTableLog2 = 12;
};

class Ledger {
public:
  using Out = std::vector<Violation>;

  explicit Ledger(int device, const LedgerConfig &cfg = {});

  // Allocator feed: O(1) expected, no heap allocation once the live set has
  // reached its high-water mark. A free, and an allocation made while no
  // capture is active, is numbered and queued at once and applied in a
  // batch (prefetched, so the batch's cache misses overlap) when the queue
  // fills or before any other event is handled, so every other event sees
  // exactly the state it would have seen unbatched. An allocation during a
  // capture is applied at once: it may be the reuse a report must name.
  void alloc(uintptr_t p, uint64_t n, uintptr_t stream, uint64_t pool,
             int32_t layer, Out &out);
  void free(uintptr_t p, int32_t layer);
  void segment(uintptr_t p, uint64_t n);

  uint64_t captureBegin(uintptr_t stream, int32_t layer);
  uint64_t captureEnd(uintptr_t stream, int32_t layer, Out &out);
  void taskGroupBegin(uintptr_t stream);
  uint64_t taskGroupEnd(uintptr_t stream);
  void taskUses(uintptr_t stream, uintptr_t p, uint64_t n, uintptr_t handle,
                int32_t layer, Out &out);
  void weakRef(uintptr_t src, uintptr_t alias, uintptr_t p, uint64_t n,
               int32_t layer, Out &out);
  void workspace(uintptr_t stream, int32_t layer, int64_t key, uintptr_t p,
                 uint64_t n, uint64_t needed, Out &out);
  void streamWait(uintptr_t waiter, uintptr_t signaler);
  void replay(uint64_t graph, Out &out);
  void taskUpdateBegin(uintptr_t stream, uint64_t task);
  void taskUpdateEnd(uintptr_t stream, Out &out);
  void graphDestroy(uint64_t graph);

  // Introspection for tests and the bench.
  size_t liveBlocks();
  // The live block containing p: its start and size; false if none.
  bool blockAt(uintptr_t p, uintptr_t *begin, uint64_t *size);
  size_t historySize();
  uint64_t eventCount() const;

private:
  struct Pin {
    uintptr_t begin;
    uint64_t size;
    uint64_t owner; // seq of the block that held the range when pinned
    uint64_t task;  // 0 for a plain launch
    uintptr_t stream;
    int32_t layer;
    bool reported;
    uint64_t checkedAt = 0; // allocEpoch_ of its last clean check
    uint64_t boundAt = 0;   // seq of the task use that made it
    uint64_t ownerPool = 0;
    // The owner was allocated outside every capture: its death while the
    // graph lives is tether-graph-memory-dies-before-replay (unless the
    // graph's pool turns out to be the owner's).
    bool eager = false;
    bool byUpdate = false; // made by a task update, not by the capture
  };
  struct Slot {
    uintptr_t begin;
    uint64_t size;
    uint64_t owner;
    int32_t layer;       // the layer that sized it
    uintptr_t lastStream;
    uint64_t lastUse;    // seq of the last use
    int32_t lastLayer;
    bool deadReported; // its owner died and that was reported
  };
  struct Graph {
    uint64_t id;
    uintptr_t stream;
    uint64_t pool = 0;
    bool capturing = true;
    uint64_t openTask = 0; // task group being captured
    std::vector<uintptr_t> joined; // streams forked into the capture
    std::vector<Pin> pins;
    std::unordered_map<int64_t, Slot> slots;
    std::unordered_map<uint64_t, uint32_t> aliasedOwners; // seq -> count
    // Tasks whose update-bound memory died: reported once per task, as
    // every update of the task repeats the same binding.
    std::vector<uint64_t> diedTasks;
  };
  struct Alias {
    uintptr_t begin;
    uint64_t size;
    uint64_t owner; // seq of the source block, 0 if it had none
    uint64_t graph; // capture active when made
    bool reported;
  };
  // A pinned block freed while its capture runs, kept until capture end.
  struct Hazard {
    uint64_t graph;
    Event alloc;          // the freed block's allocation
    Event free;
    Event reuse;          // seq 0 until another allocation takes the range
    bool aliased;         // a weak alias made in this capture points here
    bool reported;
  };
  struct Update {
    uint64_t task;
    bool repinned;
  };
  // The free of a block some task read (Block::bound): the second site of
  // a graph-memory-dies report, which is made later, at replay.
  struct BoundFree {
    Event alloc;
    Event free;
  };
  static constexpr size_t kMaxBoundFrees = 1024;

  struct Pending {
    uintptr_t ptr;
    uint64_t size; // allocations only
    uintptr_t stream;
    uint64_t pool;
    uint64_t seq;
    int32_t layer;
    bool isAlloc;
  };
  static constexpr size_t kBatch = 16;

  // Takes the lock and applies the queued events first.
  std::unique_lock<std::mutex> lockAndDrain();
  void enqueue(const Pending &e);
  void drainPending();
  void applyAlloc(const Pending &a);
  void applyFree(const Pending &f);
  // The event, numbered now, or with the number it got when it was queued.
  Event record(EventKind k, uintptr_t p, uint64_t n, uintptr_t stream,
               uint64_t graph, int32_t layer, uint64_t queuedSeq = 0);
  Graph *graphById(uint64_t id);
  Graph *activeById(uint64_t id);
  Graph *captureOn(uintptr_t stream);
  Graph *captureFor(uintptr_t stream, uint64_t pool);
  bool pinnedIn(const Graph &g, uintptr_t begin, uint64_t n) const;
  // The smallest key of a slot of h's (running) capture that still hands
  // out h's block, -1 if none: a block may back several slots.
  int64_t backingKey(const Hazard &h) const;
  // The live block containing p, or null.
  Block *ownerOf(uintptr_t p, uintptr_t *begin) { return blocks_.owner(p, begin); }
  Event allocEventOf(uintptr_t begin, const Block &b) const;
  Hazard *hazardFor(uint64_t graph, uint64_t ownerSeq);
  void onPinnedFree(Graph &g, uintptr_t begin, const Block &b,
                    const Event &freeEv);
  void onReuse(uintptr_t begin, uint64_t n, const Event &allocEv, Out &out);
  void checkPin(Graph &g, Pin &pin, const char *when, Out &out);
  static bool outOfPool(const Graph &g, const Pin &pin) {
    return pin.eager && !(g.pool && pin.ownerPool == g.pool);
  }
  void onBoundFree(uintptr_t begin, const Block &b, const Event &freeEv);
  void pruneBoundFrees();
  void reportDied(Graph &g, Pin &pin, const Block *cur, uintptr_t curBegin,
                  const char *when, Out &out);
  void reportHazard(Hazard &h, const char *kind, const Event &at, int64_t key,
                    Out &out);
  Violation make(const char *check, const char *kind, uint64_t graph,
                 int32_t layer, int64_t key, uintptr_t begin, uint64_t size,
                 std::vector<Event> sites) const;
  void dropAliasesIfFull();
  template <class Pred> void dropSharedPins(Pred pred) {
    sharedPins_.erase(
        std::remove_if(sharedPins_.begin(), sharedPins_.end(), pred),
        sharedPins_.end());
  }

  const int device_;
  const LedgerConfig cfg_;
  mutable std::mutex mu_;
  uint64_t seq_ = 0;
  // Seq of the last event that gave memory a new owner (alloc, segment) or
  // freed a block a task reads (Block::bound). A pin found clean stays
  // clean until then: other frees cannot hand its range to anyone.
  uint64_t allocEpoch_ = 0;
  Pending pending_[kBatch];
  size_t pendingCount_ = 0;
  BlockIndex blocks_;
  History history_;
  // Few graphs, fewer active captures: linear scans beat hashing here.
  std::vector<std::unique_ptr<Graph>> graphs_;
  std::vector<Graph *> active_;
  std::vector<Hazard> hazards_;
  // A block baked in by tasks of two running captures at once (rare):
  // Block::pinnedBy names the latest, these pairs the others.
  struct SharedPin {
    uint64_t block; // alloc seq
    uint64_t graph;
  };
  std::vector<SharedPin> sharedPins_;
  std::vector<BoundFree> boundFrees_;
  std::unordered_map<uintptr_t, Alias> aliases_;
  std::unordered_map<uint64_t, uint64_t> taskGraph_; // task id -> graph id
  std::unordered_map<uintptr_t, Update> updates_;    // stream -> update
  std::map<std::pair<uintptr_t, uintptr_t>, uint64_t> waits_;
};

} // namespace tether::rt

#endif
