// One ledger event: what happened, to which range, in which context. Kept
// trivially copyable so the history ring can store it without allocating.
#ifndef TETHER_RUNTIME_EVENT_H
#define TETHER_RUNTIME_EVENT_H

#include <cstdint>

namespace tether::rt {

enum class EventKind : uint8_t {
  Alloc,
  Free,
  Segment,
  CaptureBegin,
  CaptureEnd,
  TaskGroupBegin,
  TaskGroupEnd,
  TaskUse,
  WeakRef,
  Workspace,
  StreamWait,
  Replay,
  TaskUpdateBegin,
  TaskUpdateEnd,
  GraphDestroy,
};

const char *eventName(EventKind k);

struct Event {
  uint64_t seq = 0;      // position in the device's event order
  uintptr_t ptr = 0;
  uint64_t size = 0;
  uintptr_t stream = 0;
  uint64_t graph = 0;    // capture active for this event, 0 if none
  uint64_t owner = 0;    // alloc seq of the block the range belonged to
  int64_t key = -1;      // workspace key, task id, ...
  int32_t layer = -1;
  EventKind kind = EventKind::Alloc;

  bool touches(uintptr_t b, uint64_t n) const {
    return ptr < b + n && b < ptr + (size ? size : 1);
  }
};

} // namespace tether::rt

#endif
