//===- Allocators.h - Which calls allocate fresh device memory -----------===//
//
// Both frontends ask the same question of a call's last name: does it make
// new device memory (a tensor factory), rather than return a view or a
// handle of memory someone else owns (`slice`, `narrow`, `view`, an op's
// output that aliases its input)? Only fresh memory is the function's own
// to lose; a view dying frees nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_ALLOCATORS_H
#define TETHER_COMMON_ALLOCATORS_H

#include "llvm/ADT/StringSwitch.h"

namespace tether {

inline bool isTensorFactory(llvm::StringRef LastName) {
  return llvm::StringSwitch<bool>(LastName)
      .Cases({"empty", "zeros", "ones", "full", "empty_strided", "new_empty",
              "new_zeros", "new_ones", "new_full"},
             true)
      .Cases({"empty_like", "zeros_like", "ones_like", "full_like"}, true)
      .Default(false);
}

} // namespace tether

#endif
