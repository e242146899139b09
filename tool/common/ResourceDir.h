//===- ResourceDir.h - Where clang's builtin headers are ------------------===//
#ifndef TETHER_TOOL_RESOURCE_DIR_H
#define TETHER_TOOL_RESOURCE_DIR_H

#include <string>

namespace tether {

/// clang's resource directory (builtin headers such as <stddef.h>) for the
/// running executable. clang derives it from its own path, which is wrong
/// for a binary outside LLVM's bin/, so the tools pass it explicitly:
/// <exe>/../lib/clang/<major> when the binary sits in a clang tree, else
/// the installed LLVM's, found at configure time (Debian's
/// /usr/lib/llvm-22/lib/clang/22, from libclang-common-22-dev). Never a
/// path into the build tree, so an installed tether works from any prefix.
const std::string &clangResourceDir();

} // namespace tether

#endif
