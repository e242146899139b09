//===- Finding.h - One diagnostic, independent of the frontend -----------===//
//
// The vocabulary every frontend reports in (the C++ checks through
// clang-tidy, the Python frontend directly) and every output format of the
// CLI consumes. Lines and columns are 1-based.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_FINDING_H
#define TETHER_COMMON_FINDING_H

#include <string>
#include <tuple>
#include <vector>

namespace tether {

struct Location {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
};

struct Note {
  Location Loc;
  std::string Message;
};

/// A replacement of [Offset, Offset+Length) in File by Text.
struct FixIt {
  std::string File;
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
};

struct Finding {
  std::string Check;
  std::string Severity = "warning";
  Location Loc;
  std::string Message;
  std::vector<Note> Notes;
  std::vector<FixIt> Fixes;
};

/// The stable order of the output contract: file, line, column, check, message.
inline bool operator<(const Finding &A, const Finding &B) {
  return std::tie(A.Loc.File, A.Loc.Line, A.Loc.Column, A.Check, A.Message) <
         std::tie(B.Loc.File, B.Loc.Line, B.Loc.Column, B.Check, B.Message);
}

} // namespace tether

#endif
