#include "reporter.h"

#include <cinttypes>
#include <cstdlib>

namespace tether::rt {

namespace {
// A storm of violations must not flood the host's stderr; the file and the
// callback still receive every one.
constexpr uint64_t kStderrLines = 20;
} // namespace

Reporter::Reporter() = default;

Reporter::~Reporter() {
  if (file_)
    std::fclose(file_);
}

void Reporter::setCallback(tether_violation_fn fn, void *user) {
  std::lock_guard<std::mutex> lock(mu_);
  callback_ = fn;
  user_ = user;
}

bool Reporter::setReportPath(const std::string &path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (file_)
    std::fclose(file_);
  file_ = nullptr;
  if (path.empty())
    return true;
  file_ = std::fopen(path.c_str(), "a");
  return file_ != nullptr;
}

void Reporter::emit(const Violation &v) {
  std::string json = toJson(v);
  tether_violation_fn cb;
  void *user;
  uint64_t n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    n = ++count_;
    ++perCheck_[v.check];
    if (file_) {
      std::fputs(json.c_str(), file_);
      std::fputc('\n', file_);
      std::fflush(file_); // abort mode and crashes must not lose the line
    }
    cb = callback_;
    user = user_;
  }
  if (n <= kStderrLines)
    std::fprintf(stderr, "tether: %s [%s, graph %" PRIu64 "]: %s\n", v.check,
                 v.kind, v.graph, v.message.c_str());
  else if (n == kStderrLines + 1)
    std::fprintf(stderr, "tether: further violations go to the report only\n");
  if (cb) {
    tether_violation c{TETHER_VERIFY_API_VERSION,
                       v.check,
                       v.kind,
                       v.graph,
                       v.layer,
                       v.key,
                       v.begin,
                       static_cast<size_t>(v.size),
                       v.message.c_str(),
                       json.c_str()};
    cb(&c, user);
  }
  if (mode_.load() == TETHER_MODE_ABORT) {
    std::fprintf(stderr, "tether: TETHER_MODE=abort: aborting\n");
    std::abort();
  }
}

void Reporter::summary(uint64_t events) {
  std::lock_guard<std::mutex> lock(mu_);
  if (events == 0)
    return;
  if (count_.load() == 0) {
    std::fprintf(stderr, "tether: no violations in %" PRIu64 " events\n",
                 events);
    return;
  }
  std::fprintf(stderr, "tether: %" PRIu64 " violation(s) in %" PRIu64
                       " events:\n",
               count_.load(), events);
  for (const auto &[check, n] : perCheck_)
    std::fprintf(stderr, "tether:   %-40s %" PRIu64 "\n", check.c_str(), n);
}

} // namespace tether::rt
