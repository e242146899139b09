// Fuzz target `ledger`: bytes become a sequence of verifier events fed to a
// fresh Ledger and to the reference model (reference_model.h); after every
// event the violations must be the same, and at audits (and at the end) the
// ledger's live blocks, event count and history size must match the model.
// Every violation is also checked on its own (story in event order and
// bounded, JSON that parses and carries the fields) and, when the input asks
// for it, delivered through the Reporter in callback mode.
//
// Input format (make_seeds.py writes it):
//   byte 0: config. bits 0-2 history capacity {1,2,3,5,8,16,64,1000};
//           bit 3 remember only 3 weak aliases; bit 4 emit through the
//           Reporter's callback; bits 5-6 initial block table {4, 8, 16,
//           128} slots. Small rings and tables, so wrap-around and growth
//           happen within an input (and a run is not spent zeroing them).
//   then events: an opcode byte (mod kOps) and its argument bytes (see
//   Driver::step); a missing byte reads as 0.
// Addresses and sizes are drawn from two small regions and a size table
// that straddles the index's size classes, so collisions, interior pointers,
// freed-and-reused blocks and blocks split and merged by later allocations
// happen often. An allocation overlapping live blocks first frees them (the
// allocator would have), except that one at a live block's start may keep it
// (a free the verifier never saw). RAW events pass arbitrary 64-bit values
// for crash coverage only: the model cannot follow them, so comparisons stop.
#include "ledger.h"
#include "reporter.h"
#include "reference_model.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tether::rt;
using tether::fuzz::Expected;
using tether::fuzz::ExpectedList;
using tether::fuzz::ReferenceModel;

namespace {

enum Op : uint8_t {
  ALLOC, FREE, SEGMENT, CAPTURE_BEGIN, CAPTURE_END, GROUP_BEGIN, GROUP_END,
  USE, WEAK_REF, WORKSPACE, WAIT, REPLAY, UPDATE_BEGIN, UPDATE_END, DESTROY,
  TENSOR, AUDIT, RAW, kOps
};
const char *const kOpNames[kOps] = {
    "alloc",      "free",         "segment",    "capture_begin",
    "capture_end", "group_begin", "group_end",  "task_uses",
    "weak_ref",   "workspace",    "stream_wait", "replay",
    "update_begin", "update_end", "destroy",    "tensor",
    "audit",      "raw"};

constexpr uintptr_t kStreams[4] = {0x5000, 0x6000, 0x7000, 0};
constexpr uint64_t kPools[3] = {0, 7, 8};
constexpr uint64_t kSizes[16] = {0,     1,     48,    256,   512,    1000,
                                 1024,  2048,  4096,  4096,  4097,   12288,
                                 32768, 32769, 262145, (128u << 20) + 1};
constexpr size_t kHistory[8] = {1, 2, 3, 5, 8, 16, 64, 1000};
constexpr uintptr_t kSmallRegion = 0x100000;   // 64 KiB in 256 B steps
constexpr uintptr_t kLargeRegion = 0x10000000; // 16 MiB in 64 KiB steps
constexpr size_t kMaxStory = 24;               // ledger.cpp's bound

struct Reader {
  const uint8_t *data;
  size_t size, pos = 0;
  bool done() const { return pos >= size; }
  uint8_t byte() { return pos < size ? data[pos++] : 0; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v = v << 8 | byte();
    return v;
  }
};

// A tensor the harness made: its identity (handle) and its memory.
struct Tensor {
  uintptr_t handle;
  uintptr_t ptr;
  uint64_t size;
};

struct OpRecord {
  Op op;
  uint64_t a[5];
};

// The violation the callback is expected to deliver next.
const Violation *gDelivering = nullptr;
int gDelivered = 0;

[[noreturn]] void die() {
  std::fflush(stderr);
  __builtin_trap();
}

void onViolation(const tether_violation *v, void *) {
  const Violation *w = gDelivering;
  if (!w || std::string(v->check) != w->check ||
      std::string(v->kind) != w->kind || v->graph != w->graph ||
      v->layer != w->layer || v->key != w->key || v->begin != w->begin ||
      v->size != w->size || v->message != w->message ||
      v->api_version != TETHER_VERIFY_API_VERSION) {
    std::fprintf(stderr, "ledger fuzz: the callback got another violation "
                         "than the one emitted\n");
    die();
  }
  ++gDelivered;
}

Reporter &reporter() {
  static Reporter r;
  static bool once = [] {
    r.setMode(TETHER_MODE_REPORT);
    r.setCallback(onViolation, nullptr);
    return true;
  }();
  (void)once;
  return r;
}

class Driver {
public:
  Driver(const uint8_t *data, size_t size)
      : in_{data, size}, cfg_(configOf(in_.byte())), L_(0, cfg_),
        M_(cfg_.maxAliases) {
    emit_ = size > 0 && (data[0] & 16);
  }

  void run() {
    while (!in_.done())
      step();
    audit();
  }

private:
  static LedgerConfig configOf(uint8_t b) {
    LedgerConfig c;
    c.historyEvents = kHistory[b & 7];
    c.maxAliases = (b & 8) ? 3 : (1 << 16);
    const unsigned tableLog2[4] = {2, 3, 4, 7};
    c.blockTableLog2 = tableLog2[(b >> 5) & 3];
    return c;
  }

  uintptr_t stream() { return kStreams[in_.byte() % 4]; }
  int32_t layer() { return static_cast<int32_t>(in_.byte() % 9) - 1; }

  void note(Op op, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0,
            uint64_t a3 = 0, uint64_t a4 = 0) {
    trace_[ops_++ % kTrace] = OpRecord{op, {a0, a1, a2, a3, a4}};
  }

  [[noreturn]] void fail(const std::string &what) {
    std::fprintf(stderr, "ledger fuzz: %s\nlast events (oldest first):\n",
                 what.c_str());
    size_t first = ops_ > kTrace ? ops_ - kTrace : 0;
    for (size_t i = first; i < ops_; ++i) {
      const OpRecord &r = trace_[i % kTrace];
      std::fprintf(stderr, "  #%zu %s 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
                           " 0x%" PRIx64 " 0x%" PRIx64 "\n",
                   i, kOpNames[r.op], r.a[0], r.a[1], r.a[2], r.a[3], r.a[4]);
    }
    die();
  }

  // Picks a live block of the model (by position), or null.
  const ReferenceModel::Block *pickBlock(uint8_t which) {
    const auto &blocks = M_.blocks();
    if (blocks.empty())
      return nullptr;
    auto it = blocks.begin();
    std::advance(it, which % blocks.size());
    return &it->second;
  }

  void remember(uintptr_t p) { recent_[recentCount_++ % kRecent] = p; }
  uintptr_t recent(uint8_t which) const {
    size_t n = std::min(recentCount_, kRecent);
    return n ? recent_[which % n] : kSmallRegion;
  }

  uintptr_t freshAddress(uint64_t size, uint8_t a1, uint8_t a2) const {
    bool large = (size > 32768) != ((a2 >> 4) & 1);
    return large ? kLargeRegion + uintptr_t(a1) * 65536 + (a2 % 16) * 4096
                 : kSmallRegion + uintptr_t(a1) * 256 + (a2 % 16) * 16;
  }

  // ---- checking ------------------------------------------------------------

  void checkViolation(const Violation &v) {
    if (v.message.empty() || v.device != 0)
      fail("violation without a message or on the wrong device");
    if (v.events.size() > kMaxStory)
      fail("a report's story exceeds its bound");
    const uint64_t events = L_.eventCount();
    for (size_t i = 0; i < v.events.size(); ++i)
      if ((i && v.events[i].seq <= v.events[i - 1].seq) ||
          v.events[i].seq == 0 || v.events[i].seq > events)
        fail("a report's story is out of event order");
    std::string line = toJson(v);
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(line);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      fail("a report is not valid JSON: " + line);
    }
    const llvm::json::Object *o = parsed->getAsObject();
    const llvm::json::Array *evs = o ? o->getArray("events") : nullptr;
    if (!o || o->getString("violation") != llvm::StringRef(v.check) ||
        o->getString("kind") != llvm::StringRef(v.kind) ||
        o->getString("message") != llvm::StringRef(v.message) ||
        o->getInteger("layer") != v.layer || o->getInteger("key") != v.key ||
        !evs || evs->size() != v.events.size())
      fail("a report's JSON does not carry its fields: " + line);
    if (emit_) {
      gDelivering = &v;
      int before = gDelivered;
      reporter().emit(v);
      gDelivering = nullptr;
      if (gDelivered != before + 1)
        fail("the callback was not called once per violation");
    }
  }

  void compare(ExpectedList expected) {
    for (const Violation &v : out_)
      checkViolation(v);
    if (strict_) {
      ExpectedList got;
      for (const Violation &v : out_)
        got.push_back(Expected{v.check, v.kind, v.graph, v.layer, v.key,
                               v.begin, v.size});
      std::sort(got.begin(), got.end());
      std::sort(expected.begin(), expected.end());
      if (got != expected) {
        std::string msg = "the ledger and the model disagree\n  ledger:";
        for (const Expected &e : got)
          msg += "\n    " + e.str();
        msg += "\n  model:";
        for (const Expected &e : expected)
          msg += "\n    " + e.str();
        fail(msg);
      }
    }
    out_.clear();
  }

  void expectBlock(uintptr_t p) {
    uintptr_t b = 0;
    uint64_t n = 0;
    bool has = L_.blockAt(p, &b, &n);
    const ReferenceModel::Block *m = M_.owner(p);
    if (has != (m != nullptr) || (m && (b != m->begin || n != m->size))) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "owner of 0x%" PRIxPTR ": ledger %s 0x%" PRIxPTR
                    "+%" PRIu64 ", model %s",
                    p, has ? "has" : "has none", b, n, m ? "has one" : "none");
      fail(buf);
    }
  }

  void audit() {
    if (!strict_)
      return;
    if (L_.eventCount() != M_.numbered())
      fail("event count differs from the model's");
    size_t cap = 1;
    while (cap < cfg_.historyEvents)
      cap <<= 1;
    if (L_.historySize() != std::min<uint64_t>(M_.numbered(), cap))
      fail("history size is not min(events, capacity)");
    if (L_.liveBlocks() != M_.blocks().size())
      fail("live block count differs from the model's");
    for (const auto &[begin, b] : M_.blocks()) {
      expectBlock(begin);
      expectBlock(begin - 1);
      expectBlock(begin + b.size / 2);
      if (b.size) {
        expectBlock(begin + b.size - 1);
        expectBlock(begin + b.size);
      }
    }
  }

  // ---- events ----------------------------------------------------------------

  void step() {
    Op op = static_cast<Op>(in_.byte() % kOps);
    switch (op) {
    case ALLOC: {
      uintptr_t s = stream();
      uint64_t pool = kPools[in_.byte() % 3];
      int32_t l = layer();
      uint64_t n = kSizes[in_.byte() % 16];
      uint8_t a1 = in_.byte(), a2 = in_.byte(), mode = in_.byte();
      uintptr_t p = (mode & 1) ? recent(a1) : freshAddress(n, a1, a2);
      note(op, p, n, s, pool, l);
      std::vector<uintptr_t> overlapped;
      for (const auto &[begin, b] : M_.blocks())
        if (begin == p ? !(mode & 2)
                       : begin < p + n && p < begin + b.size)
          overlapped.push_back(begin);
      for (uintptr_t q : overlapped)
        free(q, -1);
      L_.alloc(p, n, s, pool, l, out_);
      compare(M_.alloc(p, n, s, pool, l));
      remember(p);
      break;
    }
    case FREE: {
      uint8_t which = in_.byte(), mode = in_.byte();
      uintptr_t p;
      const ReferenceModel::Block *b = pickBlock(which);
      if (mode % 4 < 2 && b)
        p = b->begin;
      else if (mode % 4 == 2)
        p = recent(which);
      else
        p = kSmallRegion + uintptr_t(which) * 256;
      free(p, static_cast<int32_t>((mode >> 2) % 9) - 1);
      break;
    }
    case SEGMENT: {
      uint8_t a = in_.byte(), len = in_.byte();
      bool large = len & 16;
      uintptr_t p = large ? kLargeRegion + uintptr_t(a) * 65536
                          : kSmallRegion + uintptr_t(a) * 256;
      uint64_t n = uint64_t(len % 16) * (large ? (1u << 20) : 4096);
      note(op, p, n);
      L_.segment(p, n);
      M_.segment(p, n);
      break;
    }
    case CAPTURE_BEGIN: {
      uintptr_t s = stream();
      int32_t l = layer();
      note(op, s, l);
      bool allowed = M_.captureBeginAllowed(s);
      uint64_t id = L_.captureBegin(s, l);
      if (allowed != (id != 0))
        fail("capture begin accepted/refused unlike the model");
      if (id)
        M_.graphCreated(s, id);
      break;
    }
    case CAPTURE_END: {
      uintptr_t s = stream();
      int32_t l = layer();
      note(op, s, l);
      uint64_t expectedId = 0;
      ExpectedList e = M_.captureEnd(s, l, &expectedId);
      uint64_t id = L_.captureEnd(s, l, out_);
      if (strict_ && id != expectedId)
        fail("capture end returned another graph than the model's");
      compare(std::move(e));
      break;
    }
    case GROUP_BEGIN: {
      uintptr_t s = stream();
      note(op, s);
      L_.taskGroupBegin(s);
      M_.taskGroupBegin(s);
      break;
    }
    case GROUP_END: {
      uintptr_t s = stream();
      note(op, s);
      bool had = false;
      int token = M_.taskGroupEnd(s, &had);
      uint64_t id = L_.taskGroupEnd(s);
      if (token == ReferenceModel::kNone) {
        if (id != 0)
          fail("task group end returned a task the model has not");
      } else {
        std::vector<uint64_t> known = M_.taskIds();
        if (id == 0 || std::count(known.begin(), known.end(), id))
          fail("task group end returned no task or a used one");
        M_.taskLearned(token, id);
      }
      break;
    }
    case USE: {
      uintptr_t s = stream();
      int32_t l = layer();
      uint8_t which = in_.byte(), off = in_.byte(), mode = in_.byte() % 4;
      uintptr_t p = 0, h = 0;
      uint64_t n = 0;
      if ((mode == 0 || mode == 3) && !tensors_.empty()) {
        const Tensor &t = tensors_[which % tensors_.size()];
        p = t.ptr, n = t.size, h = mode == 0 ? t.handle : 0;
      } else if (const ReferenceModel::Block *b = pickBlock(which)) {
        p = b->begin, n = b->size;
        if (mode == 2) {
          uint64_t skip = n / 256 * off;
          p += skip, n -= skip;
        }
      }
      note(op, p, n, s, h, l);
      L_.taskUses(s, p, n, h, l, out_);
      compare(M_.taskUses(s, p, n, h, l));
      break;
    }
    case WEAK_REF: {
      uint8_t which = in_.byte(), mode = in_.byte() % 4;
      int32_t l = layer();
      Tensor src{0, 0, 0};
      if (!tensors_.empty())
        src = tensors_[which % tensors_.size()];
      uintptr_t alias = mode == 1 ? 0 : nextHandle_++;
      uintptr_t srcHandle = mode == 2 ? 0 : src.handle;
      if (mode == 3)
        src.ptr = 0, src.size = 0;
      note(op, srcHandle, alias, src.ptr, src.size, l);
      L_.weakRef(srcHandle, alias, src.ptr, src.size, l, out_);
      compare(M_.weakRef(srcHandle, alias, src.ptr, src.size, l));
      if (alias && src.ptr && src.size)
        addTensor(Tensor{alias, src.ptr, src.size});
      break;
    }
    case WORKSPACE: {
      uintptr_t s = stream();
      int32_t l = layer();
      int64_t key = in_.byte() % 4;
      uint8_t which = in_.byte(), nd = in_.byte(), mode = in_.byte() % 4;
      uintptr_t p = 0;
      uint64_t n = 0;
      if (mode == 0 && !tensors_.empty()) {
        const Tensor &t = tensors_[which % tensors_.size()];
        p = t.ptr, n = t.size;
      } else if (mode == 3 && M_.slotOf(s, key, &p, &n)) {
        // the slot as it stands: the same workspace taken by a later layer
      } else if (mode != 2) {
        if (const ReferenceModel::Block *b = pickBlock(which))
          p = b->begin, n = b->size;
      }
      const uint64_t needs[4] = {n, n / 2, n + 1, 2 * n};
      uint64_t needed = needs[nd % 4];
      note(op, p, n, s, uint64_t(key), needed);
      L_.workspace(s, l, key, p, n, needed, out_);
      compare(M_.workspace(s, l, key, p, n, needed));
      break;
    }
    case WAIT: {
      uintptr_t w = stream(), s = stream();
      note(op, w, s);
      L_.streamWait(w, s);
      M_.streamWait(w, s);
      break;
    }
    case REPLAY: {
      uint64_t id = graphId(in_.byte());
      note(op, id);
      L_.replay(id, out_);
      compare(M_.replay(id));
      break;
    }
    case UPDATE_BEGIN: {
      uintptr_t s = stream();
      std::vector<uint64_t> ids = M_.taskIds();
      uint8_t which = in_.byte();
      uint64_t task = ids.empty() || which % (ids.size() + 1) == ids.size()
                          ? 0
                          : ids[which % (ids.size() + 1)];
      note(op, s, task);
      L_.taskUpdateBegin(s, task);
      M_.taskUpdateBegin(s, task);
      break;
    }
    case UPDATE_END: {
      uintptr_t s = stream();
      note(op, s);
      L_.taskUpdateEnd(s, out_);
      compare(M_.taskUpdateEnd(s));
      break;
    }
    case DESTROY: {
      uint64_t id = graphId(in_.byte());
      note(op, id);
      L_.graphDestroy(id);
      M_.graphDestroy(id);
      break;
    }
    case TENSOR: {
      uint8_t which = in_.byte(), off = in_.byte();
      const ReferenceModel::Block *b = pickBlock(which);
      Tensor t{nextHandle_++, 0, 0};
      if (b && off != 255) {
        t.ptr = b->begin, t.size = b->size;
        if ((off & 3) == 3) {
          uint64_t skip = t.size / 64 * (off >> 2);
          t.ptr += skip, t.size -= skip;
        }
      }
      note(op, t.handle, t.ptr, t.size);
      addTensor(t);
      break;
    }
    case AUDIT:
      note(op);
      audit();
      break;
    case RAW:
      raw();
      break;
    case kOps:
      break;
    }
  }

  void free(uintptr_t p, int32_t l) {
    note(FREE, p, uint64_t(l));
    L_.free(p, l);
    M_.free(p);
    remember(p);
  }

  void addTensor(const Tensor &t) {
    if (tensors_.size() < kMaxTensors)
      tensors_.push_back(t);
    else
      tensors_[t.handle % kMaxTensors] = t;
  }

  // A graph id of this input, 0, or one no graph has: never a raw value,
  // as ids are process-wide and a raw one could name another input's graph.
  uint64_t graphId(uint8_t which) const {
    std::vector<uint64_t> ids = M_.graphIds();
    size_t k = which % (ids.size() + 2);
    return k < ids.size() ? ids[k] : k == ids.size() ? 0 : ~uint64_t(0);
  }

  // Arbitrary values, for crash coverage: the model stops here.
  void raw() {
    strict_ = false;
    uint8_t sub = in_.byte() % 6;
    uintptr_t s = stream();
    uint64_t a = in_.u64(), b = in_.u64(), c = in_.u64();
    note(RAW, sub, a, b, c);
    switch (sub) {
    case 0: L_.alloc(a, b, s, c, -1, out_); break;
    case 1: L_.free(a, -1); break;
    case 2: L_.segment(a, b); break;
    case 3: L_.taskUses(s, a, b, c, -1, out_); break;
    case 4: L_.weakRef(c, c + 1, a, b, -1, out_); break;
    case 5: L_.workspace(s, -1, int64_t(c), a, b, c, out_); break;
    }
    compare({});
  }

  static constexpr size_t kTrace = 48;
  static constexpr size_t kRecent = 8;
  static constexpr size_t kMaxTensors = 24;

  Reader in_;
  LedgerConfig cfg_;
  Ledger L_;
  ReferenceModel M_;
  Ledger::Out out_;
  bool strict_ = true;
  bool emit_ = false;
  std::vector<Tensor> tensors_;
  uintptr_t nextHandle_ = 0x1000;
  uintptr_t recent_[kRecent] = {};
  size_t recentCount_ = 0;
  OpRecord trace_[kTrace];
  size_t ops_ = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Driver(data, size).run();
  return 0;
}
