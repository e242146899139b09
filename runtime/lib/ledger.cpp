#include "ledger.h"

#include "format.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace tether::rt {

namespace {

// Graph and task ids are process-wide so a report names one graph even when
// several devices capture at once.
std::atomic<uint64_t> nextGraphId{1};
std::atomic<uint64_t> nextTaskId{1};

// Events worth showing in a report's story of a range.
bool isStoryEvent(EventKind k) {
  return k == EventKind::Alloc || k == EventKind::Free ||
         k == EventKind::TaskUse || k == EventKind::WeakRef ||
         k == EventKind::Workspace;
}

constexpr size_t kMaxStory = 24;

} // namespace

std::string format(const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return std::string(buf, n < 0 ? 0 : std::min<size_t>(n, sizeof buf - 1));
}

Ledger::Ledger(int device, const LedgerConfig &cfg)
    : device_(device), cfg_(cfg), blocks_(cfg.blockTableLog2),
      history_(cfg.historyEvents) {}

Event Ledger::record(EventKind k, uintptr_t p, uint64_t n, uintptr_t stream,
                     uint64_t graph, int32_t layer, uint64_t queuedSeq) {
  Event e;
  e.seq = queuedSeq ? queuedSeq : ++seq_;
  e.kind = k;
  e.ptr = p;
  e.size = n;
  e.stream = stream;
  e.graph = graph;
  e.layer = layer;
  return e;
}

Ledger::Graph *Ledger::graphById(uint64_t id) {
  for (auto &g : graphs_)
    if (g->id == id)
      return g.get();
  return nullptr;
}

Ledger::Graph *Ledger::activeById(uint64_t id) {
  for (Graph *g : active_)
    if (g->id == id)
      return g;
  return nullptr;
}

static bool joinedTo(const std::vector<uintptr_t> &joined, uintptr_t s) {
  return std::find(joined.begin(), joined.end(), s) != joined.end();
}

// The capture a stream takes part in: its origin stream, or one forked
// into it by waiting on a capturing stream (as CUDA/ACL capture does).
Ledger::Graph *Ledger::captureOn(uintptr_t stream) {
  for (Graph *g : active_)
    if (g->stream == stream || joinedTo(g->joined, stream))
      return g;
  return nullptr;
}

// An allocation belongs to a capture if it is made on the capturing stream
// or from the capture's private pool (another stream joined to it).
Ledger::Graph *Ledger::captureFor(uintptr_t stream, uint64_t pool) {
  for (Graph *g : active_)
    if (g->stream == stream || (pool && g->pool == pool) ||
        joinedTo(g->joined, stream))
      return g;
  return nullptr;
}

Event Ledger::allocEventOf(uintptr_t begin, const Block &b) const {
  Event e;
  e.seq = b.seq;
  e.kind = EventKind::Alloc;
  e.ptr = begin;
  e.size = b.size;
  e.stream = b.stream;
  e.graph = b.graph;
  e.owner = b.seq;
  e.layer = b.layer;
  return e;
}

bool Ledger::pinnedIn(const Graph &g, uintptr_t begin, uint64_t n) const {
  for (const Pin &p : g.pins)
    if (p.begin < begin + n && begin < p.begin + p.size)
      return true;
  return false;
}

Ledger::Hazard *Ledger::hazardFor(uint64_t graph, uint64_t ownerSeq) {
  for (Hazard &h : hazards_)
    if (h.graph == graph && h.alloc.seq == ownerSeq)
      return &h;
  return nullptr;
}

int64_t Ledger::backingKey(const Hazard &h) const {
  int64_t key = -1;
  for (const Graph *g : active_)
    if (g->id == h.graph)
      for (const auto &[k, slot] : g->slots)
        if (slot.owner == h.alloc.seq && (key < 0 || k < key))
          key = k;
  return key;
}

Violation Ledger::make(const char *check, const char *kind, uint64_t graph,
                       int32_t layer, int64_t key, uintptr_t begin,
                       uint64_t size, std::vector<Event> sites) const {
  Violation v;
  v.check = check;
  v.kind = kind;
  v.graph = graph;
  v.layer = layer;
  v.key = key;
  v.begin = begin;
  v.size = size;
  v.device = device_;
  // The sites are kept by value (the ring may have overwritten them); the
  // ring adds what else touched the range since the first site.
  uint64_t since = sites.empty() ? 0 : sites.front().seq;
  for (const Event &s : sites)
    since = std::min(since, s.seq);
  std::vector<Event> story = std::move(sites);
  history_.forEach([&](const Event &e) {
    if (e.seq >= since && isStoryEvent(e.kind) && e.touches(begin, size))
      story.push_back(e);
    return true;
  });
  std::sort(story.begin(), story.end(),
            [](const Event &a, const Event &b) { return a.seq < b.seq; });
  story.erase(std::unique(story.begin(), story.end(),
                          [](const Event &a, const Event &b) {
                            return a.seq == b.seq;
                          }),
              story.end());
  if (story.size() > kMaxStory)
    story.erase(story.begin() + kMaxStory / 2,
                story.end() - (kMaxStory - kMaxStory / 2));
  v.events = std::move(story);
  return v;
}

// ---- allocator feed --------------------------------------------------------

void Ledger::alloc(uintptr_t p, uint64_t n, uintptr_t stream, uint64_t pool,
                   int32_t layer, Out &out) {
  std::unique_lock<std::mutex> lock(mu_);
  if (active_.empty() && hazards_.empty()) {
    // No capture: nothing this allocation can violate, and none can start
    // before the queue is applied (capture begin drains it first).
    const uint64_t seq = ++seq_;
    allocEpoch_ = seq;
    enqueue(Pending{p, n, stream, pool, seq, layer, true});
    return;
  }
  drainPending();
  Graph *g = captureFor(stream, pool);
  Event ev = record(EventKind::Alloc, p, n, stream, g ? g->id : 0, layer);
  ev.owner = ev.seq;
  allocEpoch_ = ev.seq;
  history_.push(ev);
  if (g && pool && !g->pool && g->stream == stream)
    g->pool = pool; // the first allocation of a capture names its pool
  blocks_.insert(p, Block{n, ev.seq, g ? g->id : 0, pool, 0, stream, layer});
  if (!hazards_.empty())
    onReuse(p, n, ev, out);
}

void Ledger::free(uintptr_t p, int32_t layer) {
  std::lock_guard<std::mutex> lock(mu_);
  enqueue(Pending{p, 0, 0, 0, ++seq_, layer, false});
}

void Ledger::enqueue(const Pending &e) {
  pending_[pendingCount_++] = e;
  if (pendingCount_ == kBatch)
    drainPending();
}

std::unique_lock<std::mutex> Ledger::lockAndDrain() {
  std::unique_lock<std::mutex> lock(mu_);
  drainPending();
  return lock;
}

// Random events over a large live set each miss the cache: a free on the
// block's hash slot, an allocation on its slot and its size-class bucket.
// Issued one by one those misses serialise; prefetching the whole batch
// first lets them overlap.
void Ledger::drainPending() {
  const size_t n = pendingCount_;
  if (n == 0)
    return;
  pendingCount_ = 0;
  for (size_t i = 0; i < n; ++i)
    if (pending_[i].isAlloc)
      blocks_.prefetchInsert(pending_[i].ptr, pending_[i].size);
    else
      blocks_.prefetch(pending_[i].ptr);
  for (size_t i = 0; i < n; ++i)
    if (pending_[i].isAlloc)
      applyAlloc(pending_[i]);
    else
      applyFree(pending_[i]);
}

// A queued allocation: made outside any capture, so it only joins the
// index and the history.
void Ledger::applyAlloc(const Pending &a) {
  Event ev = record(EventKind::Alloc, a.ptr, a.size, a.stream, 0, a.layer, a.seq);
  ev.owner = a.seq;
  history_.push(ev);
  blocks_.insert(a.ptr, Block{a.size, a.seq, 0, a.pool, 0, a.stream, a.layer});
}

void Ledger::applyFree(const Pending &f) {
  const uintptr_t p = f.ptr;
  Block b;
  if (!blocks_.erase(p, &b)) {
    // Allocated before the verifier attached: nothing to check.
    history_.push(record(EventKind::Free, p, 0, 0, 0, f.layer, f.seq));
    return;
  }
  Graph *pg = b.pinnedBy && !active_.empty() ? activeById(b.pinnedBy) : nullptr;
  Event ev = record(EventKind::Free, p, b.size, b.stream,
                    pg ? pg->id : b.graph, f.layer, f.seq);
  ev.owner = b.seq;
  history_.push(ev);
  if (b.bound)
    onBoundFree(p, b, ev);
  if (pg)
    onPinnedFree(*pg, p, b, ev);
  if (!sharedPins_.empty()) {
    for (const SharedPin &s : sharedPins_)
      if (s.block == b.seq)
        if (Graph *other = activeById(s.graph))
          onPinnedFree(*other, p, b, ev);
    dropSharedPins([&](const SharedPin &s) { return s.block == b.seq; });
  }
}

void Ledger::segment(uintptr_t p, uint64_t n) {
  auto lock = lockAndDrain();
  history_.push(record(EventKind::Segment, p, n, 0, 0, -1));
  allocEpoch_ = seq_;
  blocks_.eraseRange(p, n);
}

// A block baked into a running capture's task was freed. Ordinary
// activations do this all the time (stream order keeps the reuse safe), so it
// only becomes a hazard when something will reach the memory again later in
// the capture: a shared workspace slot still pointing at it, or a weak alias
// made during the capture.
void Ledger::onPinnedFree(Graph &g, uintptr_t begin, const Block &b,
                          const Event &freeEv) {
  bool backed = false;
  for (const auto &[key, slot] : g.slots)
    backed |= slot.owner == b.seq;
  bool aliased = g.aliasedOwners.count(b.seq) != 0;
  if (!backed && !aliased)
    return;
  Hazard h;
  h.graph = g.id;
  h.alloc = allocEventOf(begin, b);
  h.free = freeEv;
  h.aliased = aliased;
  h.reported = false;
  hazards_.push_back(h);
}

void Ledger::onReuse(uintptr_t p, uint64_t n, const Event &allocEv,
                     Out &out) {
  for (Hazard &h : hazards_) {
    if (h.reuse.seq || !h.alloc.touches(p, n))
      continue;
    h.reuse = allocEv;
    // A slot still handing the range to later layers makes the reuse the
    // corruption itself; a bare alias waits for its use (it may be one only
    // the same task's update reads after capture, which is safe).
    if (h.reported)
      continue;
    if (int64_t key = backingKey(h); key >= 0)
      reportHazard(h, "reused", allocEv, key, out);
  }
}

void Ledger::reportHazard(Hazard &h, const char *kind, const Event &at,
                          int64_t key, Out &out) {
  h.reported = true;
  std::vector<Event> sites{h.alloc, h.free};
  if (h.reuse.seq)
    sites.push_back(h.reuse);
  if (at.seq != h.reuse.seq)
    sites.push_back(at);
  std::string what =
      key >= 0
          ? format("shared workspace slot %" PRId64 " (%" PRIu64
                   " B at 0x%" PRIxPTR ", allocated by layer %d)",
                   key, h.alloc.size, h.alloc.ptr, h.alloc.layer)
          : format("weakly referenced block (%" PRIu64 " B at 0x%" PRIxPTR
                   ", allocated by layer %d)",
                   h.alloc.size, h.alloc.ptr, h.alloc.layer);
  std::string msg = format(
      "%s is baked into a task of graph %" PRIu64
      " but was freed during the capture (event %" PRIu64 ", layer %d)",
      what.c_str(), h.graph, h.free.seq, h.free.layer);
  if (h.reuse.seq)
    msg += format(" and handed to a new allocation of the same capture (%" PRIu64
                  " B at 0x%" PRIxPTR ", event %" PRIu64 ", layer %d)",
                  h.reuse.size, h.reuse.ptr, h.reuse.seq, h.reuse.layer);
  if (at.kind == EventKind::Alloc && key >= 0)
    msg += "; the slot still hands the old address to the layers that follow";
  else if (at.kind == EventKind::TaskUse || at.kind == EventKind::Workspace)
    msg += format("; layer %d still uses it (event %" PRIu64 ")", at.layer,
                  at.seq);
  else if (at.kind == EventKind::CaptureEnd)
    msg += "; the slot still points at it when the capture ends";
  msg += ": at replay two live tensors share this memory. Hold it strongly "
         "until the capture ends, then weaken it.";
  Violation v = make(check::WeakRefBeforeCaptureEnd, kind, h.graph, at.layer,
                     key, h.alloc.ptr, h.alloc.size, std::move(sites));
  v.message = std::move(msg);
  out.push_back(std::move(v));
}

// ---- capture ---------------------------------------------------------------

uint64_t Ledger::captureBegin(uintptr_t stream, int32_t layer) {
  auto lock = lockAndDrain();
  if (captureOn(stream))
    return 0; // the runtime rejects a nested capture on one stream as well
  auto g = std::make_unique<Graph>();
  g->id = nextGraphId.fetch_add(1, std::memory_order_relaxed);
  g->stream = stream;
  history_.push(record(EventKind::CaptureBegin, 0, 0, stream, g->id, layer));
  active_.push_back(g.get());
  graphs_.push_back(std::move(g));
  return graphs_.back()->id;
}

uint64_t Ledger::captureEnd(uintptr_t stream, int32_t layer, Out &out) {
  auto lock = lockAndDrain();
  Graph *g = captureOn(stream);
  if (!g)
    return 0;
  Event ev = record(EventKind::CaptureEnd, 0, 0, stream, g->id, layer);
  history_.push(ev);
  for (Hazard &h : hazards_)
    if (h.graph == g->id && !h.reported)
      if (int64_t key = backingKey(h); key >= 0)
        reportHazard(h, "freed-before-capture-end", ev, key, out);
  hazards_.erase(std::remove_if(hazards_.begin(), hazards_.end(),
                                [&](const Hazard &h) {
                                  return h.graph == g->id;
                                }),
                 hazards_.end());
  dropSharedPins([&](const SharedPin &s) { return s.graph == g->id; });
  g->capturing = false;
  g->openTask = 0;
  g->aliasedOwners.clear();
  active_.erase(std::find(active_.begin(), active_.end(), g));
  return g->id;
}

void Ledger::taskGroupBegin(uintptr_t stream) {
  auto lock = lockAndDrain();
  Graph *g = captureOn(stream);
  if (!g)
    return;
  g->openTask = nextTaskId.fetch_add(1, std::memory_order_relaxed);
  taskGraph_[g->openTask] = g->id;
  Event ev = record(EventKind::TaskGroupBegin, 0, 0, stream, g->id, -1);
  ev.key = static_cast<int64_t>(g->openTask);
  history_.push(ev);
}

uint64_t Ledger::taskGroupEnd(uintptr_t stream) {
  auto lock = lockAndDrain();
  Graph *g = captureOn(stream);
  if (!g)
    return 0;
  uint64_t task = g->openTask;
  g->openTask = 0;
  Event ev = record(EventKind::TaskGroupEnd, 0, 0, stream, g->id, -1);
  ev.key = static_cast<int64_t>(task);
  history_.push(ev);
  return task;
}

void Ledger::taskUses(uintptr_t stream, uintptr_t p, uint64_t n,
                      uintptr_t handle, int32_t layer, Out &out) {
  auto lock = lockAndDrain();
  Graph *g = captureOn(stream);
  uint64_t task = g ? g->openTask : 0;
  auto up = updates_.find(stream);
  if (!g && up != updates_.end()) {
    auto tg = taskGraph_.find(up->second.task);
    g = tg == taskGraph_.end() ? nullptr : graphById(tg->second);
    task = up->second.task;
  }
  uintptr_t ob = 0;
  Block *owner = ownerOf(p, &ob);
  Event ev = record(EventKind::TaskUse, p, n, stream, g ? g->id : 0, layer);
  ev.owner = owner ? owner->seq : 0;
  ev.key = static_cast<int64_t>(task);
  history_.push(ev);
  if (!g)
    return; // an eager launch bakes nothing in
  if (!g->capturing && up != updates_.end() && !up->second.repinned) {
    // An update re-points the task: its old arguments no longer matter.
    auto &pins = g->pins;
    pins.erase(std::remove_if(pins.begin(), pins.end(),
                              [&](const Pin &x) { return x.task == task; }),
               pins.end());
    up->second.repinned = true;
  }
  g->pins.push_back(Pin{p, n, ev.owner, task, stream, layer, false});
  Pin &pin = g->pins.back();
  pin.boundAt = ev.seq;
  pin.byUpdate = !g->capturing;
  if (owner && !owner->graph) {
    // Memory from outside every capture: the graph does not own it, so
    // someone else must keep it alive while the graph lives.
    pin.eager = true;
    pin.ownerPool = owner->pool;
    owner->bound = 1;
  }
  // Only running captures: a free is a hazard only while one runs, and an
  // update's pin must not hide the capture that baked the block in.
  if (owner && g->capturing && owner->pinnedBy != g->id) {
    // g becomes pinnedBy: it must not also be listed among the others.
    const uint64_t prev = owner->pinnedBy, seq = owner->seq;
    if (!sharedPins_.empty())
      dropSharedPins([&](const SharedPin &s) {
        return s.block == seq && s.graph == g->id;
      });
    if (prev && activeById(prev))
      sharedPins_.push_back(SharedPin{seq, prev});
    owner->pinnedBy = g->id;
  }
  if (!handle)
    return;
  auto a = aliases_.find(handle);
  if (!g->capturing) {
    // An update re-points the task through a weak alias whose source died:
    // the address now belongs to whoever got the range next.
    if (a != aliases_.end() && a->second.owner && owner &&
        owner->seq != a->second.owner && owner->graph != g->id &&
        !(g->pool && owner->pool == g->pool)) {
      pin.owner = a->second.owner;
      pin.eager = false; // the alias's source is the weak-ref check's
      checkPin(*g, pin, "task update", out);
    }
    return;
  }
  if (a == aliases_.end() || a->second.graph != g->id || !a->second.owner ||
      ev.owner == a->second.owner || a->second.reported)
    return;
  // A weak alias made in this capture is used after its source died.
  a->second.reported = true;
  if (Hazard *h = hazardFor(g->id, a->second.owner)) {
    if (!h->reported)
      reportHazard(*h, "alias-used-after-free", ev, backingKey(*h), out);
    return;
  }
  Violation v = make(check::WeakRefBeforeCaptureEnd, "alias-used-after-free",
                     g->id, layer, -1, p, n, {ev});
  v.message = format("layer %d's captured task uses a weak alias (0x%" PRIxPTR
                     ", %" PRIu64 " B) made during the capture of graph %" PRIu64
                     " whose source block (event %" PRIu64
                     ") was freed before the capture ended",
                     layer, p, n, g->id, a->second.owner);
  out.push_back(std::move(v));
}

// ---- weak references and workspaces ---------------------------------------

void Ledger::dropAliasesIfFull() {
  if (aliases_.size() < cfg_.maxAliases)
    return;
  for (auto it = aliases_.begin(); it != aliases_.end();)
    it = activeById(it->second.graph) ? std::next(it) : aliases_.erase(it);
  if (aliases_.size() >= cfg_.maxAliases)
    aliases_.clear(); // bounded memory wins over completeness
}

void Ledger::weakRef(uintptr_t src, uintptr_t alias, uintptr_t p, uint64_t n,
                     int32_t layer, Out &out) {
  auto lock = lockAndDrain();
  uintptr_t ob = 0;
  const Block *owner = p ? ownerOf(p, &ob) : nullptr;
  // The capture the memory belongs to, else the one running on this device.
  Graph *g = owner && owner->graph ? activeById(owner->graph) : nullptr;
  if (!g && !active_.empty())
    g = active_.back();
  Event ev = record(EventKind::WeakRef, p, n, 0, g ? g->id : 0, layer);
  ev.owner = owner ? owner->seq : 0;
  history_.push(ev);
  if (!p || !n) {
    Violation v = make(check::WeakRefOfMaybeNull, "undefined-source",
                       g ? g->id : 0, layer, -1, p, n, {ev});
    v.message = format("layer %d made a weak reference of an undefined or "
                       "empty tensor (ptr 0x%" PRIxPTR ", %" PRIu64
                       " B); guard the conversion with a definedness check",
                       layer, p, n);
    out.push_back(std::move(v));
    return;
  }
  uint64_t sourceOwner = ev.owner;
  // Handle 0 is "unknown" (a caller with bare addresses): it names no alias.
  auto s = src ? aliases_.find(src) : aliases_.end();
  if (s != aliases_.end() && s->second.begin == p) {
    Violation v = make(check::DoubleWeakRef, "alias-of-alias", ev.graph, layer,
                       -1, p, n, {ev});
    v.message = format("layer %d made a weak reference of a value that is "
                       "already a weak reference (0x%" PRIxPTR ", %" PRIu64
                       " B); drop the inner conversion",
                       layer, p, n);
    out.push_back(std::move(v));
    if (!sourceOwner)
      sourceOwner = s->second.owner;
  }
  if (alias) {
    dropAliasesIfFull();
    aliases_[alias] = Alias{p, n, sourceOwner, g ? g->id : 0, false};
  }
  if (g && sourceOwner)
    ++g->aliasedOwners[sourceOwner];
}

void Ledger::workspace(uintptr_t stream, int32_t layer, int64_t key,
                       uintptr_t p, uint64_t n, uint64_t needed, Out &out) {
  auto lock = lockAndDrain();
  Graph *g = captureOn(stream);
  uintptr_t ob = 0;
  const Block *owner = p ? ownerOf(p, &ob) : nullptr;
  Event ev = record(EventKind::Workspace, p, n, stream, g ? g->id : 0, layer);
  ev.owner = owner ? owner->seq : 0;
  ev.key = key;
  history_.push(ev);
  if (!g)
    return; // eager code may resize its caches freely
  auto tooSmall = [&](const Slot &s) {
    if (needed <= s.size)
      return;
    Violation v = make(check::WorkspaceSharedAcrossLayers, "too-small", g->id,
                       layer, key, s.begin, s.size, {ev});
    v.message = format("layer %d needs %" PRIu64 " B of shared workspace slot %"
                       PRId64 " but the slot holds %" PRIu64
                       " B (sized by layer %d) in the capture of graph %" PRIu64,
                       layer, needed, key, s.size, s.layer, g->id);
    out.push_back(std::move(v));
  };
  auto it = g->slots.find(key);
  if (it == g->slots.end()) {
    if (!p)
      return;
    Slot s{p, n, ev.owner, layer, stream, ev.seq, layer, false};
    tooSmall(s);
    g->slots.emplace(key, s);
    return;
  }
  Slot &s = it->second;
  if (s.begin != p || s.size != n) {
    // Replaced or cleared: earlier layers' tasks keep the old address.
    if (pinnedIn(*g, s.begin, s.size)) {
      Violation v = make(check::WorkspaceSharedAcrossLayers,
                         p ? "replaced" : "cleared", g->id, layer, key,
                         s.begin, s.size, {ev});
      v.message = format(
          "layer %d %s shared workspace slot %" PRId64 " (%" PRIu64
          " B at 0x%" PRIxPTR ", sized by layer %d) during the capture of "
          "graph %" PRIu64 " while captured tasks still point at it",
          layer, p ? "replaced" : "cleared", key, s.size, s.begin, s.layer,
          g->id);
      out.push_back(std::move(v));
    }
    if (!p) {
      g->slots.erase(it);
      return;
    }
    s = Slot{p, n, ev.owner, layer, stream, ev.seq, layer, false};
    tooSmall(s);
    return;
  }
  if (s.owner && ev.owner != s.owner && !s.deadReported) {
    s.deadReported = true;
    if (Hazard *h = hazardFor(g->id, s.owner)) {
      if (!h->reported)
        reportHazard(*h, "used-after-free", ev, key, out);
    } else {
      Violation v = make(check::WeakRefBeforeCaptureEnd, "used-after-free",
                         g->id, layer, key, p, n, {ev});
      v.message = format("layer %d takes shared workspace slot %" PRId64
                         " (0x%" PRIxPTR ", %" PRIu64
                         " B) whose block (event %" PRIu64
                         ") was freed during the capture of graph %" PRIu64,
                         layer, key, p, n, s.owner, g->id);
      out.push_back(std::move(v));
    }
  }
  tooSmall(s);
  if (stream != s.lastStream) {
    auto w = waits_.find({stream, s.lastStream});
    if (w == waits_.end() || w->second < s.lastUse) {
      Violation v = make(check::WorkspaceSharedAcrossLayers,
                         "unordered-streams", g->id, layer, key, p, n, {ev});
      v.message = format(
          "layer %d uses shared workspace slot %" PRId64 " on stream 0x%" PRIxPTR
          " while layer %d used it on stream 0x%" PRIxPTR
          " with no ordering between them in the capture of graph %" PRIu64,
          layer, key, stream, s.lastLayer, s.lastStream, g->id);
      out.push_back(std::move(v));
    }
  }
  s.lastStream = stream;
  s.lastUse = ev.seq;
  s.lastLayer = layer;
}

void Ledger::streamWait(uintptr_t waiter, uintptr_t signaler) {
  auto lock = lockAndDrain();
  Event ev = record(EventKind::StreamWait, 0, 0, waiter, 0, -1);
  ev.owner = signaler;
  history_.push(ev);
  waits_[{waiter, signaler}] = ev.seq;
  Graph *g = captureOn(signaler);
  if (g && !captureOn(waiter))
    g->joined.push_back(waiter);
}

// ---- replay, update, reset -------------------------------------------------

// At replay the task writes through the baked address: if the range now
// belongs to a live block outside the graph (and outside its pool), the
// graph and that block share memory.
void Ledger::checkPin(Graph &g, Pin &pin, const char *when, Out &out) {
  if (pin.reported)
    return;
  uintptr_t ob = 0;
  const Block *cur = ownerOf(pin.begin, &ob);
  const bool alive = cur && cur->seq == pin.owner;
  if (!alive && outOfPool(g, pin)) {
    reportDied(g, pin, cur, ob, when, out);
    return;
  }
  if (!cur || alive || cur->graph == g.id ||
      (g.pool && cur->pool == g.pool)) {
    pin.checkedAt = allocEpoch_;
    return;
  }
  pin.reported = true;
  Violation v = make(check::WeakRefBeforeCaptureEnd, "pinned-range-taken", g.id,
                     pin.layer, -1, pin.begin, pin.size,
                     {allocEventOf(ob, *cur)});
  v.message = format(
      "at %s of graph %" PRIu64 ", the range 0x%" PRIxPTR " (%" PRIu64
      " B) baked into a task of layer %d belongs to a live block allocated "
      "outside the graph (event %" PRIu64 ", %" PRIu64
      " B, layer %d); the block the task captured (event %" PRIu64
      ") was not held until the graph was reset",
      when, g.id, pin.begin, pin.size, pin.layer, cur->seq, cur->size,
      cur->layer, pin.owner);
  out.push_back(std::move(v));
}

void Ledger::replay(uint64_t graph, Out &out) {
  auto lock = lockAndDrain();
  history_.push(record(EventKind::Replay, 0, 0, 0, graph, -1));
  Graph *g = graphById(graph);
  if (!g)
    return;
  // Pins already checked since the last allocation (typically by the task
  // updates just before this replay) cannot have been taken since.
  for (Pin &pin : g->pins)
    if (pin.checkedAt != allocEpoch_ || allocEpoch_ == 0)
      checkPin(*g, pin, "replay", out);
}

void Ledger::taskUpdateBegin(uintptr_t stream, uint64_t task) {
  auto lock = lockAndDrain();
  auto tg = taskGraph_.find(task);
  Graph *g = tg == taskGraph_.end() ? nullptr : graphById(tg->second);
  Event ev =
      record(EventKind::TaskUpdateBegin, 0, 0, stream, g ? g->id : 0, -1);
  ev.key = static_cast<int64_t>(task);
  history_.push(ev);
  if (!g)
    return;
  updates_[stream] = Update{task, false};
}

// Checked at the end: the update may re-point exactly the stale arguments.
void Ledger::taskUpdateEnd(uintptr_t stream, Out &out) {
  auto lock = lockAndDrain();
  auto up = updates_.find(stream);
  if (up == updates_.end())
    return;
  uint64_t task = up->second.task;
  updates_.erase(up);
  auto tg = taskGraph_.find(task);
  Graph *g = tg == taskGraph_.end() ? nullptr : graphById(tg->second);
  Event ev = record(EventKind::TaskUpdateEnd, 0, 0, stream, g ? g->id : 0, -1);
  ev.key = static_cast<int64_t>(task);
  history_.push(ev);
  if (!g)
    return;
  for (Pin &pin : g->pins)
    if (pin.task == task)
      checkPin(*g, pin, "task update", out);
}

void Ledger::graphDestroy(uint64_t graph) {
  auto lock = lockAndDrain();
  history_.push(record(EventKind::GraphDestroy, 0, 0, 0, graph, -1));
  // Only a graph the ledger knows: 0 ("no graph") or a stale id must not
  // take the weak aliases made outside any capture (graph 0) with it.
  if (!graphById(graph))
    return;
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](Graph *g) { return g->id == graph; }),
                active_.end());
  graphs_.erase(std::remove_if(graphs_.begin(), graphs_.end(),
                               [&](const std::unique_ptr<Graph> &g) {
                                 return g->id == graph;
                               }),
                graphs_.end());
  hazards_.erase(std::remove_if(hazards_.begin(), hazards_.end(),
                                [&](const Hazard &h) {
                                  return h.graph == graph;
                                }),
                 hazards_.end());
  dropSharedPins([&](const SharedPin &s) { return s.graph == graph; });
  for (auto it = taskGraph_.begin(); it != taskGraph_.end();)
    it = it->second == graph ? taskGraph_.erase(it) : std::next(it);
  for (auto it = aliases_.begin(); it != aliases_.end();)
    it = it->second.graph == graph ? aliases_.erase(it) : std::next(it);
}

size_t Ledger::liveBlocks() {
  auto lock = lockAndDrain();
  return blocks_.size();
}

bool Ledger::blockAt(uintptr_t p, uintptr_t *begin, uint64_t *size) {
  auto lock = lockAndDrain();
  const Block *b = ownerOf(p, begin);
  if (b)
    *size = b->size;
  return b != nullptr;
}

size_t Ledger::historySize() {
  auto lock = lockAndDrain();
  return history_.size();
}

uint64_t Ledger::eventCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seq_;
}

} // namespace tether::rt
