// The C ABI over the ledgers. Owns the process-wide state: one ledger per
// device, the reporter, the enabled flag. Every entry point funnels through
// `guarded`, which turns an internal error into one message and a disabled
// verifier instead of a crash of the host.
#include "ledger.h"
#include "reporter.h"

#include "tether/verify.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

namespace tether::rt {
namespace {

constexpr int kMaxDevices = 64;

size_t envSize(const char *name, size_t dflt) {
  const char *s = std::getenv(name);
  if (!s || !*s)
    return dflt;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (*end || v == 0) {
    std::fprintf(stderr, "tether: ignoring %s=%s (want a positive integer)\n",
                 name, s);
    return dflt;
  }
  return static_cast<size_t>(v);
}

struct Verifier {
  LedgerConfig cfg;
  Reporter reporter;
  std::atomic<bool> enabled{true};
  std::atomic<Ledger *> ledgers[kMaxDevices] = {};
  std::mutex createMu;

  Verifier() {
    cfg.historyEvents = envSize("TETHER_HISTORY", cfg.historyEvents);
    if (const char *m = std::getenv("TETHER_MODE")) {
      if (!std::strcmp(m, "abort"))
        reporter.setMode(TETHER_MODE_ABORT);
      else if (std::strcmp(m, "report") && *m)
        std::fprintf(stderr,
                     "tether: unknown TETHER_MODE=%s, using 'report'\n", m);
    }
    if (const char *r = std::getenv("TETHER_REPORT"); r && *r)
      if (!reporter.setReportPath(r))
        std::fprintf(stderr, "tether: cannot open TETHER_REPORT=%s\n", r);
    if (const char *d = std::getenv("TETHER_DISABLE"); d && !std::strcmp(d, "1"))
      enabled.store(false);
  }

  Ledger &ledger(int device) {
    if (device < 0 || device >= kMaxDevices)
      throw std::out_of_range("device index " + std::to_string(device));
    Ledger *l = ledgers[device].load(std::memory_order_acquire);
    if (l)
      return *l;
    std::lock_guard<std::mutex> lock(createMu);
    l = ledgers[device].load(std::memory_order_relaxed);
    if (!l) {
      l = new Ledger(device, cfg); // lives as long as the process
      ledgers[device].store(l, std::memory_order_release);
    }
    return *l;
  }

  uint64_t events() {
    uint64_t n = 0;
    for (auto &l : ledgers)
      if (Ledger *p = l.load(std::memory_order_acquire))
        n += p->eventCount();
    return n;
  }

  void disable(const char *why) {
    if (enabled.exchange(false))
      std::fprintf(stderr,
                   "tether: internal error (%s); verifier disabled for the "
                   "rest of this run\n",
                   why);
  }
};

void summaryAtExit();

// Never destroyed: interposed calls may still arrive during static
// destruction of the host.
Verifier &verifier() {
  static Verifier *v = [] {
    auto *p = new Verifier;
    std::atexit(summaryAtExit);
    return p;
  }();
  return *v;
}

void summaryAtExit() {
  Verifier &v = verifier();
  if (v.enabled.load())
    v.reporter.summary(v.events());
}

thread_local int32_t tlsLayer = -1;
thread_local Ledger::Out tlsOut;

template <class F> void guarded(int device, F f) {
  Verifier &v = verifier();
  if (!v.enabled.load(std::memory_order_relaxed))
    return;
  try {
    f(v.ledger(device), tlsOut);
    if (!tlsOut.empty()) {
      // A callback may re-enter the verifier and reuse tlsOut.
      Ledger::Out found;
      found.swap(tlsOut);
      for (const Violation &x : found)
        v.reporter.emit(x);
    }
  } catch (const std::exception &e) {
    v.disable(e.what());
  } catch (...) {
    v.disable("unknown exception");
  }
}

uintptr_t u(const void *p) { return reinterpret_cast<uintptr_t>(p); }

} // namespace
} // namespace tether::rt

using namespace tether::rt;

extern "C" {

int tether_verify_api_version(void) { return TETHER_VERIFY_API_VERSION; }

int tether_verify_enabled(void) { return verifier().enabled.load() ? 1 : 0; }

void tether_verify_set_mode(tether_verify_mode mode) {
  verifier().reporter.setMode(mode);
}

void tether_verify_set_callback(tether_violation_fn fn, void *user) {
  verifier().reporter.setCallback(fn, user);
}

uint64_t tether_verify_violation_count(void) {
  return verifier().reporter.count();
}

void tether_verify_set_layer(int32_t layer) { tlsLayer = layer; }

void tether_verify_alloc(int device, const void *ptr, size_t size,
                         const void *stream, uint64_t pool) {
  guarded(device, [&](Ledger &l, Ledger::Out &out) {
    l.alloc(u(ptr), size, u(stream), pool, tlsLayer, out);
  });
}

void tether_verify_free(int device, const void *ptr) {
  guarded(device, [&](Ledger &l, Ledger::Out &) { l.free(u(ptr), tlsLayer); });
}

void tether_verify_segment(int device, const void *ptr, size_t size) {
  guarded(device, [&](Ledger &l, Ledger::Out &) { l.segment(u(ptr), size); });
}

uint64_t tether_verify_capture_begin(int device, const void *stream) {
  uint64_t id = 0;
  guarded(device, [&](Ledger &l, Ledger::Out &) {
    id = l.captureBegin(u(stream), tlsLayer);
  });
  return id;
}

uint64_t tether_verify_capture_end(int device, const void *stream) {
  uint64_t id = 0;
  guarded(device, [&](Ledger &l, Ledger::Out &out) {
    id = l.captureEnd(u(stream), tlsLayer, out);
  });
  return id;
}

void tether_verify_task_group_begin(int device, const void *stream) {
  guarded(device,
          [&](Ledger &l, Ledger::Out &) { l.taskGroupBegin(u(stream)); });
}

uint64_t tether_verify_task_group_end(int device, const void *stream) {
  uint64_t task = 0;
  guarded(device,
          [&](Ledger &l, Ledger::Out &) { task = l.taskGroupEnd(u(stream)); });
  return task;
}

void tether_verify_task_uses(int device, const void *stream, const void *ptr,
                             size_t size, const void *handle) {
  guarded(device, [&](Ledger &l, Ledger::Out &out) {
    l.taskUses(u(stream), u(ptr), size, u(handle), tlsLayer, out);
  });
}

void tether_verify_weak_ref(int device, const void *src, const void *alias,
                            const void *ptr, size_t size) {
  guarded(device, [&](Ledger &l, Ledger::Out &out) {
    l.weakRef(u(src), u(alias), u(ptr), size, tlsLayer, out);
  });
}

void tether_verify_workspace(int device, const void *stream, int32_t layer,
                             int64_t key, const void *ptr, size_t size,
                             size_t needed) {
  guarded(device, [&](Ledger &l, Ledger::Out &out) {
    l.workspace(u(stream), layer, key, u(ptr), size, needed, out);
  });
}

void tether_verify_stream_wait(int device, const void *waiter,
                               const void *signaler) {
  guarded(device, [&](Ledger &l, Ledger::Out &) {
    l.streamWait(u(waiter), u(signaler));
  });
}

void tether_verify_replay(int device, uint64_t graph) {
  guarded(device, [&](Ledger &l, Ledger::Out &out) { l.replay(graph, out); });
}

void tether_verify_task_update_begin(int device, const void *stream,
                                     uint64_t task) {
  guarded(device, [&](Ledger &l, Ledger::Out &) {
    l.taskUpdateBegin(u(stream), task);
  });
}

void tether_verify_task_update_end(int device, const void *stream) {
  guarded(device,
          [&](Ledger &l, Ledger::Out &out) { l.taskUpdateEnd(u(stream), out); });
}

void tether_verify_graph_destroy(int device, uint64_t graph) {
  guarded(device, [&](Ledger &l, Ledger::Out &) { l.graphDestroy(graph); });
}

} // extern "C"
