// printf-style text for report messages (the reporting path only).
#ifndef TETHER_RUNTIME_FORMAT_H
#define TETHER_RUNTIME_FORMAT_H

#include <string>

namespace tether::rt {

// At most 767 characters; longer text is cut.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace tether::rt

#endif
