//===- Sanitizers.h - Whether this build runs under AddressSanitizer ------===//
//
// Two shortcuts for speed are off under ASan, because they hide memory from
// it: tree-sitter's arena (ASan cannot see inside its chunks) and leaving a
// one-shot run's memory to the process's exit (LeakSanitizer would report
// it). GCC and clang say "ASan" differently.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_SANITIZERS_H
#define TETHER_COMMON_SANITIZERS_H

#if defined(__SANITIZE_ADDRESS__)
#define TETHER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TETHER_ASAN 1
#endif
#endif
#ifndef TETHER_ASAN
#define TETHER_ASAN 0
#endif

namespace tether {
inline constexpr bool kAddressSanitizer = TETHER_ASAN;
} // namespace tether

#endif
