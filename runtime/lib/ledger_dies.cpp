// tether-graph-memory-dies-before-replay: memory from outside every capture
// that a task reads (bound by a task update, or read by a captured task)
// dies while the graph can still replay it. The free is remembered here;
// the pin is judged by Ledger::checkPin at the replay or task update end.
#include "ledger.h"

#include "format.h"

#include <algorithm>
#include <cinttypes>

namespace tether::rt {

// A block some task reads died. Whether that is a violation is decided at
// the graph's next replay (the task may be re-pointed first, or the graph
// destroyed); the free is kept for the report's story.
void Ledger::onBoundFree(uintptr_t begin, const Block &b,
                         const Event &freeEv) {
  // A replay must re-check the pins it found clean before this free.
  allocEpoch_ = std::max(allocEpoch_, freeEv.seq);
  if (boundFrees_.size() >= kMaxBoundFrees)
    pruneBoundFrees();
  if (boundFrees_.size() >= kMaxBoundFrees)
    boundFrees_.clear(); // bounded memory wins: reports lose the free site
  boundFrees_.push_back(BoundFree{allocEventOf(begin, b), freeEv});
}

// Keeps the frees some unreported pin still needs: correct programs free
// update buffers after re-pointing the task, and those must not pile up.
void Ledger::pruneBoundFrees() {
  std::vector<uint64_t> needed;
  for (const auto &g : graphs_)
    for (const Pin &pin : g->pins)
      if (pin.eager && !pin.reported)
        needed.push_back(pin.owner);
  std::sort(needed.begin(), needed.end());
  boundFrees_.erase(
      std::remove_if(boundFrees_.begin(), boundFrees_.end(),
                     [&](const BoundFree &f) {
                       return !std::binary_search(needed.begin(), needed.end(),
                                                  f.alloc.seq);
                     }),
      boundFrees_.end());
}

// Memory from outside the graph's pool that a task reads died while the
// graph lives: the replay computes with whatever the range holds now.
void Ledger::reportDied(Graph &g, Pin &pin, const Block *cur,
                        uintptr_t curBegin, const char *when, Out &out) {
  pin.reported = true;
  if (pin.byUpdate) {
    if (std::find(g.diedTasks.begin(), g.diedTasks.end(), pin.task) !=
        g.diedTasks.end())
      return;
    g.diedTasks.push_back(pin.task);
  }
  const BoundFree *freed = nullptr;
  for (const BoundFree &f : boundFrees_)
    if (f.alloc.seq == pin.owner)
      freed = &f;
  Event bind;
  bind.seq = pin.boundAt;
  bind.kind = EventKind::TaskUse;
  bind.ptr = pin.begin;
  bind.size = pin.size;
  bind.stream = pin.stream;
  bind.graph = g.id;
  bind.owner = pin.owner;
  bind.key = static_cast<int64_t>(pin.task);
  bind.layer = pin.layer;
  std::vector<Event> sites{bind};
  if (freed) {
    sites.push_back(freed->alloc);
    sites.push_back(freed->free);
  }
  std::string what =
      pin.byUpdate
          ? format("task %" PRIu64 " was bound by a task update of layer %d "
                   "(event %" PRIu64 ") to",
                   pin.task, pin.layer, pin.boundAt)
          : format("a task captured by layer %d (event %" PRIu64 ") reads",
                   pin.layer, pin.boundAt);
  std::string msg =
      format("at %s of graph %" PRIu64 ", %s 0x%" PRIxPTR " (%" PRIu64
             " B), memory allocated outside the graph's pool",
             when, g.id, what.c_str(), pin.begin, pin.size);
  if (freed)
    msg += format(" (event %" PRIu64 ", %" PRIu64 " B, layer %d) that was "
                  "freed %s (event %" PRIu64 ", layer %d)",
                  freed->alloc.seq, freed->alloc.size, freed->alloc.layer,
                  pin.byUpdate ? "before the replay" : "while the graph lives",
                  freed->free.seq, freed->free.layer);
  else
    msg += format(" (event %" PRIu64 ") that died while the graph lives",
                  pin.owner);
  if (cur) {
    sites.push_back(allocEventOf(curBegin, *cur));
    msg += format("; the range now belongs to a block allocated at event %" PRIu64
                  " (%" PRIu64 " B, layer %d)",
                  cur->seq, cur->size, cur->layer);
  }
  Violation v = make(check::GraphMemoryDiesBeforeReplay,
                     pin.byUpdate ? "update-buffer-freed" : "out-of-pool-freed",
                     g.id, pin.layer, -1, pin.begin, pin.size,
                     std::move(sites));
  if (!cur && freed) {
    // Dead again by now, but someone had it: name the first taker the
    // history still shows.
    for (const Event &e : v.events)
      if (e.kind == EventKind::Alloc && e.seq > freed->free.seq) {
        msg += format("; the range was handed to a later allocation "
                      "(event %" PRIu64 ", %" PRIu64 " B, layer %d)",
                      e.seq, e.size, e.layer);
        break;
      }
  }
  msg += pin.byUpdate
             ? ": the graph computes with whatever lives there now. Keep the "
               "update's buffers alive as long as the graph, or reuse the "
               "workspace captured with it."
             : ": the graph computes with whatever lives there now. Keep the "
               "graph's inputs alive until the graph is reset.";
  v.message = std::move(msg);
  out.push_back(std::move(v));
}

} // namespace tether::rt
