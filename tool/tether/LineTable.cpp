//===- LineTable.cpp ------------------------------------------------------===//
#include "LineTable.h"
#include "common/Paths.h"
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
  return tether::displayPath(Path);
}
