//===- LowerContainer.cpp - Methods of containers as element places -------===//
//
// On a receiver of no known class, `get`, `setdefault`, `pop`, `append`,
// `update`, `clear`, ... read, store and clear the receiver's elements
// (docs/engine.md: container methods are places); `items()`, `values()`,
// `keys()` are views loops read the elements through.
//
//===----------------------------------------------------------------------===//
#include "LowerImpl.h"

using namespace tether;
using namespace tether::python;
using engine::Op;
using engine::PlaceRef;
using engine::VarId;

bool FnLowerer::containerMethod(const std::string &Method, VarId Recv,
                                SyntaxNode RecvNode, std::vector<CallArg> &As,
                                SyntaxNode N, VarId &Result) {
  std::string RecvSpell = key(RecvNode);
  auto KeyOf = [&](size_t I) {
    if (I >= As.size() || As[I].Splat || !As[I].Keyword.empty())
      return std::string();
    return constKey(As[I].Value);
  };
  auto Place = [&](engine::Inst &I, const std::string &Key) {
    I.P.Kind = PlaceRef::Element;
    I.P.Base = Recv;
    I.P.Key = Key;
    I.P.KeyPerLayer = firstPlain(As) && namesLayer(As[0].Value);
    I.P.Spelling = RecvSpell + "[" + (Key.empty() ? (As.empty() ? "" : key(As[0].Value)) : Key) + "]";
  };
  auto Read = [&](const std::string &Key, bool MayBeAbsent) {
    VarId T = temp();
    engine::Inst &I = emit(Op::Read, N);
    I.Dst = T;
    I.MayBeAbsent = MayBeAbsent;
    Place(I, Key);
    llvm::SmallVector<engine::ClassId, 1> Elem = info(Recv).Elem;
    for (engine::ClassId C : Elem)
      addUnique(info(T).Cls, C);
    return T;
  };
  auto Store = [&](const std::string &Key, VarId V) -> engine::Inst & {
    engine::Inst &I = emit(Op::Store, N);
    I.A = V;
    Place(I, Key);
    return I;
  };
  auto Clear = [&](const std::string &Key) {
    engine::Inst &I = emit(Op::Clear, N);
    Place(I, Key);
  };
  std::string K0 = KeyOf(0);
  lowerArgs(As);
  if (Method == "get" || Method == "__getitem__") {
    Result = Read(K0, Method == "get");
  } else if (Method == "setdefault") {
    // Stores only into an absent key (`if k not in d: d[k] = v`), then
    // reads d[k]: a fill of a slot that is empty, never a replacement of
    // what it holds.
    if (As.size() >= 2)
      Store(K0, As[1].V).IfAbsent = true;
    Result = Read(K0, As.size() < 2);
  } else if (Method == "pop" || Method == "popitem") {
    Result = Read(Method == "pop" ? K0 : std::string(), true);
    Clear(Method == "pop" ? K0 : std::string());
  } else if (Method == "__setitem__") {
    if (As.size() >= 2)
      Store(K0, As[1].V);
    Result = constant(N);
  } else if (Method == "append" || Method == "add" || Method == "insert") {
    size_t VI = Method == "insert" ? 1 : 0;
    if (VI < As.size())
      Store(std::string(), As[VI].V);
    Result = constant(N);
  } else if (Method == "extend" || Method == "update") {
    for (const CallArg &A : As) {
      VarId V = A.V;
      if (A.Keyword.empty()) { // the elements of what is added
        V = temp();
        engine::Inst &R = emit(Op::Read, A.Whole);
        R.Dst = V;
        R.P.Kind = PlaceRef::Element;
        R.P.Base = A.V;
        R.P.Spelling = key(A.Value);
      }
      Store(A.Keyword.empty() ? std::string() : "'" + A.Keyword + "'", V);
    }
    Result = constant(N);
  } else if (Method == "clear" || Method == "remove" || Method == "discard") {
    Clear(std::string());
    Result = constant(N);
  } else if (Method == "items" || Method == "values" || Method == "keys") {
    Result = temp();
    copyTo(Result, Recv, N);
    VarInfo &I = info(Result);
    I.View = Method == "items" ? VarInfo::Items
                               : (Method == "values" ? VarInfo::Values : VarInfo::Keys);
    I.ViewOf = Recv;
  } else if (Method == "copy") {
    Result = temp();
    engine::Inst &A = emit(Op::Alloc, N);
    A.Dst = Result;
    A.Alloc = engine::AllocKind::Container;
    VarId E = Read(std::string(), false);
    engine::Inst &S = emit(Op::Store, N);
    S.A = E;
    S.P.Kind = PlaceRef::Element;
    S.P.Base = Result;
    S.P.Spelling = key(N);
  } else {
    return false;
  }
  return true;
}
