#include "violation.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace tether::rt {

const char *eventName(EventKind k) {
  switch (k) {
  case EventKind::Alloc: return "alloc";
  case EventKind::Free: return "free";
  case EventKind::Segment: return "segment";
  case EventKind::CaptureBegin: return "capture_begin";
  case EventKind::CaptureEnd: return "capture_end";
  case EventKind::TaskGroupBegin: return "task_group_begin";
  case EventKind::TaskGroupEnd: return "task_group_end";
  case EventKind::TaskUse: return "task_uses";
  case EventKind::WeakRef: return "weak_ref";
  case EventKind::Workspace: return "workspace";
  case EventKind::StreamWait: return "stream_wait";
  case EventKind::Replay: return "replay";
  case EventKind::TaskUpdateBegin: return "task_update_begin";
  case EventKind::TaskUpdateEnd: return "task_update_end";
  case EventKind::GraphDestroy: return "graph_destroy";
  }
  return "unknown";
}

namespace {

void appendf(std::string &s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void appendf(std::string &s, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0)
    s.append(buf, static_cast<size_t>(n) < sizeof buf ? n : sizeof buf - 1);
}

void appendQuoted(std::string &s, const std::string &text) {
  s += '"';
  for (char c : text) {
    switch (c) {
    case '"': s += "\\\""; break;
    case '\\': s += "\\\\"; break;
    case '\n': s += "\\n"; break;
    case '\t': s += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20)
        appendf(s, "\\u%04x", c);
      else
        s += c;
    }
  }
  s += '"';
}

} // namespace

std::string toJson(const Violation &v) {
  std::string s = "{\"violation\": ";
  appendQuoted(s, v.check);
  s += ", \"kind\": ";
  appendQuoted(s, v.kind);
  appendf(s, ", \"device\": %d, \"graph\": %" PRIu64 ", \"layer\": %" PRId32
             ", \"key\": %" PRId64,
          v.device, v.graph, v.layer, v.key);
  appendf(s, ", \"range\": {\"begin\": \"0x%" PRIxPTR "\", \"size\": %" PRIu64
             "}, \"message\": ",
          v.begin, v.size);
  appendQuoted(s, v.message);
  s += ", \"events\": [";
  for (size_t i = 0; i < v.events.size(); ++i) {
    const Event &e = v.events[i];
    appendf(s,
            "%s{\"seq\": %" PRIu64 ", \"event\": \"%s\", \"ptr\": \"0x%" PRIxPTR
            "\", \"size\": %" PRIu64 ", \"stream\": \"0x%" PRIxPTR
            "\", \"graph\": %" PRIu64 ", \"layer\": %" PRId32 "}",
            i ? ", " : "", e.seq, eventName(e.kind), e.ptr, e.size, e.stream,
            e.graph, e.layer);
  }
  s += "]}";
  return s;
}

} // namespace tether::rt
