// Thin C++ conveniences over the C ABI in verify.h: a scoped layer marker
// and a std::function callback. No state of its own beyond the callback.
#ifndef TETHER_VERIFY_HPP
#define TETHER_VERIFY_HPP

#include "tether/verify.h"

#include <functional>
#include <utility>

namespace tether::verify {

inline bool enabled() { return tether_verify_enabled() != 0; }
inline uint64_t violationCount() { return tether_verify_violation_count(); }

// Marks the events this thread feeds as belonging to `layer`.
class ScopedLayer {
public:
  explicit ScopedLayer(int32_t layer) { tether_verify_set_layer(layer); }
  ~ScopedLayer() { tether_verify_set_layer(-1); }
  ScopedLayer(const ScopedLayer &) = delete;
  ScopedLayer &operator=(const ScopedLayer &) = delete;
};

using Callback = std::function<void(const tether_violation &)>;

// Installs `fn` (an empty function removes it). Not for concurrent use with
// itself; violations may arrive on any thread.
inline void onViolation(Callback fn) {
  static Callback installed;
  installed = std::move(fn);
  if (!installed) {
    tether_verify_set_callback(nullptr, nullptr);
    return;
  }
  tether_verify_set_callback(
      [](const tether_violation *v, void *user) {
        (*static_cast<Callback *>(user))(*v);
      },
      &installed);
}

} // namespace tether::verify

#endif
