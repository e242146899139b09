//===- Patterns.h - Checks shared by the .tether.yaml and option readers --===//
//
// Internal to checks/catalog: a name pattern is validated once, where it is
// read (a .tether.yaml scalar, a clang-tidy check option), by the same rule
// NameSet compiles it with, so that NameSet never meets a pattern it has to
// drop.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CATALOG_PATTERNS_H
#define TETHER_CATALOG_PATTERNS_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace tether::catalog {

/// Why Source cannot be a catalog name pattern, or "" when it can: nothing
/// left after the anchor ("::" or "."), or not a valid glob.
std::string patternProblem(llvm::StringRef Source);

/// Text with its control characters written as \xNN escapes, so that an
/// error quoting a user's name or path stays one line.
std::string oneLine(llvm::StringRef Text);

} // namespace tether::catalog

#endif
