//===- PackageCacheTest.cpp - What the language server keeps, and reuses --===//
//
// Each analysis through a PackageCache is compared with a cold analysis of
// the same texts written to a fresh tree, and the cache's statistics say
// what was parsed and lowered again.
//
//===----------------------------------------------------------------------===//
#include "PackageCache.h"
#include "PythonFrontend.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <map>
#include <set>
#include <tuple>

using namespace tether;
using namespace tether::python;

namespace {

/// A package in a fresh folder: relative path -> text.
class Tree {
public:
  explicit Tree(std::map<std::string, std::string> Files) : Files(Files) {
    llvm::sys::fs::createUniqueDirectory("tether-cache", Root);
    for (const auto &[Rel, Text] : Files)
      write(Rel, Text);
  }
  ~Tree() { llvm::sys::fs::remove_directories(Root); }
  std::string path(const std::string &Rel) const {
    llvm::SmallString<256> P(Root);
    llvm::sys::path::append(P, Rel);
    return std::string(P);
  }
  void write(const std::string &Rel, const std::string &Text) {
    Files[Rel] = Text;
    std::string P = path(Rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Text;
  }
  std::map<std::string, std::string> Files;

private:
  llvm::SmallString<256> Root;
};

using Seen = std::set<std::tuple<std::string, std::string, unsigned, unsigned>>;

/// Findings by file name, check and position (the trees' folders differ).
Seen findings(const Result &R) {
  Seen Out;
  for (const Finding &F : R.Findings)
    Out.emplace(llvm::sys::path::filename(F.Loc.File).str(), F.Check,
                F.Loc.Line, F.Loc.Column);
  return Out;
}

Seen warm(PackageCache &Cache, const Tree &T, const std::string &Rel) {
  CatalogProvider Cats;
  Options O{1};
  O.Cache = &Cache;
  return findings(analyze({T.path(Rel)}, Cats, O));
}

/// The same texts (the disk's, with Overlays over them), analysed cold.
Seen cold(const Tree &T, const std::string &Rel,
          const std::map<std::string, std::string> &Overlays = {}) {
  std::map<std::string, std::string> Files = T.Files;
  for (const auto &[R, Text] : Overlays)
    Files[R] = Text;
  Tree Copy(Files);
  CatalogProvider Cats;
  return findings(analyze({Copy.path(Rel)}, Cats, Options{1}));
}

const char *Utils = "import torch\n"
                    "def weak(t):\n"
                    "    return torch.ops._C.weak_ref_tensor(t)\n";
const char *User = "from pkg.utils import weak\n"
                   "def f(x):\n"
                   "    return weak(weak(x))\n";

Tree package() {
  return Tree({{"pkg/__init__.py", ""},
               {"pkg/utils.py", Utils},
               {"pkg/user.py", User}});
}

TEST(PackageCache, ACommentEditLowersOnlyTheEditedModule) {
  Tree T = package();
  PackageCache Cache;
  Seen First = warm(Cache, T, "pkg/user.py");
  EXPECT_EQ(First, cold(T, "pkg/user.py"));
  ASSERT_EQ(First.size(), 1u); // the double conversion across modules
  EXPECT_EQ(Cache.Last.Parsed, 3u);

  std::string Edited = std::string(User) + "# a comment\n";
  Cache.setOverlay(T.path("pkg/user.py"), Edited);
  EXPECT_EQ(warm(Cache, T, "pkg/user.py"),
            cold(T, "pkg/user.py", {{"pkg/user.py", Edited}}));
  EXPECT_EQ(Cache.Last.Parsed, 1u);
  EXPECT_EQ(Cache.Last.ModulesLowered, 1u);
  EXPECT_FALSE(Cache.Last.InterfaceChanged);
}

TEST(PackageCache, AHelperBodyEditChangesTheCallerWithItsLoweringReused) {
  Tree T = package();
  PackageCache Cache;
  warm(Cache, T, "pkg/user.py");
  std::string Plain = "import torch\n"
                      "def weak(t):\n"
                      "    return t\n";
  Cache.setOverlay(T.path("pkg/utils.py"), Plain);
  Seen After = warm(Cache, T, "pkg/user.py");
  EXPECT_TRUE(After.empty());
  EXPECT_EQ(After, cold(T, "pkg/user.py", {{"pkg/utils.py", Plain}}));
  EXPECT_EQ(Cache.Last.ModulesLowered, 1u); // utils.py alone
  EXPECT_FALSE(Cache.Last.InterfaceChanged);

  // Closed again: the file on disk counts.
  Cache.dropOverlay(T.path("pkg/utils.py"));
  EXPECT_EQ(warm(Cache, T, "pkg/user.py"), cold(T, "pkg/user.py"));
}

/// utils.py with Line 3 (the attribute), 5 (the global) and 6 (the
/// signature) replaced when given.
std::string typedHelper(const char *Attr, const char *Global, const char *Def,
                        const char *Body = "    return torch.ops._C.weak_ref_tensor(t)\n") {
  return std::string("import torch\n"
                     "class Box:\n"
                     "    def fill(self):\n") +
         Attr + Global + Def + Body;
}

TEST(PackageCache, WhatOtherModulesReadChangesTheInterface) {
  const char *Attr = "        self.held = None\n", *Global = "LIMIT = 4\n",
             *Def = "def weak(t):\n";
  Tree T({{"pkg/__init__.py", ""},
          {"pkg/utils.py", typedHelper(Attr, Global, Def)},
          {"pkg/user.py", User}});
  PackageCache Cache;
  struct Edit {
    std::string Text;
    bool Interface;
  };
  std::vector<Edit> Edits = {
      // Read by the type table: same names, other types.
      {typedHelper("        self.held = Box()\n", Global, Def), true},
      {typedHelper(Attr, "LIMIT = Box()\n", Def), true},
      {typedHelper(Attr, Global, "def weak(t: Box):\n"), true},
      // A function body: only its own lowering reads it.
      {typedHelper(Attr, Global, Def,
                   "    u = t\n    return torch.ops._C.weak_ref_tensor(u)\n"),
       false}};
  for (const Edit &E : Edits) {
    // From the original each time, so that every change is one step.
    Cache.dropOverlay(T.path("pkg/utils.py"));
    warm(Cache, T, "pkg/user.py");
    Cache.setOverlay(T.path("pkg/utils.py"), E.Text);
    EXPECT_EQ(warm(Cache, T, "pkg/user.py"),
              cold(T, "pkg/user.py", {{"pkg/utils.py", E.Text}}))
        << E.Text;
    EXPECT_EQ(Cache.Last.InterfaceChanged, E.Interface) << E.Text;
    EXPECT_EQ(Cache.Last.ModulesLowered, E.Interface ? 3u : 1u) << E.Text;
  }
}

TEST(PackageCache, AFileChangedOnDiskIsReadAgain) {
  Tree T = package();
  PackageCache Cache;
  ASSERT_EQ(warm(Cache, T, "pkg/user.py").size(), 1u);
  T.write("pkg/utils.py", "def weak(t):\n    return t\n");
  EXPECT_TRUE(warm(Cache, T, "pkg/user.py").empty());
  EXPECT_EQ(Cache.Last.Parsed, 1u);
  // The same size and, on a coarse clock, the same time: a watched-file
  // event makes the cache read it anyway.
  T.write("pkg/utils.py", "def weak(t):\n    return u\n");
  Cache.forget(T.path("pkg/utils.py"));
  warm(Cache, T, "pkg/user.py");
  EXPECT_EQ(Cache.Last.Parsed, 1u);
}

TEST(PackageCache, AnUnsavedDocumentIsAnalysedFromItsText) {
  Tree T = package();
  PackageCache Cache;
  std::string New = T.path("pkg/fresh.py");
  Cache.setOverlay(New, User);
  CatalogProvider Cats;
  Options O{1};
  O.Cache = &Cache;
  Result R = analyze({New}, Cats, O);
  EXPECT_TRUE(R.Problems.empty());
  ASSERT_EQ(R.Findings.size(), 1u);
  EXPECT_EQ(R.Findings[0].Loc.File, New);
}

/// The problems of one analysis, by file name and message.
std::set<std::pair<std::string, std::string>> problems(const Result &R) {
  std::set<std::pair<std::string, std::string>> Out;
  for (const FileProblem &P : R.Problems)
    Out.emplace(llvm::sys::path::filename(P.File).str(), P.Message);
  return Out;
}

// The kept tree is handed to each analysis as a copy, and the root node of
// a copy has an id of its own: a top level too deep to walk must be found
// too deep in the copy as in the original (it once was lowered, and an
// 'or' chain of 10,000 operands overflowed the sanitizer build's stack).
TEST(PackageCache, ATopLevelTooDeepIsNotAnalysedWarmAsCold) {
  std::string Deep = "x = a";
  for (int I = 0; I < 2000; ++I)
    Deep += " or a";
  Deep += "\ndef f(t):\n    return t\n";
  Tree T({{"pkg/__init__.py", ""}, {"pkg/deep.py", Deep}});
  CatalogProvider Cats;
  Result Cold = analyze({T.path("pkg/deep.py")}, Cats, Options{1});
  ASSERT_EQ(Cold.Problems.size(), 1u);
  EXPECT_NE(Cold.Problems[0].Message.find("too deeply nested"),
            std::string::npos)
      << Cold.Problems[0].Message;
  PackageCache Cache;
  Options O{1};
  O.Cache = &Cache;
  for (int Run = 0; Run < 2; ++Run) // the first analysis and a kept one
    EXPECT_EQ(problems(analyze({T.path("pkg/deep.py")}, Cats, O)),
              problems(Cold))
        << "run " << Run;
}

} // namespace
