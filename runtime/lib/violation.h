// A violation as the ledger found it, and its JSON line. Built only on the
// (rare) reporting path, so it may allocate.
#ifndef TETHER_RUNTIME_VIOLATION_H
#define TETHER_RUNTIME_VIOLATION_H

#include "event.h"
#include "common/Messages.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tether::rt {

// The static checks' names: one doc page explains both analyses.
namespace check = ::tether::msg;

struct Violation {
  const char *check = "";
  const char *kind = "";
  uint64_t graph = 0;
  int32_t layer = -1;
  int64_t key = -1;
  uintptr_t begin = 0;
  uint64_t size = 0;
  int device = 0;
  std::string message;
  std::vector<Event> events; // the story, oldest first
};

// {"violation": ..., "kind", "device", "graph", "layer", "key", "range",
//  "message", "events": [...]} on one line.
std::string toJson(const Violation &v);

} // namespace tether::rt

#endif
