//===- CacheFiles.cpp - The files of the CLI's caches ---------------------===//
#include "CacheFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>

namespace fs = llvm::sys::fs;

std::string tether::python::cacheFileFor(llvm::StringRef Dir,
                                         llvm::StringRef Sub,
                                         llvm::StringRef Salt,
                                         llvm::StringRef Key,
                                         llvm::StringRef Ext) {
  llvm::SmallString<256> P(Dir);
  std::string Name;
  llvm::raw_string_ostream(Name)
      << llvm::format_hex_no_prefix(
             llvm::xxh3_64bits((Salt + llvm::Twine('\0') + Key).str()), 16)
      << Ext;
  llvm::sys::path::append(P, Sub, Name);
  return std::string(P);
}

std::unique_ptr<llvm::MemoryBuffer>
tether::python::readCacheFile(const std::string &File, uint64_t MaxBytes,
                              std::string &Damaged) {
  fs::file_status St;
  if (fs::status(File, St)) // not kept
    return nullptr;
  if (St.type() != fs::file_type::regular_file) {
    Damaged = "not a regular file";
    return nullptr;
  }
  if (St.getSize() > MaxBytes) {
    Damaged = "larger than any such file";
    return nullptr;
  }
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf) // unreadable: the run rewrites it, or says it cannot
    return nullptr;
  return std::move(*Buf);
}

void tether::python::markUsed(const std::string &File) {
  auto FD = fs::openNativeFileForReadWrite(File, fs::CD_OpenExisting,
                                           fs::OF_None);
  if (!FD) { // a read-only cache: still a hit
    llvm::consumeError(FD.takeError());
    return;
  }
  fs::setLastAccessAndModificationTime(*FD, std::chrono::system_clock::now());
  fs::closeFile(*FD);
}

void tether::python::writeCacheFile(const std::string &File,
                                    llvm::StringRef Content,
                                    std::vector<std::string> &Notes) {
  llvm::StringRef Folder = llvm::sys::path::parent_path(File);
  auto Fail = [&](const std::string &What, std::error_code EC) {
    Notes.push_back("cache: cannot write " + What + ": " + EC.message() +
                    " (results are not kept)");
  };
  if (std::error_code EC = fs::create_directories(Folder))
    return Fail(Folder.str(), EC);
  int FD = -1;
  llvm::SmallString<256> Temp;
  if (std::error_code EC =
          fs::createUniqueFile(File + ".%%%%%%%%.tmp", FD, Temp))
    return Fail(File, EC);
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Content;
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      fs::remove(Temp);
      return Fail(File, EC);
    }
  }
  if (std::error_code EC = fs::rename(Temp, File)) {
    fs::remove(Temp);
    return Fail(File, EC);
  }
}

void tether::python::evictLeastRecent(llvm::StringRef Folder,
                                      llvm::StringRef Ext, size_t Keep) {
  std::vector<std::pair<llvm::sys::TimePoint<>, std::string>> Files;
  std::error_code EC;
  for (fs::directory_iterator It(Folder, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) != Ext)
      continue;
    fs::file_status St;
    if (!fs::status(It->path(), St))
      Files.emplace_back(St.getLastModificationTime(), It->path());
  }
  if (Files.size() <= Keep)
    return;
  std::sort(Files.begin(), Files.end());
  for (size_t I = 0; I + Keep < Files.size(); ++I)
    fs::remove(Files[I].second);
}
