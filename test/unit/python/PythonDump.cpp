//===- PythonDump.cpp - Print the Python frontend's raw results -----------===//
#include "python/PythonFrontend.h"

#include <algorithm>
#include <cstdio>

int main(int Argc, char **Argv) {
  std::vector<std::string> Paths(Argv + 1, Argv + Argc);
  tether::CatalogProvider Cats;
  tether::python::Result R = tether::python::analyze(Paths, Cats, tether::python::Options{});
  std::sort(R.Findings.begin(), R.Findings.end());
  for (const auto &F : R.Findings) {
    std::printf("%s:%u:%u: %s: %s [%s]\n", F.Loc.File.c_str(), F.Loc.Line,
                F.Loc.Column, F.Severity.c_str(), F.Message.c_str(),
                F.Check.c_str());
    for (const auto &N : F.Notes)
      std::printf("%s:%u:%u: note: %s\n", N.Loc.File.c_str(), N.Loc.Line,
                  N.Loc.Column, N.Message.c_str());
  }
  for (const auto &P : R.Problems)
    std::fprintf(stderr, "tether: %s: %s\n", P.File.c_str(), P.Message.c_str());
  std::fprintf(stderr, "files read: %u\n", R.FilesRead);
  return R.FilesRead == 0 ? 2 : (R.Findings.empty() ? 0 : 1);
}
