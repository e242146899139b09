//===- PythonFrontendTest.cpp - Units of the Python frontend --------------===//
#include "Model.h"
#include "PythonFrontend.h"
#include "Sources.h"
#include "Suppression.h"
#include "common/Messages.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <random>

using namespace tether;
using namespace tether::python;

namespace {

class TempTree {
public:
  TempTree() {
    llvm::sys::fs::createUniqueDirectory("tether-py", Root);
  }
  ~TempTree() { llvm::sys::fs::remove_directories(Root); }
  std::string write(const std::string &Rel, const std::string &Text) {
    llvm::SmallString<256> P(Root);
    llvm::sys::path::append(P, Rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Text;
    return std::string(P);
  }
  std::string root() const { return std::string(Root); }

private:
  llvm::SmallString<256> Root;
};

std::vector<const Finding *> ofCheck(const Result &R, const char *Check) {
  std::vector<const Finding *> Out;
  for (const Finding &F : R.Findings)
    if (F.Check == Check)
      Out.push_back(&F);
  return Out;
}

Result run(const std::vector<std::string> &Paths) {
  CatalogProvider Cats;
  return analyze(Paths, Cats, Options{1});
}

TEST(PythonFrontend, ReExportedWeakRefHelperIsResolvedAcrossModules) {
  TempTree T;
  T.write("pkg/__init__.py", "from .utils import weak as weak_alias\n");
  T.write("pkg/utils.py", "import torch\n"
                          "def weak(t):\n"
                          "    return torch.ops._C.weak_ref_tensor(t)\n");
  std::string Use = T.write("pkg/user.py", "from pkg import weak_alias\n"
                                           "def f(x):\n"
                                           "    return weak_alias(weak_alias(x))\n");
  Result R = run({T.root()});
  EXPECT_EQ(R.FilesRead, 3u);
  auto D = ofCheck(R, msg::DoubleWeakRef);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0]->Loc.File, Use);
  EXPECT_EQ(D[0]->Loc.Line, 3u);
  EXPECT_EQ(D[0]->Loc.Column, 12u);
  ASSERT_EQ(D[0]->Fixes.size(), 1u);
  EXPECT_EQ(D[0]->Fixes[0].Text, "x");
}

TEST(PythonFrontend, ConditionalWeakRefIsNotDouble) {
  TempTree T;
  T.write("m.py", "from vllm.utils import weak_ref_tensors\n"
                  "def f(out, flag):\n"
                  "    if flag:\n"
                  "        out = weak_ref_tensors(out)\n"
                  "    return weak_ref_tensors(out)\n");
  Result R = run({T.root()});
  EXPECT_TRUE(ofCheck(R, msg::DoubleWeakRef).empty());
}

TEST(PythonFrontend, EarlyReturnPredicatePutsRestOfFunctionInCapture) {
  TempTree T;
  T.write("m.py",
          "import torch\n"
          "from vllm_ascend.utils import weak_ref_tensors\n"
          "CACHE = {}\n"
          "def layer(ctx, q):\n"
          "    if not ctx.capturing:\n"
          "        return None\n"
          "    ws = CACHE.get(1)\n"
          "    if ws is None:\n"
          "        ws = torch.empty(10)\n"
          "        CACHE[1] = weak_ref_tensors(ws)\n"
          "    torch.ops.npu.attn(q, workspace=ws)\n");
  Result R = run({T.root()});
  auto W = ofCheck(R, msg::WeakRefBeforeCaptureEnd);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0]->Loc.Line, 10u);
  ASSERT_GE(W[0]->Notes.size(), 3u);
  EXPECT_EQ(W[0]->Notes[0].Message, msg::CaptureBeginsHere);
  EXPECT_EQ(W[0]->Notes[0].Loc.Line, 5u);
}

TEST(PythonFrontend, NegatedPredicateBodyIsOutsideCapture) {
  TempTree T;
  T.write("m.py",
          "import torch\n"
          "from vllm_ascend.utils import weak_ref_tensors\n"
          "CACHE = {}\n"
          "def layer(ctx, q):\n"
          "    if not ctx.capturing:\n"
          "        ws = torch.empty(10)\n"
          "        CACHE[1] = weak_ref_tensors(ws)\n"
          "        torch.ops.npu.attn(q, workspace=CACHE[1])\n");
  Result R = run({T.root()});
  EXPECT_TRUE(ofCheck(R, msg::WeakRefBeforeCaptureEnd).empty());
}

TEST(PythonFrontend, NoneValuedDictThroughDataclassField) {
  TempTree T;
  T.write("m.py",
          "from dataclasses import dataclass\n"
          "from vllm.utils import weak_ref_tensors\n"
          "@dataclass\n"
          "class Params:\n"
          "    events: dict\n"
          "    workspaces: dict\n"
          "P = Params({s: [] for s in (1, 2)}, {s: None for s in (1, 2)})\n"
          "def weaken(p: Params):\n"
          "    for k, v in p.workspaces.items():\n"
          "        p.workspaces[k] = weak_ref_tensors(v)\n"
          "def weaken_guarded(p: Params):\n"
          "    for k, v in p.workspaces.items():\n"
          "        if v is None:\n"
          "            continue\n"
          "        p.workspaces[k] = weak_ref_tensors(v)\n");
  Result R = run({T.root()});
  auto N = ofCheck(R, msg::WeakRefOfMaybeNull);
  ASSERT_EQ(N.size(), 1u);
  EXPECT_EQ(N[0]->Loc.Line, 10u);
  ASSERT_EQ(N[0]->Notes.size(), 1u);
  EXPECT_EQ(N[0]->Notes[0].Loc.Line, 7u);
}

TEST(PythonFrontend, SuppressionComments) {
  Suppressions S("x = 1  # NOLINT(tether-double-weak-ref)\n"
                 "# NOLINTNEXTLINE(tether-*)\n"
                 "y = 2\n"
                 "z = 3  # noqa: E501, tether-weak-ref-of-maybe-null\n"
                 "w = 4  # noqa\n"
                 "s = '# NOLINT'\n");
  EXPECT_TRUE(S.suppressed(1, "tether-double-weak-ref"));
  EXPECT_FALSE(S.suppressed(1, "tether-weak-ref-of-maybe-null"));
  EXPECT_TRUE(S.suppressed(3, "tether-workspace-shared-across-layers"));
  EXPECT_FALSE(S.suppressed(2, "tether-double-weak-ref"));
  EXPECT_TRUE(S.suppressed(4, "tether-weak-ref-of-maybe-null"));
  EXPECT_FALSE(S.suppressed(4, "tether-double-weak-ref"));
  EXPECT_TRUE(S.suppressed(5, "tether-double-weak-ref"));
  EXPECT_FALSE(S.suppressed(6, "tether-double-weak-ref"));
}

TEST(PythonFrontend, ProblemsDoNotStopTheScan) {
  TempTree T;
  T.write("bad.py", "def f(:\n  pass\n");
  T.write("py2.py", "print 'hello'\n");
  T.write("latin.py", std::string("# -*- coding: latin-1 -*-\nx = '\xe9'\n"));
  T.write("binary.py", std::string("x = 1\0\0", 7));
  T.write("ok.py", "x = 1\n");
  Result R = run({T.root()});
  EXPECT_EQ(R.FilesRead, 2u); // ok.py and the latin-1 one
  ASSERT_EQ(R.Problems.size(), 3u);
  bool SawPy2 = false, SawSyntax = false, SawBinary = false;
  for (const FileProblem &P : R.Problems) {
    SawPy2 |= P.Message.find("Python 2") != std::string::npos;
    SawSyntax |= P.Message.find("syntax error at line 1") != std::string::npos;
    SawBinary |= P.Message.find("binary") != std::string::npos;
  }
  EXPECT_TRUE(SawPy2 && SawSyntax && SawBinary);
}

// Call chains deeper than any recursion limit: helper0 -> ... -> helper399,
// the last one returning a primitive's result. Every helper is a weak-ref
// function, so nesting the first one is a double conversion.
TEST(PythonFrontend, DeepHelperChainsAreSummarisedToTheEnd) {
  TempTree T;
  std::string Src = "import torch\n";
  const int Depth = 400;
  for (int I = 0; I < Depth - 1; ++I)
    Src += "def helper" + std::to_string(I) + "(t):\n    return helper" +
           std::to_string(I + 1) + "(t)\n";
  Src += "def helper" + std::to_string(Depth - 1) +
         "(t):\n    return torch.ops._C.weak_ref_tensor(t)\n";
  Src += "def user(x):\n    return helper0(helper0(x))\n";
  T.write("chain.py", Src);
  Result R = run({T.root()});
  auto D = ofCheck(R, msg::DoubleWeakRef);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0]->Loc.Line, unsigned(2 * Depth + 3));
}

// The same package analysed with 1 and with 4 threads: the same findings,
// notes and fix-its, in the same order.
TEST(PythonFrontend, ResultsDoNotDependOnThreads) {
  TempTree T;
  T.write("pkg/__init__.py", "");
  T.write("pkg/common.py", "import torch\n"
                           "CACHE = {}\n"
                           "SLOTS = {s: None for s in range(4)}\n"
                           "def weak(t):\n"
                           "    return torch.ops._C.weak_ref_tensor(t)\n");
  for (int I = 0; I < 24; ++I) {
    std::string Prev = std::to_string((I + 23) % 24), Me = std::to_string(I);
    T.write("pkg/m" + Me + ".py",
            "import torch\n"
            "from pkg.common import weak, CACHE, SLOTS\n"
            "from pkg import m" + Prev + "\n"
            "def hop(t, n):\n"
            "    if n == 0:\n"
            "        return weak(t)\n"
            "    return m" + Prev + ".hop(t, n - 1)\n"
            "def layer(ctx, q, n):\n"
            "    if ctx.capturing:\n"
            "        ws = torch.empty(n)\n"
            "        CACHE[n] = weak(ws)\n"
            "        torch.ops.npu.attn(q, workspace=CACHE[n])\n"
            "    return hop(hop(q, 3), 3), weak(SLOTS[n])\n");
  }
  CatalogProvider Cats1, Cats4;
  Result A = analyze({T.root()}, Cats1, Options{1}),
         B = analyze({T.root()}, Cats4, Options{4});
  auto Key = [](const Result &R) {
    std::vector<std::string> Out;
    for (const Finding &F : R.Findings) {
      std::string S = F.Loc.File + ":" + std::to_string(F.Loc.Line) + ":" +
                      std::to_string(F.Loc.Column) + " " + F.Check + " " +
                      F.Message;
      for (const Note &N : F.Notes)
        S += "\n  " + N.Loc.File + ":" + std::to_string(N.Loc.Line) + ":" +
             std::to_string(N.Loc.Column) + " " + N.Message;
      for (const FixIt &X : F.Fixes)
        S += "\n  fix " + std::to_string(X.Offset) + "+" +
             std::to_string(X.Length) + " " + X.Text;
      Out.push_back(S);
    }
    return Out;
  };
  std::vector<std::string> KA = Key(A), KB = Key(B);
  EXPECT_EQ(ofCheck(A, msg::DoubleWeakRef).size(), 24u);
  EXPECT_EQ(ofCheck(A, msg::WeakRefBeforeCaptureEnd).size(), 24u);
  EXPECT_EQ(ofCheck(A, msg::WeakRefOfMaybeNull).size(), 24u);
  EXPECT_EQ(KA, KB);
  // Again, as an editor integration does: the trees' memory of the first
  // scans (freed by threads that are gone) is reused.
  for (unsigned Jobs : {3u, 1u, 2u}) {
    CatalogProvider Cats;
    EXPECT_EQ(Key(analyze({T.root()}, Cats, Options{Jobs})), KA);
  }
}

TEST(PythonFrontend, ModuleNamesFollowPackagesAndProjectRoots) {
  TempTree T;
  T.write("proj/pyproject.toml", "[project]\nname = \"p\"\n");
  // A regular package: named from above its outermost __init__.py.
  T.write("proj/pkg/__init__.py", "");
  T.write("proj/pkg/sub/__init__.py", "");
  ModuleId Reg = moduleIdFor(T.write("proj/pkg/sub/m.py", ""));
  EXPECT_EQ(Reg.Name, "pkg.sub.m");
  EXPECT_EQ(Reg.Root, T.root() + "/proj");
  EXPECT_FALSE(Reg.Loose);
  ModuleId Init = moduleIdFor(T.root() + "/proj/pkg/sub/__init__.py");
  EXPECT_EQ(Init.Name, "pkg.sub");
  EXPECT_TRUE(Init.IsPackage);
  // Namespace packages: from the project root, src/ in the src layout.
  ModuleId Ns = moduleIdFor(T.write("proj/src/ns/a/mod.py", ""));
  EXPECT_EQ(Ns.Name, "ns.a.mod");
  EXPECT_EQ(Ns.Root, T.root() + "/proj/src");
  EXPECT_TRUE(Ns.Loose);
  EXPECT_EQ(moduleIdFor(T.write("proj/tools/run.py", "")).Name, "tools.run");
  // A folder name that cannot be imported, or no project root: the stem.
  EXPECT_EQ(moduleIdFor(T.write("proj/my-tools/run.py", "")).Name, "run");
  ModuleId Bare = moduleIdFor(T.write("bare/ns/m.py", ""));
  EXPECT_EQ(Bare.Name, "m");
  EXPECT_EQ(Bare.Root, T.root() + "/bare/ns");
}

// A folder's files share its identity: moduleIdIn(folderIdFor(folder), file)
// is what moduleIdFor says of each file, in every layout above.
TEST(PythonFrontend, FolderIdsGiveEachFileItsModuleId) {
  TempTree T;
  T.write("proj/pyproject.toml", "");
  T.write("proj/pkg/__init__.py", "");
  std::vector<std::string> Files = {
      T.write("proj/pkg/a.py", ""),          T.root() + "/proj/pkg/__init__.py",
      T.write("proj/src/ns/b.py", ""),       T.write("proj/tools/my-run.py", ""),
      T.write("proj/my-tools/run.py", ""),   T.write("bare/m.py", ""),
      T.write("bare/__init__.py", "")};
  for (const std::string &F : Files) {
    FolderId Folder = folderIdFor(llvm::sys::path::parent_path(F).str());
    ModuleId Split = moduleIdIn(Folder, F), Whole = moduleIdFor(F);
    EXPECT_EQ(Split.Name, Whole.Name) << F;
    EXPECT_EQ(Split.Root, Whole.Root) << F;
    EXPECT_EQ(Split.IsPackage, Whole.IsPackage) << F;
    EXPECT_EQ(Split.Loose, Whole.Loose) << F;
  }
  EXPECT_EQ(moduleIdFor(Files[3]).Name, "my-run"); // not an identifier
  EXPECT_EQ(moduleIdFor(Files[6]).Name, "bare");
}

// Discovery takes a plain file's real path from its folder's, without
// resolving the file (one readlink per path component): files reached
// through linked files and folders are still analysed once, under the first
// path found, and broken links and loops are still reported.
TEST(PythonFrontend, DiscoveryFollowsLinksAndKeepsEachRealFileOnce) {
  TempTree T;
  std::string A = T.write("pkg/a.py", ""), B = T.write("pkg/sub/b.py", "");
  std::string Pkg = T.root() + "/pkg";
  ASSERT_FALSE(llvm::sys::fs::create_link(A, Pkg + "/link.py"));
  ASSERT_FALSE(llvm::sys::fs::create_link(Pkg + "/sub", Pkg + "/linkdir"));
  ASSERT_FALSE(llvm::sys::fs::create_link(Pkg + "/gone.py", Pkg + "/dangling.py"));
  ASSERT_FALSE(llvm::sys::fs::create_link(Pkg, Pkg + "/sub/loop"));
  Discovery D = discover({Pkg});
  // In name order: linkdir/ comes before sub/, so b.py is found through it.
  EXPECT_EQ(D.Files, (std::vector<std::string>{A, Pkg + "/linkdir/b.py"}));
  std::vector<std::string> Problems;
  for (const FileProblem &P : D.Problems)
    Problems.push_back(P.File + ": " + P.Message);
  ASSERT_EQ(Problems.size(), 3u) << llvm::join(Problems, "\n");
  EXPECT_NE(Problems[0].find("dangling.py: cannot read"), std::string::npos);
  EXPECT_NE(Problems[1].find("linkdir/loop: symlink loop"), std::string::npos);
  EXPECT_NE(Problems[2].find("sub/loop: symlink loop"), std::string::npos);
  // A file named twice, once through a link, is one file.
  EXPECT_EQ(discover({A, Pkg + "/link.py"}).Files, std::vector<std::string>{A});
}

// Sources are checked for UTF-8 with ASCII skipped a word at a time; what
// is accepted, and where a rejected text is said to go wrong, is what
// llvm::isLegalUTF8String says, on texts that mix ASCII runs of every
// length with good, truncated, overlong and out-of-range sequences.
TEST(PythonFrontend, Utf8CheckAgreesWithLlvms) {
  TempTree T;
  const std::vector<std::string> Pieces = {
      "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", // good
      "\xC3", "\xE2\x82", "\xF0\x9F\x98",              // truncated
      "\xC0\x80", "\xE0\x80\x80", "\xED\xA0\x80",     // overlong, surrogate
      "\xF4\x90\x80\x80", "\x80", "\xBF", "\xF8", "\xFF"};
  std::mt19937 Rng(5522);
  std::string Path = T.root() + "/t.py";
  unsigned Rejected = 0;
  for (int Case = 0; Case < 3000; ++Case) {
    std::string Text;
    for (int Part = 0, Parts = 1 + int(Rng() % 4); Part < Parts; ++Part) {
      Text.append(Rng() % 20, 'a');
      if (Rng() % 5 == 0)
        Text += '\n';
      // Mostly good sequences, so that some texts are accepted.
      Text += Pieces[Rng() % 4 ? Rng() % 3 : Rng() % Pieces.size()];
    }
    Text.append(Rng() % 12, 'b');
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(Path, EC);
      OS << Text;
    }
    const llvm::UTF8 *Bad = reinterpret_cast<const llvm::UTF8 *>(Text.data());
    bool Legal = llvm::isLegalUTF8String(&Bad, Bad + Text.size());
    std::string Read, Problem;
    SourceLayout Layout;
    ASSERT_EQ(readSource(Path, Read, Problem, Layout), Legal) << Case;
    if (Legal)
      continue;
    ++Rejected;
    size_t At = size_t(Bad - reinterpret_cast<const llvm::UTF8 *>(Text.data()));
    char Hex[8];
    snprintf(Hex, sizeof Hex, "0x%02X", (unsigned char)Text[At]);
    std::string Line = std::to_string(1 + llvm::StringRef(Text).take_front(At).count('\n'));
    EXPECT_NE(Problem.find(std::string("byte ") + Hex + " on line " + Line + ")"),
              std::string::npos)
        << Case << ": " << Problem;
  }
  EXPECT_GT(Rejected, 300u);
  EXPECT_LT(Rejected, 2700u);
}

} // namespace

// A tree of scripts (no __init__.py) has one import root per folder, and
// every import is asked of every root: each folder is listed once per run,
// not stat'ed once per import and root (14 million failed stat calls on
// 1,600 files before).
TEST(PythonFrontend, ScriptTreeListsEachFolderOnce) {
  TempTree T;
  const int Folders = 12, Scripts = 8;
  std::string Imports = "import os\nimport sys\nimport json\nimport typing\n"
                        "from collections import OrderedDict\n";
  for (int F = 0; F < Folders; ++F) {
    std::string Dir = "tools/group" + std::to_string(F) + "/";
    T.write(Dir + "helpers.py", Imports + "from vllm.utils import weak_ref_tensors\n"
                                          "def weak(t):\n"
                                          "    return weak_ref_tensors(t)\n");
    for (int S = 0; S < Scripts; ++S)
      T.write(Dir + "run" + std::to_string(S) + ".py",
              Imports + "from helpers import weak\n"
                        "from vllm.utils import weak_ref_tensors\n"
                        "def main(x):\n"
                        "    return weak_ref_tensors(weak(x))\n");
  }
  Result R = run({T.root() + "/tools"});
  EXPECT_EQ(R.FilesRead, unsigned(Folders * (Scripts + 1)));
  // Each script's `helpers` is its sibling: one finding per script.
  EXPECT_EQ(ofCheck(R, "tether-double-weak-ref").size(),
            size_t(Folders * Scripts));
  // The folders of the tree and the few above it, each once; asking each of
  // the 12 roots about each of the ~10 names per file, uncached, would be
  // over 10,000 lookups.
  EXPECT_GE(R.FoldersListed, unsigned(Folders));
  EXPECT_LE(R.FoldersListed, unsigned(Folders + 4));
}
