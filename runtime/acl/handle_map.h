// Runtime handles (aclmdlRI, aclrtTaskGrp) to the verifier's ids. Small and
// touched once per capture, update or replay, so one mutex is enough.
#ifndef TETHER_ACL_HANDLE_MAP_H
#define TETHER_ACL_HANDLE_MAP_H

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace tether::acl {

struct VerifierId {
  int device = 0;
  uint64_t id = 0; // 0: not known to the verifier
};

class HandleMap {
public:
  void put(const void *handle, VerifierId v) {
    std::lock_guard<std::mutex> lock(mu_);
    map_[handle] = v;
  }
  VerifierId get(const void *handle) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(handle);
    return it == map_.end() ? VerifierId{} : it->second;
  }
  VerifierId take(const void *handle) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(handle);
    if (it == map_.end())
      return {};
    VerifierId v = it->second;
    map_.erase(it);
    return v;
  }

private:
  mutable std::mutex mu_;
  std::unordered_map<const void *, VerifierId> map_;
};

} // namespace tether::acl

#endif
