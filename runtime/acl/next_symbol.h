// Resolves the definition an interposed ACL function hides: the real
// libascendcl.so, or whatever the process loaded after us.
#ifndef TETHER_ACL_NEXT_SYMBOL_H
#define TETHER_ACL_NEXT_SYMBOL_H

#include <dlfcn.h>

#include <cstdio>

namespace tether::acl {

template <class F> F nextSymbol(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p)
    std::fprintf(stderr, "tether: %s not found after libtether_acl.so; "
                         "is the ACL runtime linked?\n",
                 name);
  return reinterpret_cast<F>(p);
}

} // namespace tether::acl

// The real function with the interposed one's type, resolved once.
#define TETHER_NEXT(fn)                                                        \
  static const auto real_##fn =                                                \
      ::tether::acl::nextSymbol<decltype(&fn)>(#fn);                           \
  if (!real_##fn)                                                              \
    return ACL_ERROR_RT_FAILURE;

#endif
