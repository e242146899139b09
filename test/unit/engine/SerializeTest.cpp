//===- SerializeTest.cpp - Lowered functions as bytes (engine/Serialize.h) -===//
//
// What the module cache keeps must read back as the function that was
// written, and bytes it did not write (cut short, changed, numbers out of
// the program's range) must be refused without a crash.
//
//===----------------------------------------------------------------------===//
#include "engine/Builder.h"
#include "engine/Dump.h"
#include "engine/Serialize.h"

#include "gtest/gtest.h"

using namespace tether;
using namespace tether::engine;

namespace {

/// f(cache, t): w = weak_ref(t); if capturing: cache.ws[k] = w; g(w); ...
Program sample() {
  Program P;
  P.Files = {"pkg/a.py", "pkg/b.py"};
  P.Classes.push_back({"Cache", {}, false});
  for (const char *Name : {"f", "g"}) {
    P.Functions.emplace_back();
    P.Functions.back().Name = P.Functions.back().QualName = Name;
  }
  Function &F = P.Functions[0];
  F.Loc = {0, 3, 1};
  F.EndLoc = {0, 12, 1};
  FunctionBuilder B(F);
  VarId Cache = B.param("cache", 0);
  VarId T = B.param("t");
  VarId W = B.var("w"), C = B.var();
  Inst &Wk = B.emit(Op::WeakRef, {0, 4, 9});
  Wk.Dst = W;
  Wk.A = T;
  Wk.Name = "torch.ops._C.weak_ref_tensor";
  Wk.Fixes.push_back({"pkg/a.py", 40, 29, "t"});
  Inst &Te = B.emit(Op::Test, {0, 5, 8});
  Te.Dst = C;
  Te.Test = TestKind::CapturePredicate;
  uint32_t Then = B.block(), Join = B.block();
  B.branch(C, Then, Join, {0, 5, 5});
  B.setBlock(Then);
  Inst &St = B.emit(Op::Store, {0, 6, 9});
  St.A = W;
  St.P.Kind = PlaceRef::Element;
  St.P.Base = Cache;
  St.P.Name = "ws";
  St.P.Key = "'k'";
  St.P.Spelling = "cache.ws['k']";
  B.jump(Join, {0, 6, 9});
  B.setBlock(Join);
  Inst &Ca = B.emit(Op::Call, {1, 7, 5});
  Ca.Targets.push_back({1, {W}});
  Ca.Args = {W};
  Ca.ArgLocs = {{1, 7, 7}};
  Ca.Name = "g";
  B.ret(W, {0, 8, 5});
  B.finish();
  FunctionBuilder G(P.Functions[1]);
  G.param("x");
  G.finish();
  return P;
}

std::string bytesOf(const Function &F) {
  std::string Out;
  ByteWriter W(Out);
  writeFunction(W, F);
  return Out;
}

ProgramShape shapeOf(const Program &P) {
  return {P.Functions.size(), P.Classes.size(), P.Files.size()};
}

TEST(Serialize, AFunctionReadsBackAsWritten) {
  Program P = sample();
  Program Back = P;
  for (size_t I = 0; I < P.Functions.size(); ++I) {
    std::string Bytes = bytesOf(P.Functions[I]);
    ByteReader R(Bytes);
    ASSERT_TRUE(readFunction(R, shapeOf(P), Back.Functions[I]));
    EXPECT_TRUE(R.atEnd());
  }
  EXPECT_EQ(dump(P), dump(Back));
  EXPECT_EQ(Back.Functions[0].Blocks[1].Insts[0].P.Spelling, "cache.ws['k']");
  ASSERT_EQ(Back.Functions[0].Blocks[0].Insts[0].Fixes.size(), 1u);
  EXPECT_EQ(Back.Functions[0].Blocks[0].Insts[0].Fixes[0].Offset, 40u);
}

TEST(Serialize, EveryCutIsRefused) {
  Program P = sample();
  std::string Bytes = bytesOf(P.Functions[0]);
  for (size_t Len = 0; Len < Bytes.size(); ++Len) {
    ByteReader R(llvm::StringRef(Bytes).take_front(Len));
    Function F;
    EXPECT_FALSE(readFunction(R, shapeOf(P), F)) << "cut at " << Len;
  }
}

TEST(Serialize, ChangedBytesNeverCrash) {
  // Each byte changed in turn: refused, or a function whose numbers are all
  // in range (the digest of a cache file refuses those before this).
  Program P = sample();
  std::string Bytes = bytesOf(P.Functions[0]);
  for (size_t At = 0; At < Bytes.size(); ++At)
    for (unsigned char X : {0x01, 0x80, 0xFF}) {
      std::string Changed = Bytes;
      Changed[At] = char(Changed[At] ^ X);
      ByteReader R(Changed);
      Function F;
      if (!readFunction(R, shapeOf(P), F))
        continue;
      for (const Block &B : F.Blocks) {
        for (const Inst &I : B.Insts) {
          EXPECT_LT(I.Dst, VarId(F.VarNames.size()));
          for (const CallTarget &T : I.Targets)
            EXPECT_LT(size_t(T.Fn), P.Functions.size());
        }
        if (B.Term.Kind == Terminator::Goto || B.Term.Kind == Terminator::Branch) {
          EXPECT_LT(B.Term.Succ[0], F.Blocks.size());
        }
      }
    }
}

TEST(Serialize, NumbersOutsideTheProgramAreRefused) {
  Program P = sample();
  std::string Bytes = bytesOf(P.Functions[0]);
  Function F;
  ByteReader OneFunction(Bytes); // the call targets function 1
  EXPECT_FALSE(readFunction(OneFunction, {1, 1, 2}, F));
  ByteReader OneFile(Bytes); // the call is in file 1
  EXPECT_FALSE(readFunction(OneFile, {2, 1, 1}, F));
  ByteReader NoClass(Bytes); // parameter 0 is a Cache
  EXPECT_FALSE(readFunction(NoClass, {2, 0, 2}, F));
  ByteReader Whole(Bytes);
  EXPECT_TRUE(readFunction(Whole, {2, 1, 2}, F));
}

} // namespace
