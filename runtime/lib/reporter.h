// Where violations go: one stderr line each, JSON lines to TETHER_REPORT,
// the C callback, a summary at exit, and abort() in abort mode.
#ifndef TETHER_RUNTIME_REPORTER_H
#define TETHER_RUNTIME_REPORTER_H

#include "violation.h"

#include "tether/verify.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace tether::rt {

class Reporter {
public:
  Reporter();
  ~Reporter();

  void setMode(tether_verify_mode m) { mode_.store(m); }
  tether_verify_mode mode() const { return mode_.load(); }
  void setCallback(tether_violation_fn fn, void *user);
  // An empty path turns the file off.
  bool setReportPath(const std::string &path);

  void emit(const Violation &v);
  uint64_t count() const { return count_.load(); }
  // One stderr paragraph: counts per check. Silent when nothing was seen.
  void summary(uint64_t events);

private:
  std::atomic<tether_verify_mode> mode_{TETHER_MODE_REPORT};
  std::atomic<uint64_t> count_{0};
  std::mutex mu_;
  tether_violation_fn callback_ = nullptr;
  void *user_ = nullptr;
  std::FILE *file_ = nullptr;
  std::map<std::string, uint64_t> perCheck_;
};

} // namespace tether::rt

#endif
