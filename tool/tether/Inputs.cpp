//===- Inputs.cpp ---------------------------------------------------------===//
#include "Inputs.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace tether;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static bool hasExtension(llvm::StringRef P,
                         std::initializer_list<llvm::StringRef> Exts) {
  llvm::StringRef E = path::extension(P);
  return llvm::is_contained(Exts, E);
}

bool tether::isCxxSource(llvm::StringRef P) {
  return hasExtension(P, {".cpp", ".cc", ".cxx", ".c++", ".C", ".c", ".cu"});
}

bool tether::isCxxHeader(llvm::StringRef P) {
  return hasExtension(P, {".h", ".hh", ".hpp", ".hxx", ".cuh"});
}

static bool isHidden(llvm::StringRef P) {
  llvm::StringRef Name = path::filename(P);
  return Name.size() > 1 && Name.starts_with(".") && Name != "..";
}

namespace {

/// What a directory argument holds for the frontends.
struct DirContents {
  std::vector<std::string> Sources; ///< C/C++ sources (regular files).
  /// Python for the Python frontend, which explains any entry it cannot
  /// read: a .py entry of any kind (a dangling link, a FIFO), or a link to
  /// a folder that holds one (the Python frontend follows such links).
  bool HasPython = false;
  unsigned Dangling = 0, Special = 0; ///< Other entries left out.

  /// " (...left out)" when entries were left out: why nothing was found.
  std::string skipped() const {
    std::string Out;
    auto add = [&](unsigned N, const char *One, const char *Many) {
      if (N)
        Out += (Out.empty() ? " (" : ", ") + std::to_string(N) + " " +
               (N == 1 ? One : Many);
    };
    add(Dangling, "dangling symlink", "dangling symlinks");
    add(Special, "FIFO, socket or device", "FIFOs, sockets or devices");
    return Out.empty() ? Out : Out + " left out)";
  }
};

/// Lists a directory recursively (hidden folders skipped, links not
/// followed, so nothing but a directory or a regular file is opened: a FIFO
/// never blocks the scan).
std::error_code scanDir(const std::string &Dir, DirContents &Out,
                        bool FollowedLink = false) {
  std::error_code EC;
  for (fs::recursive_directory_iterator It(Dir, EC, /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    const std::string &E = It->path();
    if (isHidden(E)) {
      It.no_push();
      continue;
    }
    fs::file_type T = It->type();
    if (T == fs::file_type::directory_file)
      continue;
    bool IsPy = path::extension(E) == ".py";
    if (T == fs::file_type::regular_file) {
      if (IsPy)
        Out.HasPython = true;
      else if (isCxxSource(E))
        Out.Sources.push_back(E);
      continue;
    }
    if (IsPy) {
      Out.HasPython = true;
      continue;
    }
    fs::file_status St;
    if (T != fs::file_type::symlink_file) {
      ++Out.Special;
    } else if (fs::status(E, St, /*follow=*/true)) {
      ++Out.Dangling;
    } else if (fs::is_directory(St) && !FollowedLink && !Out.HasPython) {
      // One level of links is enough to know whether Python is there.
      DirContents Linked;
      if (!scanDir(E, Linked, /*FollowedLink=*/true))
        Out.HasPython |= Linked.HasPython;
    } else if (!fs::is_directory(St) && !fs::is_regular_file(St)) {
      ++Out.Special;
    }
  }
  return EC;
}

} // namespace

llvm::Expected<InputSet> tether::collectInputs(llvm::ArrayRef<std::string> Paths) {
  InputSet Out;
  for (const std::string &P : Paths) {
    fs::file_status St;
    if (std::error_code EC = fs::status(P, St))
      return llvm::createStringError(P + ": " + EC.message());
    if (fs::is_regular_file(St)) {
      if (path::extension(P) == ".py")
        Out.Python.push_back(P);
      else if (isCxxSource(P) || isCxxHeader(P))
        Out.Cxx.push_back(P);
      else
        return llvm::createStringError(
            P + ": not a C, C++ or Python file (expected .py, .cpp, .cc, "
                ".cxx, .c, .cu or a header)");
      continue;
    }
    if (!fs::is_directory(St))
      return llvm::createStringError(P + ": not a regular file or directory");
    DirContents C;
    if (std::error_code EC = scanDir(P, C))
      return llvm::createStringError(P + ": " + EC.message());
    if (C.Sources.empty() && !C.HasPython)
      return llvm::createStringError(P + ": no C, C++ or Python files found" +
                                     C.skipped());
    std::vector<std::string> &Sources = C.Sources;
    std::sort(Sources.begin(), Sources.end());
    for (const std::string &S : Sources)
      Out.CxxFoundIn.emplace(S, P);
    Out.Cxx.insert(Out.Cxx.end(), Sources.begin(), Sources.end());
    if (C.HasPython)
      Out.Python.push_back(P);
  }
  return Out;
}
