//===- LineTable.cpp ------------------------------------------------------===//
#include "LineTable.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace tether;

std::pair<unsigned, unsigned> LineTable::lineAndColumn(llvm::StringRef File,
                                                       unsigned Offset) {
  std::lock_guard<std::mutex> G(Lock);
  auto [It, New] = Starts.try_emplace(File);
  if (New) {
    auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false);
    if (Buf) {
      llvm::StringRef Text = (*Buf)->getBuffer();
      It->second.push_back(0);
      for (size_t I = 0; I < Text.size(); ++I)
        if (Text[I] == '\n')
          It->second.push_back(I + 1);
    }
  }
  const std::vector<unsigned> &S = It->second;
  if (S.empty())
    return {0, 0};
  auto Next = std::upper_bound(S.begin(), S.end(), Offset);
  unsigned Line = Next - S.begin();
  return {Line, Offset - S[Line - 1] + 1};
}

std::string LineTable::displayPath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd)) {
    llvm::StringRef A(Abs);
    if (A.consume_front(Cwd) && A.consume_front("/"))
      return A.str();
  }
  return Abs.str().str();
}
