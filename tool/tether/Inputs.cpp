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
    bool HasPython = false;
    std::error_code EC;
    std::vector<std::string> Sources;
    for (fs::recursive_directory_iterator It(P, EC, /*follow_symlinks=*/false),
         End;
         It != End && !EC; It.increment(EC)) {
      if (isHidden(It->path())) {
        It.no_push();
        continue;
      }
      if (It->type() != fs::file_type::regular_file)
        continue;
      if (path::extension(It->path()) == ".py")
        HasPython = true;
      else if (isCxxSource(It->path()))
        Sources.push_back(It->path());
    }
    if (EC)
      return llvm::createStringError(P + ": " + EC.message());
    std::sort(Sources.begin(), Sources.end());
    for (const std::string &S : Sources)
      Out.CxxFoundIn.emplace(S, P);
    Out.Cxx.insert(Out.Cxx.end(), Sources.begin(), Sources.end());
    if (HasPython)
      Out.Python.push_back(P);
  }
  return Out;
}
