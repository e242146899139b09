//===- LowerAssign.cpp - Bindings: names, attributes, slots, patterns -----===//
#include "LowerImpl.h"

using namespace tether;
using namespace tether::python;
using engine::Op;
using engine::PlaceRef;
using engine::VarId;

void FnLowerer::bindName(const std::string &Name, VarId V, SyntaxNode At) {
  if (isLocalName(Name) || (!FnIsModule && !GlobalDecl.count(Name))) {
    VarId X = local(Name);
    LocalNames.insert(Name);
    if (X != V)
      copyTo(X, V, At);
    markWorkspace(V, Name);
    // The local now names the memory V's allocation made (or none).
    if (auto It = LastAlloc.find(V); It != LastAlloc.end())
      LastAlloc[X] = It->second;
    else
      LastAlloc.erase(X);
    return;
  }
  engine::Inst &I = emit(Op::Store, At);
  I.A = V;
  I.P.Kind = PlaceRef::Global;
  I.P.Name = M.Name + "." + Name;
  I.P.Spelling = Name;
  markWorkspace(V, Name);
  if (FnIsModule) {
    auto [It, New] = GlobalVals.emplace(Name, V);
    if (!New) {
      VarId Acc = It->second;
      if (Acc != V) { // several stores: a variable that unites them
        VarId U = temp();
        merge(U, Acc);
        merge(U, V);
        It->second = U;
      }
    }
  }
}

void FnLowerer::assign(SyntaxNode Target, VarId V) {
  Target = stripParens(Target);
  TSSymbol K = kindOf(Target);
  if (K == G.Identifier) {
    bindName(text(Target), V, Target);
    return;
  }
  if (K == G.Attribute) {
    SyntaxNode Obj = fieldOf(Target, G.FObject);
    std::string Attr = text(fieldOf(Target, G.FAttribute));
    // `t.data = v` gives the tensor t names v's storage: everything that
    // holds t now holds what v is (a weak alias makes every holder of t
    // weak, and t's own storage loses this holder). Lowered as a rebinding
    // of t, of a name or of the place t is read from. An in-tree object's
    // `data` attribute is a field like any other.
    if (Attr == "data" && !isSelf(Obj)) {
      SyntaxNode O = stripParens(Obj);
      TSSymbol OK = kindOf(O);
      bool Object = OK == G.Identifier && isLocalName(text(O)) &&
                    !info(local(text(O))).Cls.empty();
      if (!Object && (OK == G.Identifier || OK == G.Attribute ||
                      OK == G.Subscript)) {
        assign(O, V);
        return;
      }
    }
    std::string D = dottedName(Target, Src);
    engine::Inst *I = nullptr;
    if (!D.empty()) {
      std::string Head = D.substr(0, D.find('.'));
      if (!isLocalName(Head) && !isSelf(Obj) && !GlobalDecl.count(Head)) {
        Resolved R = resolve(D);
        std::string Owner = D.substr(0, D.rfind('.'));
        Resolved::KindT OK = resolve(Owner).Kind;
        if (R.Kind == Resolved::Global || OK == Resolved::Class ||
            OK == Resolved::Module) {
          I = &emit(Op::Store, Target); // mod.G = v, Cls.attr = v
          I->P.Kind = PlaceRef::Global;
          I->P.Name = R.Qual;
        }
      }
    }
    if (!I) {
      VarId Base = expr(Obj);
      I = &emit(Op::Store, Target);
      I->P.Kind = PlaceRef::Field;
      I->P.Base = Base;
      I->P.Name = Attr;
    }
    I->A = V;
    I->P.Spelling = key(Target);
    markWorkspace(V, Attr);
    return;
  }
  if (K == G.Subscript) {
    SyntaxNode BaseN = fieldOf(Target, G.FValue);
    VarId Base = expr(BaseN);
    std::string Key;
    unsigned Subs = 0;
    bool PerLayer = false;
    eachChild(Target, true, [&](SyntaxNode C, TSFieldId F) {
      if (F != G.FSubscript)
        return;
      ++Subs;
      PerLayer |= namesLayer(C);
      Key = constKey(C);
      if (Key.empty())
        expr(C);
    });
    if (Subs != 1)
      Key.clear();
    engine::Inst &I = emit(Op::Store, Target);
    I.A = V;
    I.P.Kind = PlaceRef::Element;
    I.P.Base = Base;
    I.P.Key = Key;
    I.P.KeyPerLayer = PerLayer;
    I.P.Spelling = key(Target);
    std::string D = dottedName(BaseN, Src);
    markWorkspace(V, D.empty() ? key(BaseN) : D);
    if (Subs == 1)
      keyCarriesSize(V, Target);
    return;
  }
  if (K == G.PatternList || K == G.TuplePattern || K == G.ListPattern ||
      K == G.Tuple || K == G.List || K == G.ExpressionList) {
    // a, b = v: each target an element of v.
    std::string Spelling = key(Target);
    unsigned Index = 0;
    bool Splatted = false;
    eachChild(Target, true, [&](SyntaxNode C, TSFieldId) {
      TSSymbol CK = kindOf(C);
      if (CK == G.Comment)
        return;
      bool Splat = CK == G.ListSplatPattern || CK == G.ListSplat;
      Splatted |= Splat;
      VarId E = temp();
      engine::Inst &R = emit(Op::Read, C);
      R.Dst = E;
      R.P.Kind = PlaceRef::Element;
      R.P.Base = V;
      if (!Splatted)
        R.P.Key = std::to_string(Index);
      R.P.Spelling = Spelling;
      ++Index;
      llvm::SmallVector<engine::ClassId, 1> Elem = info(V).Elem;
      for (engine::ClassId X : Elem)
        addUnique(info(E).Cls, X);
      assign(Splat ? firstChildOf(C) : C, E);
    });
    return;
  }
  if (K == G.ListSplatPattern || K == G.ListSplat)
    assign(firstChildOf(Target), V);
  // Anything else cannot be assigned to (a syntax error CPython reports).
}

void FnLowerer::bindElement(SyntaxNode Target, VarId Iter, SyntaxNode At) {
  const VarInfo &I = info(Iter);
  VarId From = I.View != VarInfo::NoView ? I.ViewOf : Iter;
  VarInfo::ViewT View = I.View;
  SyntaxNode T = stripParens(Target);
  TSSymbol K = kindOf(T);
  bool Pair = K == G.PatternList || K == G.TuplePattern || K == G.Tuple ||
              K == G.ListPattern;
  auto Element = [&](SyntaxNode Where) {
    VarId E = temp();
    engine::Inst &R = emit(Op::Read, Where);
    R.Dst = E;
    R.P.Kind = PlaceRef::Element;
    R.P.Base = From;
    R.P.EverySlot = true;
    R.P.Spelling =
        From == engine::NoVar ? engine::Symbol() : Out.VarNames[From];
    llvm::SmallVector<engine::ClassId, 1> Elem = info(From).Elem;
    for (engine::ClassId X : Elem)
      addUnique(info(E).Cls, X);
    // Iterating a tuple of functions binds each in turn: a call of the
    // element may be a call of any of them.
    std::vector<FnRef> Fns = info(From).ElemFns;
    for (FnRef &R : Fns)
      addCallable(info(E).Fns, std::move(R));
    return E;
  };
  if (View == VarInfo::Keys) {
    assign(Target, constant(At));
    return;
  }
  if ((View == VarInfo::Items || View == VarInfo::Enumerate) && Pair) {
    // for k, v in d.items() / for i, x in enumerate(xs)
    std::vector<SyntaxNode> Parts;
    eachChild(T, true, [&](SyntaxNode C, TSFieldId) {
      if (kindOf(C) != G.Comment)
        Parts.push_back(C);
    });
    for (size_t J = 0; J < Parts.size(); ++J)
      assign(Parts[J], J == 1 ? Element(Parts[J]) : constant(Parts[J]));
    return;
  }
  assign(Target, Element(At));
}

void FnLowerer::keyCarriesSize(VarId V, SyntaxNode Subscript) {
  auto It = LastAlloc.find(V);
  if (It == LastAlloc.end()) {
    // `cache[n] = helper(ws)`: the helper may hand ws back (a conversion
    // that keeps it, an identity on tensors); ws's size is then the key's
    // as if ws were stored.
    auto Args = InTreeCallArgs.find(V);
    if (Args != InTreeCallArgs.end())
      for (VarId A : Args->second)
        if (LastAlloc.count(A))
          keyCarriesSize(A, Subscript);
    return;
  }
  auto Sz = AllocSizing.find(It->second);
  if (Sz == AllocSizing.end() || Sz->second.BySelf)
    return;
  std::set<std::string> KeyNames;
  eachChild(Subscript, true, [&](SyntaxNode C, TSFieldId F) {
    if (F != G.FSubscript)
      return;
    preorder(C, [&](SyntaxNode X) {
      if (kindOf(X) == G.Identifier)
        KeyNames.insert(text(X));
      return true;
    });
  });
  for (const std::string &P : Sz->second.Params)
    if (!KeyNames.count(P))
      return;
  auto &Insts = Out.Blocks[It->second.first].Insts;
  if (It->second.second < Insts.size())
    Insts[It->second.second].SizedByCaller = false;
}
