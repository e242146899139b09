//===- LowerExpr.cpp - Expressions, conditions and assignments ------------===//
//
// Every expression is lowered into a variable holding its value (a local's
// own variable, or a temporary). Conditions are lowered into branches.
// Expressions recurse: the nesting budget (Nesting.h) bounds the depth.
//
//===----------------------------------------------------------------------===//
#include "LowerImpl.h"
#include "common/LayerKeys.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tether;
using namespace tether::python;
using engine::Op;
using engine::PlaceRef;
using engine::VarId;

VarId FnLowerer::local(const std::string &Name) {
  auto It = Locals.find(Name);
  if (It != Locals.end())
    return It->second;
  VarId V = newVar(Name);
  Locals.emplace(Name, V);
  return V;
}

void FnLowerer::copyTo(VarId Dst, VarId From, SyntaxNode At) {
  engine::Inst &I = emit(Op::Copy, At);
  I.Dst = Dst;
  I.A = From;
  merge(Dst, From);
}

VarId FnLowerer::globalRead(const std::string &Qual, SyntaxNode At) {
  VarId T = temp();
  engine::Inst &I = emit(Op::Read, At);
  I.Dst = T;
  I.P.Kind = PlaceRef::Global;
  I.P.Name = Qual;
  I.P.Spelling = key(At);
  addClass(T, Types.global(Qual));
  // In the module body, what this module stored there before.
  if (FnIsModule && Qual.size() > M.Name.size() &&
      Qual.compare(0, M.Name.size(), M.Name) == 0) {
    auto It = GlobalVals.find(Qual.substr(M.Name.size() + 1));
    if (It != GlobalVals.end())
      merge(T, It->second);
  }
  return T;
}

std::string FnLowerer::constKey(SyntaxNode Sub) const {
  Sub = stripParens(Sub);
  TSSymbol K = kindOf(Sub);
  if (K == G.Integer || K == G.True || K == G.False || K == G.None)
    return text(Sub);
  if (K == G.String) {
    bool Interp = false;
    eachChild(Sub, true, [&](SyntaxNode C, TSFieldId) {
      Interp |= kindOf(C) == G.Interpolation;
    });
    return Interp ? std::string() : text(Sub);
  }
  if (K == L.UnaryOp && kindOf(stripParens(fieldOf(Sub, G.FArgument))) == G.Integer)
    return key(Sub);
  return {};
}

bool FnLowerer::namesLayer(SyntaxNode Key) const {
  bool Found = false;
  preorder(Key, [&](SyntaxNode X) {
    if (kindOf(X) == G.Identifier && isLayerName(text(X)))
      Found = true;
    return !Found;
  });
  return Found;
}

VarId FnLowerer::expr(SyntaxNode N) {
  // Branches inside an expression (`a if c else b`, a comprehension's
  // `if`) are its own, not those of the statement condition around it.
  engine::SrcLoc Saved = CondAt;
  CondAt = {};
  VarId V = exprKind(N);
  CondAt = Saved;
  return V;
}

VarId FnLowerer::exprKind(SyntaxNode N) {
  if (isNull(N))
    return constant(N);
  TSSymbol K = kindOf(N);
  if (K == G.Parenthesized) {
    SyntaxNode In = stripParens(N);
    return kindOf(In) == G.Parenthesized ? constant(N) : expr(In);
  }
  if (K == G.Identifier)
    return name(N);
  if (K == G.Attribute)
    return attribute(N);
  if (K == G.Subscript)
    return subscript(N);
  if (K == G.Call)
    return call(N);
  if (K == G.Await)
    return expr(firstChildOf(N));
  // Only a with item's value holds one (Validate.cpp): `b as t` in
  // `with a if c else b as t:` is b; withStmt binds t.
  if (K == G.AsPattern)
    return expr(firstChildOf(N));
  if (K == G.Yield) {
    // Whoever consumes the generator may keep what it yields (a runner's
    // inputs yielded to the caller that keeps them beside the graph).
    SyntaxNode X = firstChildOf(N);
    if (!isNull(X)) {
      VarId V = expr(X);
      emit(Op::Escape, N).A = V;
    }
    return constant(N);
  }
  if (K == G.None) {
    VarId V = temp();
    emit(Op::Null, N).Dst = V;
    return V;
  }
  if (K == G.Assignment) {
    SyntaxNode Lhs = fieldOf(N, G.FLeft), R = fieldOf(N, G.FRight);
    SyntaxNode Type = fieldOf(N, G.FType);
    if (!isNull(Type) && kindOf(Lhs) == G.Identifier &&
        isLocalName(text(Lhs)))
      addClass(local(text(Lhs)), Types.annotation(Mod, Type, &LocalImports));
    if (isNull(R))
      return constant(N); // `x: int` declares, binds nothing
    // Chained `a = b = value`: every target gets the last value.
    std::vector<SyntaxNode> Targets{Lhs};
    while (kindOf(R) == G.Assignment) {
      Targets.push_back(fieldOf(R, G.FLeft));
      R = fieldOf(R, G.FRight);
    }
    TSSymbol RK = kindOf(R), LK = kindOf(Lhs);
    if (Targets.size() == 1 && (RK == G.ExpressionList || RK == G.Tuple) &&
        (LK == G.PatternList || LK == G.TuplePattern)) {
      std::vector<SyntaxNode> Ls, Rs;
      eachChild(Lhs, true, [&](SyntaxNode C, TSFieldId) {
        if (kindOf(C) != G.Comment)
          Ls.push_back(C);
      });
      eachChild(R, true, [&](SyntaxNode C, TSFieldId) {
        if (kindOf(C) != G.Comment)
          Rs.push_back(C);
      });
      bool Plain = Ls.size() == Rs.size();
      for (SyntaxNode X : Ls)
        Plain &= kindOf(X) != G.ListSplatPattern;
      if (Plain) { // a, b = x, y: pairwise, all values first
        std::vector<VarId> Vs;
        for (SyntaxNode X : Rs)
          Vs.push_back(expr(X));
        for (size_t I = 0; I < Ls.size(); ++I)
          assign(Ls[I], Vs[I]);
        return constant(N);
      }
    }
    VarId V = expr(R);
    for (SyntaxNode T : Targets)
      assign(T, V);
    return V;
  }
  if (K == G.AugAssignment) {
    // x += y: an in-place operation on x's memory (a tensor's).
    SyntaxNode Lhs = fieldOf(N, G.FLeft);
    SyntaxNode Rhs = stripParens(fieldOf(N, G.FRight));
    std::string OpName = text(fieldOf(N, G.FOperator));
    VarId A = expr(Lhs);
    if (OpName == "+=" && (kindOf(Rhs) == G.List || kindOf(Rhs) == G.Tuple)) {
      // `keep += [ws]` is `keep.extend([ws])`: the list holds ws now.
      std::vector<CallArg> As(1);
      As[0].Whole = As[0].Value = Rhs;
      VarId Ignored;
      containerMethod("extend", A, Lhs, As, N, Ignored);
      return A;
    }
    VarId Bv = expr(Rhs);
    for (VarId V : {A, Bv}) {
      engine::Inst &I = emit(Op::Use, N);
      I.A = V;
      I.Name = OpName;
    }
    return A;
  }
  if (K == G.NamedExpr) {
    VarId V = expr(fieldOf(N, G.FValue));
    assign(fieldOf(N, G.FName), V);
    return V;
  }
  if (K == G.Conditional)
    return conditional(N);
  if (K == G.BooleanOp || K == G.NotOp || K == G.Comparison)
    return boolValue(N);
  if (K == G.ListComp || K == G.SetComp || K == G.DictComp ||
      K == G.GeneratorExpr)
    return comprehension(N);
  if (K == G.Dictionary)
    return dictionary(N);
  if (K == G.List || K == G.Tuple || K == G.ExpressionList ||
      K == L.Set)
    return literal(N);
  if (K == G.KeywordArgument)
    return expr(fieldOf(N, G.FValue));
  if (K == G.ListSplat || K == G.DictSplat)
    return expr(firstChildOf(N));
  if (K == G.Lambda)
    return constant(N); // its body is not this function's code
  if (K == G.String) { // an f-string's interpolations may call
    eachChild(N, true, [&](SyntaxNode C, TSFieldId) {
      if (kindOf(C) == G.Interpolation)
        expr(firstChildOf(C));
    });
    return constant(N);
  }
  if (K == G.Integer || K == L.Float || K == G.True || K == G.False ||
      K == L.Ellipsis)
    return constant(N);
  // Arithmetic and anything else: its parts, for the calls in them; the
  // value itself holds no memory the checks follow.
  eachChild(N, true, [&](SyntaxNode C, TSFieldId) {
    if (kindOf(C) != G.Comment && kindOf(C) != G.Block)
      expr(C);
  });
  return constant(N);
}

bool FnLowerer::throughGlobal(const std::string &Dotted) {
  for (size_t Dot = Dotted.find('.'); Dot != std::string::npos;
       Dot = Dotted.find('.', Dot + 1))
    if (resolve(Dotted.substr(0, Dot)).Kind == Resolved::Global)
      return true;
  return false;
}

VarId FnLowerer::name(SyntaxNode N) {
  std::string Name = text(N);
  if (GlobalDecl.count(Name) && !Scoped.count(Name))
    return globalRead(M.Name + "." + Name, N);
  if (isLocalName(Name))
    return local(Name);
  if (!FnIsModule && !LocalImports.count(Name)) {
    auto It = Fn.Nested.find(Name);
    if (It != Fn.Nested.end()) {
      VarId V = constant(N);
      FnRef R;
      R.Fn = It->second;
      info(V).Fns.push_back(R);
      return V;
    }
  }
  Resolved R = resolve(Name);
  if (R.Kind == Resolved::Global)
    return globalRead(R.Qual, N);
  VarId V = constant(N);
  if (R.Kind == Resolved::Function) {
    FnRef F;
    F.Fn = R.Index;
    info(V).Fns.push_back(F);
  } else if (R.Kind == Resolved::Class) {
    info(V).ClassObj.push_back(R.Index);
  }
  return V;
}

/// Tensor metadata: reading it reads no memory the checks follow.
static bool isMetadata(llvm::StringRef A) {
  return llvm::StringSwitch<bool>(A)
      .Cases({"shape", "dtype", "device", "ndim", "is_cuda", "layout",
              "requires_grad", "nbytes", "itemsize", "numel", "size", "dim",
              "data_ptr", "stride", "element_size", "nelement", "is_contiguous",
              "storage_offset", "get_device", "is_npu"},
             true)
      .Default(false);
}

VarId FnLowerer::attribute(SyntaxNode N) {
  std::string D = dottedName(N, Src);
  SyntaxNode Obj = fieldOf(N, G.FObject);
  std::string Attr = text(fieldOf(N, G.FAttribute));
  if (!D.empty()) {
    std::string Head = D.substr(0, D.find('.'));
    if (!isLocalName(Head) && !isSelf(Obj) && !GlobalDecl.count(Head)) {
      Resolved R = resolve(D);
      if (R.Kind == Resolved::Global)
        return globalRead(R.Qual, N);
      if (R.Kind == Resolved::Function) {
        VarId V = constant(N);
        FnRef F;
        F.Fn = R.Index;
        // Through its class: a classmethod gets the class first.
        F.SkipFirst = Types.isClassMethod(R.Index);
        info(V).Fns.push_back(F);
        return V;
      }
      if (R.Kind == Resolved::Class) {
        VarId V = constant(N);
        info(V).ClassObj.push_back(R.Index);
        return V;
      }
      if (R.Kind == Resolved::Module)
        return constant(N);
      auto Predicate = [&] {
        VarId T;
        test(engine::TestKind::CapturePredicate, engine::NoVar, N, T, D);
        return T;
      };
      // `Cls.attr`: a class-level static; a capture flag kept on the class
      // (LMDeploy's `AscendGraphRunner.capturing`) is the predicate.
      std::string Owner = D.substr(0, D.rfind('.'));
      if (resolve(Owner).Kind == Resolved::Class)
        return Cat.CapturePredicates.matches(D) ? Predicate()
                                                : globalRead(R.Qual, N);
      // An attribute of a module-level object goes through the object;
      // anything else external (torch.float16) is no memory of ours.
      if (!throughGlobal(D)) {
        if (Cat.CapturePredicates.matches(D) || Cat.CapturePredicates.matches(R.Qual))
          return Predicate();
        return constant(N);
      }
    }
  }
  VarId Base = expr(Obj);
  // `ctx.capturing`, `get_forward_context().capturing`.
  if (Cat.CapturePredicates.matches(D.empty() ? Attr : D)) {
    VarId T;
    test(engine::TestKind::CapturePredicate, Base, N, T, D.empty() ? Attr : D);
    return T;
  }
  const VarInfo &BI = info(Base);
  // A method read off an instance of a known class: a bound method.
  std::vector<FnRef> Methods;
  for (engine::ClassId C : BI.Cls) {
    int Mth = P.findMethod(C, Attr);
    if (Mth >= 0) {
      FnRef F;
      F.Fn = Mth;
      const Function &Cal = P.Functions[Mth];
      if (Cal.BoundMethod)
        F.Self = Base;
      Methods.push_back(F);
    }
  }
  if (!Methods.empty()) {
    VarId V = constant(N);
    info(V).Fns = std::move(Methods);
    return V;
  }
  if (BI.Cls.empty() && isMetadata(Attr))
    return constant(N);
  VarId T = temp();
  engine::Inst &I = emit(Op::Read, N);
  I.Dst = T;
  I.P.Kind = PlaceRef::Field;
  I.P.Base = Base;
  I.P.Name = Attr;
  I.P.Spelling = key(N);
  llvm::SmallVector<engine::ClassId, 1> Cls = info(Base).Cls;
  for (engine::ClassId C : Cls) {
    TypeInfo A = Types.attr(C, Attr);
    if (A.Handed && I.Class < 0)
      I.Class = A.Cls;
    addClass(T, A);
  }
  return T;
}

VarId FnLowerer::subscript(SyntaxNode N) {
  VarId Base = expr(fieldOf(N, G.FValue));
  std::string Key;
  unsigned Subs = 0;
  eachChild(N, true, [&](SyntaxNode C, TSFieldId F) {
    if (F != G.FSubscript)
      return;
    ++Subs;
    Key = constKey(C);
    if (Key.empty())
      expr(C);
  });
  if (Subs != 1)
    Key.clear();
  // Indexing a tensor (`buf[:n]`, `buf[0]`) is a view of its memory, not
  // an element held in a container.
  if (info(Base).Tensor && info(Base).Cls.empty())
    return aliasOf(Base, N);
  VarId T = temp();
  engine::Inst &I = emit(Op::Read, N);
  I.Dst = T;
  I.P.Kind = PlaceRef::Element;
  I.P.Base = Base;
  I.P.Key = Key;
  I.P.Spelling = key(N);
  llvm::SmallVector<engine::ClassId, 1> Elem = info(Base).Elem;
  for (engine::ClassId C : Elem)
    addUnique(info(T).Cls, C);
  return T;
}

VarId FnLowerer::literal(SyntaxNode N) {
  // A list, tuple or set literal: a fresh container holding its elements
  // (a list's and a tuple's at their constant index).
  bool Indexed = kindOf(N) != L.Set;
  VarId C = temp();
  engine::Inst &A = emit(Op::Alloc, N);
  A.Dst = C;
  A.Alloc = engine::AllocKind::Container;
  unsigned Index = 0;
  bool Splatted = false;
  eachChild(N, true, [&](SyntaxNode X, TSFieldId) {
    TSSymbol K = kindOf(X);
    if (K == G.Comment)
      return;
    VarId V;
    if (K == G.ListSplat) {
      VarId From = expr(firstChildOf(X));
      V = temp();
      engine::Inst &R = emit(Op::Read, X);
      R.Dst = V;
      R.P.Kind = PlaceRef::Element;
      R.P.Base = From;
      R.P.Spelling = key(firstChildOf(X));
      Splatted = true; // the indices after it are not known
    } else {
      V = expr(X);
    }
    engine::Inst &S = emit(Op::Store, X);
    S.A = V;
    S.P.Kind = PlaceRef::Element;
    S.P.Base = C;
    if (Indexed && !Splatted && K != G.ListSplat)
      S.P.Key = std::to_string(Index);
    ++Index;
    llvm::SmallVector<engine::ClassId, 1> Cls = info(V).Cls;
    for (engine::ClassId K2 : Cls)
      addUnique(info(C).Elem, K2);
    std::vector<FnRef> Fns = info(V).Fns; // info() may grow the table
    for (FnRef &R : Fns)
      addCallable(info(C).ElemFns, std::move(R));
    if (Indexed && K != G.ListSplat)
      info(C).LiteralElems.push_back(V);
  });
  return C;
}

VarId FnLowerer::dictionary(SyntaxNode N) {
  VarId C = temp();
  engine::Inst &A = emit(Op::Alloc, N);
  A.Dst = C;
  A.Alloc = engine::AllocKind::Container;
  eachChild(N, true, [&](SyntaxNode X, TSFieldId) {
    TSSymbol K = kindOf(X);
    std::string Key;
    VarId V;
    SyntaxNode At = X;
    if (K == G.Pair) {
      SyntaxNode KN = fieldOf(X, G.FKey);
      Key = constKey(KN);
      if (Key.empty())
        expr(KN);
      At = fieldOf(X, G.FValue);
      V = expr(At);
    } else if (K == G.DictSplat) {
      VarId From = expr(firstChildOf(X));
      V = temp();
      engine::Inst &R = emit(Op::Read, X);
      R.Dst = V;
      R.P.Kind = PlaceRef::Element;
      R.P.Base = From;
      R.P.Spelling = key(firstChildOf(X));
    } else {
      return;
    }
    engine::Inst &S = emit(Op::Store, At);
    S.A = V;
    S.P.Kind = PlaceRef::Element;
    S.P.Base = C;
    S.P.Key = Key;
    llvm::SmallVector<engine::ClassId, 1> Cls = info(V).Cls;
    for (engine::ClassId K2 : Cls)
      addUnique(info(C).Elem, K2);
  });
  return C;
}

VarId FnLowerer::comprehension(SyntaxNode N) {
  // A loop that fills a fresh container; its variables are its own.
  VarId C = temp();
  engine::Inst &A = emit(Op::Alloc, N);
  A.Dst = C;
  A.Alloc = engine::AllocKind::Container;
  std::vector<SyntaxNode> Clauses;
  eachChild(N, true, [&](SyntaxNode X, TSFieldId) {
    if (kindOf(X) == G.ForIn || kindOf(X) == G.IfClause)
      Clauses.push_back(X);
  });
  // Shadow the names its targets bind, restored after.
  std::vector<std::pair<std::string, VarId>> Saved;
  std::vector<std::string> NewScoped;
  std::unordered_set<std::string> Before;
  std::swap(Before, LocalNames);
  for (SyntaxNode X : Clauses)
    if (kindOf(X) == G.ForIn)
      collectTargets(fieldOf(X, G.FLeft));
  std::swap(Before, LocalNames); // Before: the names the targets bind
  uint32_t Head = B.block(), Body = B.block(), Exit = B.block();
  bool First = true;
  VarId FirstIter = engine::NoVar;
  for (SyntaxNode X : Clauses) // the first iterable is read outside its scope
    if (kindOf(X) == G.ForIn && First) {
      FirstIter = expr(fieldOf(X, G.FRight));
      First = false;
    }
  for (const std::string &Nm : Before) {
    auto It = Locals.find(Nm);
    Saved.emplace_back(Nm, It == Locals.end() ? engine::NoVar : It->second);
    if (It != Locals.end())
      Locals.erase(It);
    if (Scoped.insert(Nm).second)
      NewScoped.push_back(Nm);
  }
  B.jump(Head);
  B.setBlock(Head);
  B.branch(constant(N), Body, Exit, loc(N));
  B.setBlock(Body);
  First = true;
  for (SyntaxNode X : Clauses) {
    if (kindOf(X) == G.ForIn) {
      VarId It = First ? FirstIter : expr(fieldOf(X, G.FRight));
      First = false;
      SyntaxNode T = fieldOf(X, G.FLeft);
      bindElement(T, It, T);
    } else {
      uint32_t Pass = B.block();
      cond(firstChildOf(X), Pass, Head);
      B.setBlock(Pass);
    }
  }
  SyntaxNode BodyN = fieldOf(N, G.FBody);
  std::string Key;
  VarId V;
  SyntaxNode At = BodyN;
  if (kindOf(N) == G.DictComp && kindOf(BodyN) == G.Pair) {
    SyntaxNode KN = fieldOf(BodyN, G.FKey);
    Key = constKey(KN);
    if (Key.empty())
      expr(KN);
    At = fieldOf(BodyN, G.FValue);
    V = expr(At);
  } else {
    V = expr(BodyN);
  }
  engine::Inst &S = emit(Op::Store, At);
  S.A = V;
  S.P.Kind = PlaceRef::Element;
  S.P.Base = C;
  S.P.Key = Key;
  S.P.Spelling = key(N);
  llvm::SmallVector<engine::ClassId, 1> Cls = info(V).Cls;
  for (engine::ClassId K2 : Cls)
    addUnique(info(C).Elem, K2);
  B.jump(Head);
  B.setBlock(Exit);
  for (auto &[Nm, Old] : Saved) {
    Locals.erase(Nm);
    if (Old != engine::NoVar)
      Locals.emplace(Nm, Old);
  }
  for (const std::string &Nm : NewScoped)
    Scoped.erase(Nm);
  return C;
}

VarId FnLowerer::conditional(SyntaxNode N) {
  std::vector<SyntaxNode> Parts;
  eachChild(N, true, [&](SyntaxNode C, TSFieldId) {
    if (kindOf(C) != G.Comment)
      Parts.push_back(C);
  });
  if (Parts.size() != 3) {
    for (SyntaxNode X : Parts)
      expr(X);
    return constant(N);
  }
  VarId R = temp();
  uint32_t T = B.block(), F = B.block(), J = B.block();
  cond(Parts[1], T, F);
  B.setBlock(T);
  VarId A = expr(Parts[0]);
  copyTo(R, A, Parts[0]);
  B.jump(J);
  B.setBlock(F);
  VarId Bv = expr(Parts[2]);
  copyTo(R, Bv, Parts[2]);
  B.jump(J);
  B.setBlock(J);
  return R;
}
