// The demo's link to the verifier, as a framework would have it: the C API
// is looked up at run time, so the demo runs unchanged without the verifier
// and reports to it when libtether_acl.so (which pulls in
// libtether_verify.so) is preloaded.
#ifndef TETHER_EXAMPLES_RUNTIME_VERIFIER_HOOKS_H
#define TETHER_EXAMPLES_RUNTIME_VERIFIER_HOOKS_H

#include "tether/verify.h"

#include <dlfcn.h>

namespace demo {

struct VerifierHooks {
  decltype(&tether_verify_set_layer) setLayer = nullptr;
  decltype(&tether_verify_weak_ref) weakRef = nullptr;
  decltype(&tether_verify_workspace) workspace = nullptr;
  decltype(&tether_verify_task_uses) taskUses = nullptr;

  static const VerifierHooks &get() {
    static const VerifierHooks h = [] {
      VerifierHooks v;
      v.setLayer = reinterpret_cast<decltype(v.setLayer)>(
          dlsym(RTLD_DEFAULT, "tether_verify_set_layer"));
      v.weakRef = reinterpret_cast<decltype(v.weakRef)>(
          dlsym(RTLD_DEFAULT, "tether_verify_weak_ref"));
      v.workspace = reinterpret_cast<decltype(v.workspace)>(
          dlsym(RTLD_DEFAULT, "tether_verify_workspace"));
      v.taskUses = reinterpret_cast<decltype(v.taskUses)>(
          dlsym(RTLD_DEFAULT, "tether_verify_task_uses"));
      return v;
    }();
    return h;
  }
};

} // namespace demo

#endif
