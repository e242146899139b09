//===- CacheFiles.h - The files of the CLI's caches -----------------------===//
//
// ResultCache (a record per scan) and ModuleCache (an entry per module
// text) keep their files the same way: read only when a regular file of a
// plausible size; written to a private file beside the target and renamed
// over it, so that a concurrent run reads an old file or a new one, never
// part of one, and no lock is held; marked used when read, and the least
// recently used dropped beyond a number kept. Another run may drop or
// replace a file at any time: that is a miss, never a wrong answer.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_CACHEFILES_H
#define TETHER_PYTHON_CACHEFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tether::python {

/// Dir/Sub/<hash of Salt and Key>Ext: where a cache keeps Key's file.
std::string cacheFileFor(llvm::StringRef Dir, llvm::StringRef Sub,
                         llvm::StringRef Salt, llvm::StringRef Key,
                         llvm::StringRef Ext);
/// File's bytes, or null: when there is no such file or it cannot be read
/// (Damaged left empty), or when what is there cannot be a cache file (a
/// FIFO or a device would block or never end; Damaged says which).
std::unique_ptr<llvm::MemoryBuffer>
readCacheFile(const std::string &File, uint64_t MaxBytes, std::string &Damaged);
/// File was used: the last to be dropped by evictLeastRecent.
void markUsed(const std::string &File);
/// Write Content to File (its folder made when missing) through a private
/// file renamed into place. A failure adds one line to Notes.
void writeCacheFile(const std::string &File, llvm::StringRef Content,
                    std::vector<std::string> &Notes);
/// Drop the least recently used files of Folder named *Ext beyond Keep.
void evictLeastRecent(llvm::StringRef Folder, llvm::StringRef Ext, size_t Keep);

} // namespace tether::python

#endif
