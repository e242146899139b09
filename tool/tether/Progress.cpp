//===- Progress.cpp -------------------------------------------------------===//
#include "Progress.h"

using namespace tether;

// "\r" returns to the start of the line and ESC[K clears to its end: the
// next item replaces the previous one instead of scrolling the terminal.
static const char *const ClearLine = "\r\x1b[K";

void Progress::start(llvm::StringRef Label) {
  if (!Enabled)
    return;
  std::lock_guard<std::mutex> G(Lock);
  ++Started;
  OS << ClearLine << "[" << Started << "/" << Total << "] " << Label;
  OS.flush();
  LineShown = true;
}

void Progress::finish() {
  if (!Enabled)
    return;
  std::lock_guard<std::mutex> G(Lock);
  if (LineShown)
    OS << ClearLine;
  OS.flush();
  LineShown = false;
}
