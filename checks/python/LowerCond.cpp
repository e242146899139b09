//===- LowerCond.cpp - Truth values, tests and short-circuit branches -----===//
//
// A condition becomes branches: `and`/`or`/`not` short-circuit, the tests
// the engine reads (capture predicates, is-None, membership, size checks)
// become Test instructions, anything else is a truth value it cannot read.
//
//===----------------------------------------------------------------------===//
#include "LowerImpl.h"

using namespace tether;
using namespace tether::python;
using engine::Op;
using engine::PlaceRef;
using engine::VarId;

VarId FnLowerer::boolValue(SyntaxNode N) {
  TSSymbol K = kindOf(N);
  if (K == G.NotOp) {
    VarId A = expr(fieldOf(N, G.FArgument));
    VarId T = temp();
    engine::Inst &I = emit(Op::Not, N);
    I.Dst = T;
    I.A = A;
    info(T).Truth = true;
    return T;
  }
  if (K == G.Comparison) {
    bool Neg = false;
    VarId T = comparisonTest(N, Neg);
    if (T == engine::NoVar)
      return constant(N);
    if (!Neg)
      return T;
    VarId NT = temp();
    engine::Inst &I = emit(Op::Not, N);
    I.Dst = NT;
    I.A = T;
    info(NT).Truth = true;
    return NT;
  }
  // `a or b` / `a and b`: the value of one operand or the other.
  VarId R = temp();
  SyntaxNode Lhs = fieldOf(N, G.FLeft), Rhs = fieldOf(N, G.FRight);
  bool Or = text(fieldOf(N, G.FOperator)) == "or";
  VarId A = expr(Lhs);
  copyTo(R, A, Lhs);
  uint32_t Other = B.block(), J = B.block();
  if (Or)
    branchOn(A, Lhs, J, Other);
  else
    branchOn(A, Lhs, Other, J);
  B.setBlock(Other);
  VarId Bv = expr(Rhs);
  copyTo(R, Bv, Rhs);
  B.jump(J);
  B.setBlock(J);
  return R;
}

engine::SrcLoc FnLowerer::branchLoc(SyntaxNode N) const {
  return CondAt.valid() ? CondAt : loc(N);
}

void FnLowerer::condition(SyntaxNode N, uint32_t T, uint32_t F) {
  engine::SrcLoc Saved = CondAt;
  CondAt = loc(stripParens(N));
  cond(N, T, F);
  CondAt = Saved;
}

void FnLowerer::branchOn(VarId V, SyntaxNode N, uint32_t T, uint32_t F) {
  N = stripParens(N);
  TSSymbol K = kindOf(N);
  if (!info(V).Truth &&
      (K == G.Identifier || K == G.Attribute || K == G.Subscript)) {
    // `if x:` -- x holds something, so x is not None.
    VarId Null;
    test(engine::TestKind::IsNull, V, N, Null);
    B.branch(Null, F, T, branchLoc(N));
    return;
  }
  B.branch(V, T, F, branchLoc(N));
}

void FnLowerer::cond(SyntaxNode N, uint32_t T, uint32_t F) {
  N = stripParens(N);
  TSSymbol K = kindOf(N);
  if (K == G.NotOp) {
    cond(fieldOf(N, G.FArgument), F, T);
    return;
  }
  if (K == G.BooleanOp) {
    uint32_t Mid = B.block();
    if (text(fieldOf(N, G.FOperator)) == "and")
      cond(fieldOf(N, G.FLeft), Mid, F);
    else
      cond(fieldOf(N, G.FLeft), T, Mid);
    B.setBlock(Mid);
    cond(fieldOf(N, G.FRight), T, F);
    return;
  }
  if (K == G.Comparison) {
    bool Neg = false;
    VarId V = comparisonTest(N, Neg);
    if (V == engine::NoVar)
      V = constant(N);
    B.branch(V, Neg ? F : T, Neg ? T : F, branchLoc(N));
    return;
  }
  if (isNull(N)) {
    B.branch(constant(N), T, F, branchLoc(N));
    return;
  }
  branchOn(expr(N), N, T, F);
}

/// The receiver of a size read (`x.numel()`, `x.shape[0]`, `x.size(1)`,
/// `x.nbytes`), or a null node.
static SyntaxNode sizeReceiver(SyntaxNode O, std::string_view Src) {
  const Grammar &G = Grammar::get();
  for (unsigned Steps = 0; Steps < 8; ++Steps) {
    O = stripParens(O);
    TSSymbol K = kindOf(O);
    if (K == G.Subscript) {
      O = fieldOf(O, G.FValue);
      continue;
    }
    if (K == G.Call)
      O = fieldOf(O, G.FFunction);
    if (kindOf(O) != G.Attribute)
      return {};
    std::string_view A = textOf(fieldOf(O, G.FAttribute), Src);
    if (A == "numel" || A == "size" || A == "shape" || A == "nbytes" ||
        A == "nelement")
      return fieldOf(O, G.FObject);
    return {};
  }
  return {};
}

VarId FnLowerer::comparisonTest(SyntaxNode N, bool &Neg) {
  std::vector<SyntaxNode> Operands;
  std::vector<std::string> Ops;
  eachChild(N, false, [&](SyntaxNode X, TSFieldId) {
    if (isNamed(X)) {
      if (kindOf(X) != G.Comment)
        Operands.push_back(X);
    } else {
      Ops.push_back(typeName(X));
    }
  });
  std::vector<std::string> Merged; // "is not" / "not in" come as two tokens
  for (size_t I = 0; I < Ops.size(); ++I) {
    if (I + 1 < Ops.size() && Ops[I] == "is" && Ops[I + 1] == "not")
      Merged.push_back("is not"), ++I;
    else if (I + 1 < Ops.size() && Ops[I] == "not" && Ops[I + 1] == "in")
      Merged.push_back("not in"), ++I;
    else
      Merged.push_back(Ops[I]);
  }
  Neg = false;
  if (Operands.size() == 2 && Merged.size() == 1) {
    SyntaxNode Lhs = Operands[0], Rhs = Operands[1];
    const std::string &O = Merged[0];
    bool RNone = kindOf(stripParens(Rhs)) == G.None;
    bool LNone = kindOf(stripParens(Lhs)) == G.None;
    if ((RNone || LNone) &&
        (O == "is" || O == "==" || O == "is not" || O == "!=")) {
      VarId T;
      test(engine::TestKind::IsNull, expr(RNone ? Lhs : Rhs), N, T);
      Neg = O == "is not" || O == "!=";
      return T;
    }
    if (O == "in" || O == "not in") {
      std::string Key = constKey(Lhs);
      if (Key.empty())
        expr(Lhs);
      VarId C = expr(Rhs);
      VarId T;
      engine::Inst &I = test(engine::TestKind::PlaceEmpty, engine::NoVar, N, T);
      I.P.Kind = PlaceRef::Element;
      I.P.Base = C;
      I.P.Key = Key;
      I.P.Spelling = key(Rhs);
      Neg = O == "in";
      return T;
    }
    SyntaxNode SL = sizeReceiver(Lhs, Src), SR = sizeReceiver(Rhs, Src);
    if (!isNull(SL) || !isNull(SR)) {
      VarId Of = expr(isNull(SL) ? SR : SL);
      SyntaxNode Other = isNull(SL) ? Lhs : Rhs;
      if (!isNull(SL) && !isNull(SR))
        expr(SR);
      else
        expr(Other);
      VarId T;
      test(engine::TestKind::SizeCheck, Of, N, T);
      return T;
    }
  }
  for (SyntaxNode O : Operands)
    expr(O);
  return engine::NoVar;
}
