// The ledger's rules (docs/runtime.md, "What it reports") written the plain
// way, for the `ledger` fuzz target to check the real ledger against: live
// blocks in a std::map searched linearly, every pin, slot, alias and hazard
// in a vector or map, no batching, no hashing, no epochs. Each event method
// returns the violations the rules say it must report; the harness compares
// them with what the ledger reported for the same event.
//
// Graphs and tasks are indices into the model's own tables; the harness
// tells the model which ledger ids they got (the ledger numbers them
// process-wide, so the values differ from run to run).
#ifndef TETHER_FUZZ_LEDGER_REFERENCE_MODEL_H
#define TETHER_FUZZ_LEDGER_REFERENCE_MODEL_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tether::fuzz {

// One violation as the comparison sees it.
struct Expected {
  std::string check, kind;
  uint64_t graph = 0; // ledger graph id
  int32_t layer = -1;
  int64_t key = -1;
  uintptr_t begin = 0;
  uint64_t size = 0;

  bool operator<(const Expected &o) const;
  bool operator==(const Expected &o) const { return !(*this < o) && !(o < *this); }
  std::string str() const;
};
using ExpectedList = std::vector<Expected>;

class ReferenceModel {
public:
  static constexpr int kNone = -1;

  explicit ReferenceModel(size_t maxAliases) : maxAliases_(maxAliases) {}

  struct Block {
    uintptr_t begin;
    uint64_t size;
    uint64_t id;   // identity: one per allocation
    int graph;     // capture it was allocated in, kNone if none
    uint64_t pool;
    std::set<int> pinners; // graphs whose captured tasks baked it in
  };

  // Events. Each returns the violations it must report.
  ExpectedList alloc(uintptr_t p, uint64_t n, uintptr_t stream, uint64_t pool,
                     int32_t layer);
  void free(uintptr_t p);
  void segment(uintptr_t p, uint64_t n);
  // The graph a begin would create, kNone if it is refused; the harness then
  // calls graphCreated with the ledger's id.
  bool captureBeginAllowed(uintptr_t stream) const;
  int graphCreated(uintptr_t stream, uint64_t ledgerId);
  // *endedId: the ledger id of the capture that ends, 0 if none.
  ExpectedList captureEnd(uintptr_t stream, int32_t layer, uint64_t *endedId);
  void taskGroupBegin(uintptr_t stream);
  // The task token that ends (kNone: none, the ledger must return 0); the
  // harness calls taskLearned with the id the ledger returned.
  int taskGroupEnd(uintptr_t stream, bool *hadCapture);
  void taskLearned(int token, uint64_t ledgerId) { tasks_[token].id = ledgerId; }
  ExpectedList taskUses(uintptr_t stream, uintptr_t p, uint64_t n,
                        uintptr_t handle, int32_t layer);
  ExpectedList weakRef(uintptr_t src, uintptr_t alias, uintptr_t p, uint64_t n,
                       int32_t layer);
  ExpectedList workspace(uintptr_t stream, int32_t layer, int64_t key,
                         uintptr_t p, uint64_t n, uint64_t needed);
  void streamWait(uintptr_t waiter, uintptr_t signaler);
  ExpectedList replay(uint64_t graphId);
  void taskUpdateBegin(uintptr_t stream, uint64_t taskId);
  ExpectedList taskUpdateEnd(uintptr_t stream);
  void graphDestroy(uint64_t graphId);

  // Queries for the harness (choosing arguments, checking the ledger).
  const Block *owner(uintptr_t p) const;
  const std::map<uintptr_t, Block> &blocks() const { return live_; }
  std::vector<uint64_t> graphIds() const;
  std::vector<uint64_t> taskIds() const;
  // The slot `key` of the capture running on `stream`, if any.
  bool slotOf(uintptr_t stream, int64_t key, uintptr_t *p, uint64_t *n) const;
  // Events the ledger numbers (and records in its history).
  uint64_t numbered() const { return numbered_; }

private:
  struct Pin {
    uintptr_t begin;
    uint64_t size;
    uint64_t owner; // block id, 0 if none
    int task;       // task token, kNone for a plain launch
    int32_t layer;
    bool reported;
    bool eager = false;     // its block was allocated outside every capture
    uint64_t ownerPool = 0; // that block's pool
    bool byUpdate = false;  // made by a task update
  };
  struct Slot {
    uintptr_t begin;
    uint64_t size;
    uint64_t owner;
    int32_t layer;
    uintptr_t lastStream;
    uint64_t lastUse;
    int32_t lastLayer;
    bool deadReported;
  };
  struct Graph {
    uint64_t id;
    uintptr_t stream;
    uint64_t pool = 0;
    bool capturing = true;
    bool destroyed = false;
    int openTask = kNone;
    std::vector<uintptr_t> joined;
    std::vector<Pin> pins;
    std::map<int64_t, Slot> slots;
    std::set<uint64_t> aliasedBlocks; // sources of weak refs made in capture
    std::set<int> diedTasks; // update-bound memory died: reported once each
  };
  struct Alias {
    uintptr_t begin;
    uint64_t size;
    uint64_t owner;
    int graph;
    bool reported;
  };
  struct Hazard {
    int graph;
    uint64_t block;
    uintptr_t begin;
    uint64_t size;
    bool reused;
    bool reported;
  };
  struct Task {
    int graph;
    uint64_t id; // 0 until the ledger returned it
  };
  struct Update {
    int task;
    bool repinned;
  };

  Block *ownerMut(uintptr_t p);
  bool active(int g) const;
  int captureOn(uintptr_t stream) const;
  int captureFor(uintptr_t stream, uint64_t pool) const;
  int graphById(uint64_t id) const;
  int taskById(uint64_t id) const;
  // Smallest key of a slot of h's capture still backed by h's block, -1.
  int64_t backingKey(const Hazard &h) const;
  Hazard *hazard(int g, uint64_t block);
  void checkPin(int g, Pin &pin, ExpectedList &out);
  Expected make(const char *check, const char *kind, int g, int32_t layer,
                int64_t key, uintptr_t begin, uint64_t size) const;

  size_t maxAliases_;
  uint64_t numbered_ = 0;
  uint64_t nextBlock_ = 1;
  std::map<uintptr_t, Block> live_;
  std::vector<Graph> graphs_;
  std::vector<int> active_; // capturing graphs, in begin order
  std::vector<Hazard> hazards_;
  std::map<uintptr_t, Alias> aliases_;
  std::vector<Task> tasks_;
  std::map<uintptr_t, Update> updates_;
  std::map<std::pair<uintptr_t, uintptr_t>, uint64_t> waits_;
};

} // namespace tether::fuzz

#endif
