//===- ResourceDir.cpp ----------------------------------------------------===//
#include "ResourceDir.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

static std::string findResourceDir() {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
  if (!Exe.empty()) {
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(Exe)));
    llvm::sys::path::append(Dir, "lib", "clang", TETHER_LLVM_VERSION_MAJOR);
    llvm::SmallString<256> Probe(Dir);
    llvm::sys::path::append(Probe, "include", "stddef.h");
    if (llvm::sys::fs::exists(Probe))
      return std::string(Dir);
  }
  return TETHER_CLANG_RESOURCE_DIR;
}

const std::string &tether::clangResourceDir() {
  static const std::string Dir = findResourceDir();
  return Dir;
}
