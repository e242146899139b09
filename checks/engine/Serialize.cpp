//===- Serialize.cpp - A lowered function as bytes, and back --------------===//
#include "Serialize.h"

#include "llvm/ADT/ArrayRef.h"

using namespace tether::engine;

namespace {

void loc(ByteWriter &W, const SrcLoc &L) {
  W.u(L.File);
  W.u(L.Line);
  W.u(L.Col);
}

void vars(ByteWriter &W, llvm::ArrayRef<VarId> Vs) {
  W.u(Vs.size());
  for (VarId V : Vs)
    W.i(V);
}

void inst(ByteWriter &W, const Inst &I) {
  W.u(uint64_t(I.Kind));
  loc(W, I.Loc);
  W.i(I.Dst);
  W.i(I.A);
  W.u(uint64_t(I.P.Kind));
  W.i(I.P.Base);
  W.s(I.P.Name);
  W.s(I.P.Key);
  W.b(I.P.KeyPerLayer);
  W.b(I.P.EverySlot);
  W.s(I.P.Spelling);
  W.b(I.P.Local);
  W.u(uint64_t(I.Alloc));
  W.u(uint64_t(I.Weak));
  W.u(uint64_t(I.Test));
  W.u(uint64_t(I.Region));
  W.i(I.Class);
  W.b(I.SizedByCaller);
  W.b(I.Device);
  W.b(I.Manual);
  W.b(I.MayBeAbsent);
  W.b(I.IfAbsent);
  W.u(I.Targets.size());
  for (const CallTarget &T : I.Targets) {
    W.i(T.Fn);
    vars(W, T.Args);
  }
  vars(W, I.Args);
  W.u(I.ArgLocs.size());
  for (const SrcLoc &L : I.ArgLocs)
    loc(W, L);
  W.s(I.Link);
  W.s(I.Key);
  W.s(I.Name);
  W.u(I.Fixes.size());
  for (const tether::FixIt &F : I.Fixes) {
    W.s(F.File);
    W.u(F.Offset);
    W.u(F.Length);
    W.s(F.Text);
  }
}

/// Reads what the writer wrote, checking each number against the shape
/// of the function and program it belongs to.
struct Reader {
  ByteReader &R;
  const ProgramShape &Shape;
  size_t NumVars = 0, NumBlocks = 0;

  uint32_t u32() {
    uint64_t V = R.u();
    if (V > UINT32_MAX)
      R.fail();
    return uint32_t(V);
  }
  SrcLoc loc() {
    SrcLoc L;
    L.File = u32();
    L.Line = u32();
    L.Col = u32();
    if (L.File >= Shape.Files && L.Line != 0)
      R.fail();
    return L;
  }
  VarId var() {
    int64_t V = R.i();
    if (V < NoVar || V >= int64_t(NumVars))
      R.fail();
    return VarId(V);
  }
  int32_t id(size_t Limit) { // -1 or an index below Limit
    int64_t V = R.i();
    if (V < -1 || V >= int64_t(Limit))
      R.fail();
    return int32_t(V);
  }
  llvm::SmallVector<VarId, 0> vars() {
    llvm::SmallVector<VarId, 0> Out(R.count());
    for (VarId &V : Out)
      V = var();
    return Out;
  }
  void inst(Inst &I) {
    I.Kind = Op(R.below(uint64_t(Op::GraphLaunch) + 1));
    I.Loc = loc();
    I.Dst = var();
    I.A = var();
    I.P.Kind = PlaceRef::KindT(R.below(PlaceRef::Element + 1));
    I.P.Base = var();
    I.P.Name = R.s();
    I.P.Key = R.s();
    I.P.KeyPerLayer = R.b();
    I.P.EverySlot = R.b();
    I.P.Spelling = R.s();
    I.P.Local = R.b();
    I.Alloc = AllocKind(R.below(uint64_t(AllocKind::Container) + 1));
    I.Weak = WeakKind(R.below(uint64_t(WeakKind::OverAddress) + 1));
    I.Test = TestKind(R.below(uint64_t(TestKind::IsTensor) + 1));
    I.Region = RegionKind(R.below(uint64_t(RegionKind::CaptureSession) + 1));
    I.Class = id(Shape.Classes);
    I.SizedByCaller = R.b();
    I.Device = R.b();
    I.Manual = R.b();
    I.MayBeAbsent = R.b();
    I.IfAbsent = R.b();
    I.Targets.resize(R.count());
    for (CallTarget &T : I.Targets) {
      T.Fn = id(Shape.Functions);
      if (T.Fn < 0)
        R.fail();
      T.Args = vars();
    }
    I.Args = vars();
    I.ArgLocs.resize(R.count());
    for (SrcLoc &L : I.ArgLocs)
      L = loc();
    I.Link = R.s();
    I.Key = R.s();
    I.Name = R.s();
    I.Fixes.resize(R.count());
    for (tether::FixIt &F : I.Fixes) {
      F.File = R.s();
      F.Offset = u32();
      F.Length = u32();
      F.Text = R.s();
    }
  }
};

} // namespace

void tether::engine::writeFunction(ByteWriter &W, const Function &F) {
  W.s(F.Name);
  W.s(F.QualName);
  W.i(F.Class);
  W.b(F.ModuleBody);
  W.u(F.NumParams);
  W.u(F.VarNames.size());
  for (const std::string &N : F.VarNames)
    W.s(N);
  W.u(F.ParamClass.size());
  for (ClassId C : F.ParamClass)
    W.i(C);
  W.u(F.ParamElemClass.size());
  for (ClassId C : F.ParamElemClass)
    W.i(C);
  W.u(F.Blocks.size());
  for (const Block &B : F.Blocks) {
    W.u(B.Insts.size());
    for (const Inst &I : B.Insts)
      inst(W, I);
    W.u(uint64_t(B.Term.Kind));
    W.u(B.Term.Succ[0]);
    W.u(B.Term.Succ[1]);
    W.i(B.Term.Cond);
    W.i(B.Term.Value);
    loc(W, B.Term.Loc);
  }
  loc(W, F.Loc);
  loc(W, F.EndLoc);
  W.s(F.Link);
  W.b(F.Foreign);
}

bool tether::engine::readFunction(ByteReader &R, const ProgramShape &Shape,
                                  Function &F) {
  Reader In{R, Shape};
  F = Function();
  F.Name = R.s();
  F.QualName = R.s();
  F.Class = In.id(Shape.Classes);
  F.ModuleBody = R.b();
  F.NumParams = In.u32();
  F.VarNames.resize(R.count());
  for (Symbol &N : F.VarNames)
    N = R.s();
  In.NumVars = F.VarNames.size();
  if (F.NumParams > In.NumVars)
    R.fail();
  F.ParamClass.resize(R.count());
  for (ClassId &C : F.ParamClass)
    C = In.id(Shape.Classes);
  F.ParamElemClass.resize(R.count());
  for (ClassId &C : F.ParamElemClass)
    C = In.id(Shape.Classes);
  F.Blocks.resize(R.count());
  In.NumBlocks = F.Blocks.size();
  for (Block &B : F.Blocks) {
    B.Insts.resize(R.count());
    for (Inst &I : B.Insts)
      In.inst(I);
    B.Term.Kind = Terminator::KindT(R.below(Terminator::Raise + 1));
    B.Term.Succ[0] = In.u32();
    B.Term.Succ[1] = In.u32();
    if ((B.Term.Kind == Terminator::Goto || B.Term.Kind == Terminator::Branch) &&
        (B.Term.Succ[0] >= In.NumBlocks ||
         (B.Term.Kind == Terminator::Branch && B.Term.Succ[1] >= In.NumBlocks)))
      R.fail();
    B.Term.Cond = In.var();
    B.Term.Value = In.var();
    B.Term.Loc = In.loc();
    if (!R.ok())
      return false;
  }
  if (F.Blocks.empty())
    R.fail();
  F.Loc = In.loc();
  F.EndLoc = In.loc();
  F.Link = R.s();
  F.Foreign = R.b();
  return R.ok();
}
