//===- Progress.h - "[12/240] path" on a terminal's stderr ----------------===//
#ifndef TETHER_TOOL_PROGRESS_H
#define TETHER_TOOL_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

namespace tether {

/// Progress of a run, one work item at a time, on one line that is
/// rewritten in place. Silent unless enabled (stderr is a terminal and
/// --quiet was not given), so logs and pipes never see it; it writes to
/// stderr only, so the findings on stdout are unaffected. Safe to call from
/// the -j threads.
class Progress {
public:
  Progress(llvm::raw_ostream &OS, bool Enabled, unsigned Total)
      : OS(OS), Enabled(Enabled && Total > 0), Total(Total) {}
  ~Progress() { finish(); }

  /// An item starts: prints "[N/Total] Label".
  void start(llvm::StringRef Label);
  /// Erases the line, so what is printed next starts on a clean line.
  void finish();

private:
  llvm::raw_ostream &OS;
  bool Enabled;
  unsigned Total;
  unsigned Started = 0;
  bool LineShown = false;
  std::mutex Lock;
};

} // namespace tether

#endif
