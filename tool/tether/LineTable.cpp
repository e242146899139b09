//===- LineTable.cpp ------------------------------------------------------===//
#include "LineTable.h"
#include "common/Paths.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tether;

std::pair<unsigned, unsigned> LineTable::lineAndColumn(llvm::StringRef File,
                                                       unsigned Offset) {
  std::lock_guard<std::mutex> G(Lock);
  auto [It, New] = Files.try_emplace(File);
  if (New)
    if (auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false))
      It->second = LineStarts((*Buf)->getBuffer());
  if (It->second.empty())
    return {0, 0};
  auto [Row, Column] = It->second.at(Offset);
  return {Row + 1, Column + 1};
}

std::string LineTable::displayPath(llvm::StringRef Path) {
  return tether::displayPath(Path);
}
