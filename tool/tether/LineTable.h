//===- LineTable.h - Offsets to 1-based line/column, paths for display ----===//
#ifndef TETHER_TOOL_LINETABLE_H
#define TETHER_TOOL_LINETABLE_H

#include "common/LineStarts.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <mutex>
#include <utility>

namespace tether {

/// Caches the line starts of each file it is asked about. Thread-safe.
class LineTable {
public:
  /// 1-based line and byte column of Offset in File ({0,0} if unreadable).
  std::pair<unsigned, unsigned> lineAndColumn(llvm::StringRef File,
                                              unsigned Offset);
  /// A path relative to the working directory when it lies below it,
  /// otherwise absolute and normalised: stable across runs and machines.
  static std::string displayPath(llvm::StringRef Path);

private:
  std::mutex Lock;
  llvm::StringMap<LineStarts> Files;
};

} // namespace tether

#endif
