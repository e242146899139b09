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

/// Tensor methods (and torch functions of the tensor as first argument)
/// that return a view: a new handle of the same memory, which keeps it
/// alive as the tensor does and frees nothing when it dies. `contiguous`
/// and `reshape` copy only when they must; either way the result is at
/// least as long-lived as the tensor it came from, so reading them as views
/// loses no death. Names a non-tensor object is as likely to have (`select`,
/// `expand`, `flatten`) are left to frontends that know the receiver's type.
inline bool isTensorViewOp(llvm::StringRef LastName) {
  return llvm::StringSwitch<bool>(LastName)
      .Cases({"view", "view_as", "reshape", "reshape_as", "narrow", "detach",
              "contiguous", "transpose", "permute", "squeeze", "unsqueeze"},
             true)
      .Cases({"as_strided", "unflatten", "movedim", "swapaxes", "swapdims",
              "expand_as", "view_as_real", "view_as_complex"},
             true)
      .Default(false);
}

/// The same, for a receiver known to be a tensor (C++'s at::Tensor).
inline bool isTypedTensorViewOp(llvm::StringRef LastName) {
  return isTensorViewOp(LastName) ||
         llvm::StringSwitch<bool>(LastName)
             .Cases({"slice", "select", "expand", "flatten", "t", "alias",
                     "unfold", "diagonal"},
                    true)
             .Default(false);
}

} // namespace tether

#endif
