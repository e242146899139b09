//===- LineStarts.h - Byte offsets to rows and columns --------------------===//
//
// The offset of each line's first byte in a text, and the 0-based row and
// byte column of any offset by binary search. A row ends at each '\n' (a
// "\r\n" pair is one break, its '\r' the last byte of the row), as clang's
// columns and tree-sitter's points count.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_LINESTARTS_H
#define TETHER_COMMON_LINESTARTS_H

#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tether {

class LineStarts {
public:
  LineStarts() = default;
  explicit LineStarts(llvm::StringRef Text) {
    Starts.push_back(0);
    for (size_t I = Text.find('\n'); I != llvm::StringRef::npos;
         I = Text.find('\n', I + 1))
      Starts.push_back(uint32_t(I + 1));
  }
  /// False for the empty table (no text was read).
  bool empty() const { return Starts.empty(); }
  /// 0-based row and byte column of Offset. Not on the empty table.
  std::pair<uint32_t, uint32_t> at(uint32_t Offset) const {
    size_t Row =
        size_t(std::upper_bound(Starts.begin(), Starts.end(), Offset) -
               Starts.begin()) - 1;
    return {uint32_t(Row), Offset - Starts[Row]};
  }

private:
  std::vector<uint32_t> Starts;
};

} // namespace tether

#endif
