#include "reference_model.h"

#include "common/Messages.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

namespace tether::fuzz {

namespace check = ::tether::msg;

bool Expected::operator<(const Expected &o) const {
  return std::tie(check, kind, graph, layer, key, begin, size) <
         std::tie(o.check, o.kind, o.graph, o.layer, o.key, o.begin, o.size);
}

std::string Expected::str() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s/%s graph=%" PRIu64 " layer=%d key=%" PRId64
                " range=0x%" PRIxPTR "+%" PRIu64,
                check.c_str(), kind.c_str(), graph, layer, key, begin, size);
  return buf;
}

namespace {
bool overlaps(uintptr_t a, uint64_t an, uintptr_t b, uint64_t bn) {
  return a < b + bn && b < a + an;
}
} // namespace

// ---- lookups ----------------------------------------------------------------

ReferenceModel::Block *ReferenceModel::ownerMut(uintptr_t p) {
  for (auto &[begin, b] : live_)
    if (begin <= p && p - begin < b.size)
      return &b;
  return nullptr;
}

const ReferenceModel::Block *ReferenceModel::owner(uintptr_t p) const {
  return const_cast<ReferenceModel *>(this)->ownerMut(p);
}

bool ReferenceModel::active(int g) const {
  return g != kNone && graphs_[g].capturing && !graphs_[g].destroyed;
}

int ReferenceModel::captureOn(uintptr_t stream) const {
  for (int g : active_) {
    const Graph &gr = graphs_[g];
    if (gr.stream == stream ||
        std::count(gr.joined.begin(), gr.joined.end(), stream))
      return g;
  }
  return kNone;
}

int ReferenceModel::captureFor(uintptr_t stream, uint64_t pool) const {
  for (int g : active_) {
    const Graph &gr = graphs_[g];
    if (gr.stream == stream || (pool && gr.pool == pool) ||
        std::count(gr.joined.begin(), gr.joined.end(), stream))
      return g;
  }
  return kNone;
}

int ReferenceModel::graphById(uint64_t id) const {
  for (size_t g = 0; g < graphs_.size(); ++g)
    if (graphs_[g].id == id && !graphs_[g].destroyed)
      return static_cast<int>(g);
  return kNone;
}

int ReferenceModel::taskById(uint64_t id) const {
  if (id == 0)
    return kNone;
  for (size_t t = 0; t < tasks_.size(); ++t)
    if (tasks_[t].id == id)
      return static_cast<int>(t);
  return kNone;
}

int64_t ReferenceModel::backingKey(const Hazard &h) const {
  if (!active(h.graph))
    return -1;
  for (const auto &[key, slot] : graphs_[h.graph].slots)
    if (slot.owner == h.block)
      return key; // std::map: the smallest
  return -1;
}

ReferenceModel::Hazard *ReferenceModel::hazard(int g, uint64_t block) {
  for (Hazard &h : hazards_)
    if (h.graph == g && h.block == block)
      return &h;
  return nullptr;
}

Expected ReferenceModel::make(const char *check, const char *kind, int g,
                              int32_t layer, int64_t key, uintptr_t begin,
                              uint64_t size) const {
  return Expected{check, kind, g == kNone ? 0 : graphs_[g].id, layer, key,
                  begin, size};
}

std::vector<uint64_t> ReferenceModel::graphIds() const {
  std::vector<uint64_t> ids;
  for (const Graph &g : graphs_)
    ids.push_back(g.id);
  return ids;
}

std::vector<uint64_t> ReferenceModel::taskIds() const {
  std::vector<uint64_t> ids;
  for (const Task &t : tasks_)
    if (t.id)
      ids.push_back(t.id);
  return ids;
}

bool ReferenceModel::slotOf(uintptr_t stream, int64_t key, uintptr_t *p,
                            uint64_t *n) const {
  int g = captureOn(stream);
  if (g == kNone)
    return false;
  auto it = graphs_[g].slots.find(key);
  if (it == graphs_[g].slots.end())
    return false;
  *p = it->second.begin;
  *n = it->second.size;
  return true;
}

// ---- allocator feed -----------------------------------------------------------

ExpectedList ReferenceModel::alloc(uintptr_t p, uint64_t n, uintptr_t stream,
                                   uint64_t pool, int32_t layer) {
  ++numbered_;
  ExpectedList out;
  int g = captureFor(stream, pool);
  // The first allocation a capture makes from a pool on its own stream
  // names the capture's private pool.
  if (g != kNone && pool && !graphs_[g].pool && graphs_[g].stream == stream)
    graphs_[g].pool = pool;
  // A block at the same start whose free was never seen is replaced.
  live_[p] = Block{p, n, nextBlock_++, g, pool, {}};
  for (Hazard &h : hazards_) {
    if (h.reused || !overlaps(h.begin, h.size, p, n))
      continue;
    h.reused = true;
    // Reported at the reuse only while a slot still hands the old range to
    // later layers; a bare weak alias waits for its use.
    int64_t key = backingKey(h);
    if (!h.reported && key >= 0) {
      h.reported = true;
      out.push_back(make(check::WeakRefBeforeCaptureEnd, "reused", h.graph,
                         layer, key, h.begin, h.size));
    }
  }
  return out;
}

void ReferenceModel::free(uintptr_t p) {
  ++numbered_;
  auto it = live_.find(p);
  if (it == live_.end())
    return; // not a block start: nothing the ledger knows
  Block b = it->second;
  live_.erase(it);
  // A block baked into a running capture's task becomes a hazard when a
  // slot of that capture or a weak alias made in it still reaches it.
  for (int g : b.pinners) {
    if (!active(g))
      continue;
    const Graph &gr = graphs_[g];
    bool slotBacked = false;
    for (const auto &[key, slot] : gr.slots)
      slotBacked |= slot.owner == b.id;
    if (slotBacked || gr.aliasedBlocks.count(b.id))
      hazards_.push_back(Hazard{g, b.id, b.begin, b.size, false, false});
  }
}

void ReferenceModel::segment(uintptr_t p, uint64_t n) {
  ++numbered_;
  for (auto it = live_.begin(); it != live_.end();)
    it = it->first >= p && it->first - p < n ? live_.erase(it) : std::next(it);
}

// ---- capture -------------------------------------------------------------------

bool ReferenceModel::captureBeginAllowed(uintptr_t stream) const {
  return captureOn(stream) == kNone;
}

int ReferenceModel::graphCreated(uintptr_t stream, uint64_t ledgerId) {
  ++numbered_;
  Graph g;
  g.id = ledgerId;
  g.stream = stream;
  graphs_.push_back(g);
  int idx = static_cast<int>(graphs_.size() - 1);
  active_.push_back(idx);
  return idx;
}

ExpectedList ReferenceModel::captureEnd(uintptr_t stream, int32_t layer,
                                        uint64_t *endedId) {
  ExpectedList out;
  int g = captureOn(stream);
  *endedId = g == kNone ? 0 : graphs_[g].id;
  if (g == kNone)
    return out;
  ++numbered_;
  for (Hazard &h : hazards_) {
    if (h.graph != g || h.reported)
      continue;
    int64_t key = backingKey(h);
    if (key >= 0)
      out.push_back(make(check::WeakRefBeforeCaptureEnd,
                         "freed-before-capture-end", g, layer, key, h.begin,
                         h.size));
  }
  hazards_.erase(std::remove_if(hazards_.begin(), hazards_.end(),
                                [&](const Hazard &h) { return h.graph == g; }),
                 hazards_.end());
  Graph &gr = graphs_[g];
  gr.capturing = false;
  gr.openTask = kNone;
  gr.aliasedBlocks.clear();
  active_.erase(std::find(active_.begin(), active_.end(), g));
  return out;
}

void ReferenceModel::taskGroupBegin(uintptr_t stream) {
  int g = captureOn(stream);
  if (g == kNone)
    return;
  ++numbered_;
  tasks_.push_back(Task{g, 0});
  graphs_[g].openTask = static_cast<int>(tasks_.size() - 1);
}

int ReferenceModel::taskGroupEnd(uintptr_t stream, bool *hadCapture) {
  int g = captureOn(stream);
  *hadCapture = g != kNone;
  if (g == kNone)
    return kNone;
  ++numbered_;
  int t = graphs_[g].openTask;
  graphs_[g].openTask = kNone;
  return t;
}

ExpectedList ReferenceModel::taskUses(uintptr_t stream, uintptr_t p,
                                      uint64_t n, uintptr_t handle,
                                      int32_t layer) {
  ++numbered_;
  ExpectedList out;
  int g = captureOn(stream);
  int task = g == kNone ? kNone : graphs_[g].openTask;
  auto up = updates_.find(stream);
  if (g == kNone && up != updates_.end()) {
    task = up->second.task;
    g = tasks_[task].graph;
    if (g != kNone && graphs_[g].destroyed)
      g = kNone;
  }
  Block *own = ownerMut(p);
  uint64_t ownerId = own ? own->id : 0;
  if (g == kNone)
    return out; // an eager launch bakes nothing in
  Graph &gr = graphs_[g];
  if (!gr.capturing && up != updates_.end() && !up->second.repinned) {
    // The update re-points the task: its old arguments are gone.
    gr.pins.erase(std::remove_if(gr.pins.begin(), gr.pins.end(),
                                 [&](const Pin &x) { return x.task == task; }),
                  gr.pins.end());
    up->second.repinned = true;
  }
  gr.pins.push_back(Pin{p, n, ownerId, task, layer, false});
  gr.pins.back().byUpdate = !gr.capturing;
  if (own && own->graph == kNone) {
    gr.pins.back().eager = true;
    gr.pins.back().ownerPool = own->pool;
  }
  if (own && gr.capturing)
    own->pinners.insert(g);
  if (!handle)
    return out;
  auto a = aliases_.find(handle);
  if (!gr.capturing) {
    // An update through a weak alias whose source block no longer holds
    // the range: the task now points at whoever took it.
    if (a != aliases_.end() && a->second.owner && own &&
        own->id != a->second.owner && own->graph != g &&
        !(gr.pool && own->pool == gr.pool)) {
      Pin &pin = gr.pins.back();
      pin.owner = a->second.owner;
      pin.eager = false; // the weak-ref road, not an outside input
      checkPin(g, pin, out);
    }
    return out;
  }
  if (a == aliases_.end() || a->second.graph != g || !a->second.owner ||
      ownerId == a->second.owner || a->second.reported)
    return out;
  a->second.reported = true;
  if (Hazard *h = hazard(g, a->second.owner)) {
    if (!h->reported) {
      h->reported = true;
      out.push_back(make(check::WeakRefBeforeCaptureEnd,
                         "alias-used-after-free", g, layer, backingKey(*h),
                         h->begin, h->size));
    }
    return out;
  }
  out.push_back(make(check::WeakRefBeforeCaptureEnd, "alias-used-after-free",
                     g, layer, -1, p, n));
  return out;
}

// ---- weak references and workspaces ----------------------------------------

ExpectedList ReferenceModel::weakRef(uintptr_t src, uintptr_t alias,
                                     uintptr_t p, uint64_t n, int32_t layer) {
  ++numbered_;
  ExpectedList out;
  const Block *own = p ? owner(p) : nullptr;
  // The capture the memory was allocated in, else the latest one running.
  int g = own && active(own->graph) ? own->graph
          : active_.empty()         ? kNone
                                    : active_.back();
  if (!p || !n) {
    out.push_back(make(check::WeakRefOfMaybeNull, "undefined-source", g, layer,
                       -1, p, n));
    return out;
  }
  uint64_t sourceOwner = own ? own->id : 0;
  auto s = src ? aliases_.find(src) : aliases_.end();
  if (s != aliases_.end() && s->second.begin == p) {
    out.push_back(
        make(check::DoubleWeakRef, "alias-of-alias", g, layer, -1, p, n));
    if (!sourceOwner)
      sourceOwner = s->second.owner;
  }
  if (alias) {
    // Bounded memory: forget the aliases of finished captures first, then
    // all of them.
    if (aliases_.size() >= maxAliases_) {
      for (auto it = aliases_.begin(); it != aliases_.end();)
        it = active(it->second.graph) ? std::next(it) : aliases_.erase(it);
      if (aliases_.size() >= maxAliases_)
        aliases_.clear();
    }
    aliases_[alias] = Alias{p, n, sourceOwner, g, false};
  }
  if (g != kNone && sourceOwner)
    graphs_[g].aliasedBlocks.insert(sourceOwner);
  return out;
}

ExpectedList ReferenceModel::workspace(uintptr_t stream, int32_t layer,
                                       int64_t key, uintptr_t p, uint64_t n,
                                       uint64_t needed) {
  const uint64_t seq = ++numbered_;
  ExpectedList out;
  int g = captureOn(stream);
  const Block *own = p ? owner(p) : nullptr;
  uint64_t ownerId = own ? own->id : 0;
  if (g == kNone)
    return out; // eager code may resize its caches freely
  Graph &gr = graphs_[g];
  auto tooSmall = [&](const Slot &s) {
    if (needed > s.size)
      out.push_back(make(check::WorkspaceSharedAcrossLayers, "too-small", g,
                         layer, key, s.begin, s.size));
  };
  const Slot fresh{p, n, ownerId, layer, stream, seq, layer, false};
  auto it = gr.slots.find(key);
  if (it == gr.slots.end()) {
    if (!p)
      return out;
    tooSmall(fresh);
    gr.slots.emplace(key, fresh);
    return out;
  }
  Slot &s = it->second;
  if (s.begin != p || s.size != n) {
    bool pinned = false;
    for (const Pin &pin : gr.pins)
      pinned |= overlaps(pin.begin, pin.size, s.begin, s.size);
    if (pinned)
      out.push_back(make(check::WorkspaceSharedAcrossLayers,
                         p ? "replaced" : "cleared", g, layer, key, s.begin,
                         s.size));
    if (!p) {
      gr.slots.erase(it);
      return out;
    }
    s = fresh;
    tooSmall(s);
    return out;
  }
  if (s.owner && ownerId != s.owner && !s.deadReported) {
    s.deadReported = true;
    if (Hazard *h = hazard(g, s.owner)) {
      if (!h->reported) {
        h->reported = true;
        out.push_back(make(check::WeakRefBeforeCaptureEnd, "used-after-free",
                           g, layer, key, h->begin, h->size));
      }
    } else {
      out.push_back(make(check::WeakRefBeforeCaptureEnd, "used-after-free", g,
                         layer, key, p, n));
    }
  }
  tooSmall(s);
  if (stream != s.lastStream) {
    auto w = waits_.find({stream, s.lastStream});
    if (w == waits_.end() || w->second < s.lastUse)
      out.push_back(make(check::WorkspaceSharedAcrossLayers,
                         "unordered-streams", g, layer, key, p, n));
  }
  s.lastStream = stream;
  s.lastUse = seq;
  s.lastLayer = layer;
  return out;
}

void ReferenceModel::streamWait(uintptr_t waiter, uintptr_t signaler) {
  waits_[{waiter, signaler}] = ++numbered_;
  int g = captureOn(signaler);
  if (g != kNone && captureOn(waiter) == kNone)
    graphs_[g].joined.push_back(waiter);
}

// ---- replay, update, reset ---------------------------------------------------

void ReferenceModel::checkPin(int g, Pin &pin, ExpectedList &out) {
  if (pin.reported)
    return;
  Graph &gr = graphs_[g];
  const Block *cur = owner(pin.begin);
  // Memory from outside every capture and outside the graph's pool that a
  // task reads died (freed, replaced, dropped by a segment) while the graph
  // lives: graph-memory-dies-before-replay, whoever has the range now.
  const bool alive = cur && cur->id == pin.owner;
  if (!alive && pin.eager && !(gr.pool && pin.ownerPool == gr.pool)) {
    pin.reported = true;
    if (pin.byUpdate && !gr.diedTasks.insert(pin.task).second)
      return; // once per task: each update repeats the same binding
    out.push_back(make(check::GraphMemoryDiesBeforeReplay,
                       pin.byUpdate ? "update-buffer-freed" : "out-of-pool-freed",
                       g, pin.layer, -1, pin.begin, pin.size));
    return;
  }
  if (!cur || alive || cur->graph == g ||
      (gr.pool && cur->pool == gr.pool))
    return;
  pin.reported = true;
  out.push_back(make(check::WeakRefBeforeCaptureEnd, "pinned-range-taken", g,
                     pin.layer, -1, pin.begin, pin.size));
}

ExpectedList ReferenceModel::replay(uint64_t graphId) {
  ++numbered_;
  ExpectedList out;
  int g = graphById(graphId);
  if (g == kNone)
    return out;
  for (Pin &pin : graphs_[g].pins)
    checkPin(g, pin, out);
  return out;
}

void ReferenceModel::taskUpdateBegin(uintptr_t stream, uint64_t taskId) {
  ++numbered_;
  int t = taskById(taskId);
  if (t == kNone || tasks_[t].graph == kNone ||
      graphs_[tasks_[t].graph].destroyed)
    return;
  updates_[stream] = Update{t, false};
}

ExpectedList ReferenceModel::taskUpdateEnd(uintptr_t stream) {
  ExpectedList out;
  auto up = updates_.find(stream);
  if (up == updates_.end())
    return out;
  ++numbered_;
  int t = up->second.task;
  updates_.erase(up);
  int g = tasks_[t].graph;
  if (g == kNone || graphs_[g].destroyed)
    return out;
  for (Pin &pin : graphs_[g].pins)
    if (pin.task == t)
      checkPin(g, pin, out);
  return out;
}

void ReferenceModel::graphDestroy(uint64_t graphId) {
  ++numbered_;
  int g = graphById(graphId);
  if (g == kNone)
    return;
  graphs_[g].destroyed = true;
  active_.erase(std::remove(active_.begin(), active_.end(), g), active_.end());
  hazards_.erase(std::remove_if(hazards_.begin(), hazards_.end(),
                                [&](const Hazard &h) { return h.graph == g; }),
                 hazards_.end());
  for (auto it = aliases_.begin(); it != aliases_.end();)
    it = it->second.graph == g ? aliases_.erase(it) : std::next(it);
}

} // namespace tether::fuzz
