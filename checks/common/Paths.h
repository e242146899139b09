//===- Paths.h - How tether spells a file path ----------------------------===//
//
// One spelling for every file tether names, whichever frontend found it:
// absolute with `.` and `..` removed for identity, and relative to the
// working directory when below it for display (as the user typed it).
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_PATHS_H
#define TETHER_COMMON_PATHS_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <string>

namespace tether {

/// Path made absolute, with `.` and `..` removed.
inline std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

/// Path relative to the working directory when it lies below it, else
/// absolute.
inline std::string displayPath(llvm::StringRef Path) {
  std::string Abs = absolutePath(Path);
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd)) {
    llvm::StringRef A(Abs);
    if (A.consume_front(Cwd) && A.consume_front("/"))
      return A.str();
  }
  return Abs;
}

} // namespace tether

#endif
