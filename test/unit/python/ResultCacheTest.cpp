//===- ResultCacheTest.cpp - Records read back as written, or not at all --===//
//
// A record read back must be the record written, every field of every
// finding (a hit prints it); a record of another build or key, or one that
// does not read back whole, is never returned.
//
//===----------------------------------------------------------------------===//
#include "ResultCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <sys/stat.h>

using namespace tether;
using namespace tether::python;

namespace {

class ResultCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tether-records", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  llvm::SmallString<128> Dir;
};

ScanRecord sample() {
  ScanRecord R;
  ScanRecord::Input In;
  In.Path = "pkg/a.py";
  In.Readable = true;
  In.Hash = 0xfedcba9876543210ull; // above INT64_MAX: kept as unsigned
  In.Imports = {"pkg.b", "torch"};
  In.Module = "pkg.a\x1f/src\x1fm";
  In.Catalog = 42;
  R.Inputs.push_back(In);
  ScanRecord::Input Unreadable;
  Unreadable.Path = "pkg/\xc3\xa9.py";
  R.Inputs.push_back(Unreadable);
  Finding F;
  F.Check = "tether-double-weak-ref";
  F.Severity = "warning";
  F.Loc = {"pkg/a.py", 5, 12};
  F.Message = "weak-ref conversion of a value that is already a weak "
              "reference \"quoted\"\n";
  F.Notes.push_back({{"pkg/b.py", 3, 1}, "first weak reference made here"});
  // A latin-1 source's fix-it text, and a path that is not UTF-8: bytes
  // JSON cannot hold as strings.
  F.Fixes.push_back({"pkg/\xff.py", 80, 7, "caf\xe9(x)"});
  R.Findings.push_back(F);
  R.Problems.push_back({"pkg/c.py", "not Python 3 (print statement)"});
  R.FilesRead = 3;
  R.ContextFilesRead = 7;
  return R;
}

void expectSame(const ScanRecord &A, const ScanRecord &B) {
  ASSERT_EQ(A.Inputs.size(), B.Inputs.size());
  for (size_t I = 0; I < A.Inputs.size(); ++I) {
    EXPECT_EQ(A.Inputs[I].Path, B.Inputs[I].Path);
    EXPECT_EQ(A.Inputs[I].Readable, B.Inputs[I].Readable);
    EXPECT_EQ(A.Inputs[I].Hash, B.Inputs[I].Hash);
    EXPECT_EQ(A.Inputs[I].Imports, B.Inputs[I].Imports);
    EXPECT_EQ(A.Inputs[I].Module, B.Inputs[I].Module);
    EXPECT_EQ(A.Inputs[I].Catalog, B.Inputs[I].Catalog);
  }
  ASSERT_EQ(A.Findings.size(), B.Findings.size());
  for (size_t I = 0; I < A.Findings.size(); ++I) {
    const Finding &X = A.Findings[I], &Y = B.Findings[I];
    EXPECT_EQ(X.Check, Y.Check);
    EXPECT_EQ(X.Severity, Y.Severity);
    EXPECT_EQ(X.Loc.File, Y.Loc.File);
    EXPECT_EQ(X.Loc.Line, Y.Loc.Line);
    EXPECT_EQ(X.Loc.Column, Y.Loc.Column);
    EXPECT_EQ(X.Message, Y.Message);
    ASSERT_EQ(X.Notes.size(), Y.Notes.size());
    EXPECT_EQ(X.Notes[0].Loc.File, Y.Notes[0].Loc.File);
    EXPECT_EQ(X.Notes[0].Message, Y.Notes[0].Message);
    ASSERT_EQ(X.Fixes.size(), Y.Fixes.size());
    EXPECT_EQ(X.Fixes[0].Offset, Y.Fixes[0].Offset);
    EXPECT_EQ(X.Fixes[0].Length, Y.Fixes[0].Length);
    EXPECT_EQ(X.Fixes[0].Text, Y.Fixes[0].Text);
    EXPECT_EQ(X.Fixes[0].File, Y.Fixes[0].File);
  }
  ASSERT_EQ(A.Problems.size(), B.Problems.size());
  EXPECT_EQ(A.Problems[0].Message, B.Problems[0].Message);
  EXPECT_EQ(A.FilesRead, B.FilesRead);
  EXPECT_EQ(A.ContextFilesRead, B.ContextFilesRead);
}

TEST_F(ResultCacheTest, ARecordReadsBackAsWritten) {
  ResultCache C(std::string(Dir), "build 1");
  std::vector<std::string> Notes;
  EXPECT_FALSE(C.lookup("k", Notes)); // none kept yet: no note
  C.store("k", sample(), Notes);
  std::optional<ScanRecord> Back = C.lookup("k", Notes);
  ASSERT_TRUE(Back);
  expectSame(*Back, sample());
  EXPECT_TRUE(Notes.empty());
}

TEST_F(ResultCacheTest, AnotherBuildOrKeyIsNeverRead) {
  std::vector<std::string> Notes;
  ResultCache(std::string(Dir), "build 1").store("k", sample(), Notes);
  EXPECT_FALSE(ResultCache(std::string(Dir), "build 2").lookup("k", Notes));
  EXPECT_FALSE(ResultCache(std::string(Dir), "build 1").lookup("k2", Notes));
  EXPECT_TRUE(Notes.empty()); // other files: not kept, nothing damaged
}

TEST_F(ResultCacheTest, EveryCutOfARecordIsIgnoredWithANote) {
  ResultCache C(std::string(Dir), "build 1");
  std::vector<std::string> Notes;
  C.store("k", sample(), Notes);
  std::string File = C.fileFor("k");
  auto Whole = llvm::MemoryBuffer::getFile(File);
  ASSERT_TRUE(bool(Whole));
  std::string Text = (*Whole)->getBuffer().str();
  for (size_t Len = 0; Len < Text.size(); Len += 7) {
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(File, EC);
      ASSERT_FALSE(EC);
      OS << Text.substr(0, Len);
    }
    Notes.clear();
    EXPECT_FALSE(C.lookup("k", Notes)) << "cut at " << Len;
    ASSERT_EQ(Notes.size(), 1u) << "cut at " << Len;
    EXPECT_NE(Notes[0].find(File), std::string::npos);
  }
}

TEST_F(ResultCacheTest, NotARegularFileIsNeverOpened) {
  ResultCache C(std::string(Dir), "build 1");
  std::string File = C.fileFor("k");
  ASSERT_FALSE(llvm::sys::fs::create_directories(
      llvm::sys::path::parent_path(File)));
  ASSERT_EQ(mkfifo(File.c_str(), 0600), 0); // reading it would block
  std::vector<std::string> Notes;
  EXPECT_FALSE(C.lookup("k", Notes));
  ASSERT_EQ(Notes.size(), 1u);
  EXPECT_NE(Notes[0].find("not a regular file"), std::string::npos);
  llvm::sys::fs::remove(File);
}

TEST_F(ResultCacheTest, TheLeastRecentlyUsedRecordsGo) {
  ResultCache C(std::string(Dir), "build 1");
  std::vector<std::string> Notes;
  ScanRecord R = sample();
  for (int I = 0; I < 256; ++I)
    C.store("key " + std::to_string(I), R, Notes);
  auto Count = [&] {
    size_t N = 0;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator
             It(llvm::sys::path::parent_path(C.fileFor("x")), EC),
         End;
         It != End && !EC; It.increment(EC))
      ++N;
    return N;
  };
  EXPECT_EQ(Count(), 256u);
  ASSERT_TRUE(C.lookup("key 0", Notes)); // the oldest, used again
  C.store("one more", R, Notes);
  EXPECT_EQ(Count(), 256u);
  EXPECT_TRUE(C.lookup("key 0", Notes));
  EXPECT_FALSE(C.lookup("key 1", Notes)); // the oldest left
  EXPECT_TRUE(C.lookup("one more", Notes));
  EXPECT_TRUE(Notes.empty());
}

} // namespace
