//===- LowerCall.cpp - Calls: resolution, catalog meaning, arguments ------===//
//
// A call is, in this order: a capture predicate, a weak-ref primitive, a
// from_blob, a region begin/end, functools.partial or a container maker of
// the standard library; else a call of the in-tree functions its callee is
// known to hold (with each argument mapped to its parameter); else a
// container method on a receiver of no known class; else a call of code
// outside the program (a Use of each argument and a tensor for its result),
// or, for a method of a receiver whose class is not known, a call with no
// target (its arguments escape). No callee is guessed by method name.
//
//===----------------------------------------------------------------------===//
#include "LowerImpl.h"
#include "common/Allocators.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tether;
using namespace tether::python;
using engine::Op;
using engine::PlaceRef;
using engine::VarId;

namespace {

/// Builtins whose result holds no memory of the arguments (len(x)).
bool isNonOpBuiltin(llvm::StringRef N) {
  return llvm::StringSwitch<bool>(N)
      .Cases({"len", "isinstance", "issubclass", "print", "hasattr", "id",
              "type", "str", "int", "float", "bool", "repr", "range", "hash",
              "format", "callable", "abs", "round", "divmod", "delattr",
              "vars", "min", "max", "sum", "any", "all", "ord", "chr"},
             true)
      .Default(false);
}

/// Builtins whose result holds the argument's elements.
bool isElementCopy(llvm::StringRef N) {
  return N == "list" || N == "tuple" || N == "sorted" || N == "reversed" ||
         N == "set" || N == "iter" || N == "frozenset";
}

bool isContainerMaker(llvm::StringRef Q) {
  return Q == "dict" || Q == "collections.OrderedDict" ||
         Q == "collections.deque" || Q == "list" || Q == "set" || Q == "tuple";
}

bool isAllocation(llvm::StringRef Last) {
  return llvm::StringSwitch<bool>(Last)
      .Cases({"empty", "zeros", "ones", "full", "empty_strided", "new_empty",
              "new_zeros", "new_ones", "new_full"},
             true)
      .Default(false);
}

bool isContainerMethod(llvm::StringRef N) {
  return llvm::StringSwitch<bool>(N)
      .Cases({"append", "extend", "insert", "add", "get", "setdefault", "pop",
              "popitem", "update", "items", "keys", "values", "clear",
              "remove", "discard", "copy", "__getitem__", "__setitem__"},
             true)
      .Default(false);
}

/// torch's in-place tensor methods (a trailing underscore), but those that
/// change only the handle's flags.
bool isInPlaceOp(llvm::StringRef N) {
  return N.size() > 1 && N.ends_with("_") && !N.starts_with("_") &&
         N != "requires_grad_" && N != "share_memory_";
}

/// Tensor methods that read metadata only (no memory, no escape).
bool isMetadataMethod(llvm::StringRef N) {
  return llvm::StringSwitch<bool>(N)
      .Cases({"numel", "size", "dim", "data_ptr", "stride", "element_size",
              "nelement", "is_contiguous", "storage_offset", "get_device",
              "item", "tolist", "untyped_storage"},
             true)
      .Default(false);
}

/// torch_npu's task group calls (not in the catalog: a task group only
/// names the tasks of a capture, which the capture's own region covers).
bool taskRegion(llvm::StringRef Last, engine::RegionKind &K, bool &Begin) {
  if (Last == "graph_task_group_begin" || Last == "graph_task_group_end") {
    K = engine::RegionKind::TaskGroup;
    Begin = Last.ends_with("begin");
    return true;
  }
  return false;
}

} // namespace

std::vector<CallArg> FnLowerer::callArgs(SyntaxNode Args) {
  std::vector<CallArg> As;
  if (isNull(Args))
    return As;
  if (kindOf(Args) == G.GeneratorExpr) { // f(x for x in y)
    CallArg A;
    A.Whole = A.Value = Args;
    As.push_back(A);
    return As;
  }
  eachChild(Args, true, [&](SyntaxNode C, TSFieldId) {
    TSSymbol K = kindOf(C);
    if (K == G.Comment)
      return;
    CallArg A;
    A.Whole = A.Value = C;
    if (K == G.KeywordArgument) {
      A.Keyword = text(fieldOf(C, G.FName));
      A.Value = fieldOf(C, G.FValue);
    } else if (K == G.ListSplat || K == G.DictSplat) {
      A.Splat = true;
      A.Value = firstChildOf(C);
    }
    As.push_back(std::move(A));
  });
  return As;
}

void FnLowerer::lowerArgs(std::vector<CallArg> &As) {
  for (CallArg &A : As)
    if (A.V == engine::NoVar)
      A.V = expr(A.Value);
}

VarId FnLowerer::call(SyntaxNode N) {
  // f()()...(): each link's callee is the link before it, lowered
  // innermost first in a loop (chains of thousands of links).
  std::vector<SyntaxNode> Chain{N};
  for (SyntaxNode F = stripParens(fieldOf(N, G.FFunction)); kindOf(F) == G.Call;
       F = stripParens(fieldOf(F, G.FFunction)))
    Chain.push_back(F);
  VarId R = engine::NoVar;
  for (size_t I = Chain.size(); I-- > 0;)
    R = callOne(Chain[I], I + 1 < Chain.size() ? R : engine::NoVar);
  return R;
}

VarId FnLowerer::callOne(SyntaxNode N, VarId CalleeV) {
  return callWith(N, fieldOf(N, G.FFunction),
                  callArgs(fieldOf(N, G.FArguments)), CalleeV);
}

/// torch's pytree mappers: tree_map(f, tree, *more) and
/// tree_map_only(types, f, tree, *more) (and their in-place `_` forms)
/// apply f to every leaf. Returns the index of f among the positional
/// arguments, or -1 when Qual is no mapper.
static int treeMapperFunctionArg(llvm::StringRef Qual) {
  for (llvm::StringRef Lib : {"torch.utils._pytree.", "optree."}) {
    if (!Qual.starts_with(Lib))
      continue;
    llvm::StringRef Name = Qual.drop_front(Lib.size());
    if (Name == "tree_map" || Name == "tree_map_")
      return 0;
    if (Name == "tree_map_only" || Name == "tree_map_only_")
      return 1;
  }
  return -1;
}

VarId FnLowerer::callWith(SyntaxNode N, SyntaxNode F, std::vector<CallArg> As,
                          VarId CalleeV) {
  std::string D = CalleeV == engine::NoVar ? dottedName(F, Src) : std::string();
  std::string Spelled = D.empty() ? key(F) : D;
  std::string Qual = D, Method;
  std::vector<FnRef> Refs;
  llvm::SmallVector<engine::ClassId, 1> Ctors;
  VarId Recv = engine::NoVar;
  SyntaxNode RecvNode{};
  bool External = false; // a name outside the program (torch.relu)

  // getattr(x, "a") / setattr(x, "a", v): the attribute itself.
  if (CalleeV == engine::NoVar && kindOf(F) == G.Identifier &&
      !isLocalName(text(F))) {
    std::string FName = text(F);
    SyntaxNode Obj{};
    std::string Attr = FName == "getattr" ? getattrName(N, Src, &Obj) : "";
    if (!Attr.empty()) {
      VarId Base = expr(Obj);
      std::string Full = D.empty() ? Attr : dottedName(N, Src);
      VarId T;
      if (Cat.CapturePredicates.matches(Full.empty() ? Attr : Full)) {
        test(engine::TestKind::CapturePredicate, Base, N, T, Attr);
        return T;
      }
      T = temp();
      engine::Inst &I = emit(Op::Read, N);
      I.Dst = T;
      I.P.Kind = PlaceRef::Field;
      I.P.Base = Base;
      I.P.Name = Attr;
      I.P.Spelling = key(N);
      return T;
    }
    // getattr(holder, "ws_%d" % n): one of the places a setattr of a
    // computed name stores into.
    if (FName == "getattr" && Attr.empty() && positionalOnly(As, 2)) {
      VarId Base = expr(As[0].Value);
      expr(As[1].Value);
      VarId T = temp();
      engine::Inst &I = emit(Op::Read, N);
      I.Dst = T;
      I.P.Kind = PlaceRef::Element;
      I.P.Base = Base;
      I.P.Spelling = key(As[0].Value);
      return T;
    }
    // bool(x) of a truth value is that truth: a capture predicate stays one
    // (`capturing = bool(get_forward_context().capturing)`). Of anything
    // else it is a new value holding nothing, as other builtins' results.
    if (FName == "bool" && positionalOnly(As, 1)) {
      VarId V = expr(As[0].Value);
      if (info(V).Truth)
        return V;
      return constant(N);
    }
    if (FName == "setattr" && As.size() == 3 && !As[0].Splat &&
        kindOf(As[1].Value) == G.String && constKey(As[1].Value).size() > 2) {
      VarId Base = expr(As[0].Value);
      VarId V = expr(As[2].Value);
      std::string A = constKey(As[1].Value);
      engine::Inst &I = emit(Op::Store, N);
      I.A = V;
      I.P.Kind = PlaceRef::Field;
      I.P.Base = Base;
      I.P.Name = A.substr(1, A.size() - 2);
      I.P.Spelling = key(As[0].Value) + "." + I.P.Name;
      return constant(N);
    }
    // setattr(holder, "ws_%d" % n, ws): an attribute of a name computed at
    // run time, one of the object's places; the object holds the value
    // (a keep-alive until after the capture) as its slots hold theirs.
    if (FName == "setattr" && positionalOnly(As, 3)) {
      VarId Base = expr(As[0].Value);
      expr(As[1].Value);
      VarId V = expr(As[2].Value);
      engine::Inst &I = emit(Op::Store, N);
      I.A = V;
      I.P.Kind = PlaceRef::Element;
      I.P.Base = Base;
      I.P.Spelling = key(As[0].Value);
      return constant(N);
    }
  }

  // What the callee stands for.
  auto Take = [&](VarId V) {
    Refs = info(V).Fns;
    Ctors = info(V).ClassObj;
  };
  auto TakeResolved = [&](const Resolved &R) {
    Qual = R.Qual;
    if (R.Kind == Resolved::Function) {
      FnRef Ref;
      Ref.Fn = R.Index;
      Ref.SkipFirst = Types.isClassMethod(R.Index);
      Refs.push_back(Ref);
    } else if (R.Kind == Resolved::Class) {
      Ctors.push_back(R.Index);
    } else if (R.Kind == Resolved::Global) {
      Take(globalRead(R.Qual, F));
    } else {
      External = R.Kind == Resolved::External;
    }
  };
  if (CalleeV != engine::NoVar) {
    Take(CalleeV);
  } else if (kindOf(F) == G.Attribute) {
    RecvNode = fieldOf(F, G.FObject);
    Method = text(fieldOf(F, G.FAttribute));
    SyntaxNode RS = stripParens(RecvNode);
    std::string Head = D.substr(0, D.find('.'));
    if (kindOf(RS) == G.Call && dottedName(fieldOf(RS, G.FFunction), Src) == "super") {
      int Mth = Fn.Class >= 0 ? P.findMethod(Fn.Class, Method, /*SkipSelf=*/true) : -1;
      if (Mth >= 0) {
        FnRef Ref;
        Ref.Fn = Mth;
        if (P.Functions[Mth].BoundMethod)
          Ref.Self = SelfVar;
        Refs.push_back(Ref);
      } else {
        External = true; // a base outside the program (nn.Module)
      }
    } else if (!D.empty() && !isLocalName(Head) && !isSelf(RecvNode) &&
               !GlobalDecl.count(Head) && !throughGlobal(D)) {
      TakeResolved(resolve(D));
    } else {
      Recv = expr(RecvNode);
      for (FnRef &Ref : methodsOf(Recv, Method.c_str()))
        Refs.push_back(std::move(Ref));
      // Cls.method(...) through a variable holding the class.
      for (engine::ClassId C : info(Recv).ClassObj) {
        int Mth = P.findMethod(C, Method);
        if (Mth >= 0) {
          FnRef Ref;
          Ref.Fn = Mth;
          Ref.SkipFirst = Types.isClassMethod(Mth);
          Refs.push_back(Ref);
        }
      }
    }
  } else if (kindOf(F) == G.Identifier) {
    std::string Nm = text(F);
    if (isLocalName(Nm) || GlobalDecl.count(Nm)) {
      Take(name(F));
    } else if (!FnIsModule && !LocalImports.count(Nm) && Fn.Nested.count(Nm)) {
      FnRef Ref;
      Ref.Fn = Fn.Nested.at(Nm);
      Refs.push_back(Ref);
    } else {
      TakeResolved(resolve(Nm));
    }
  } else {
    CalleeV = expr(F);
    Take(CalleeV);
  }

  llvm::StringRef Last = llvm::StringRef(Qual).rsplit('.').second;
  if (Last.empty())
    Last = Qual;

  // isinstance(x, torch.Tensor) / torch.is_tensor(x): on each branch the
  // engine knows whether x is a tensor (a conversion helper hands lists and
  // scalars back unchanged on the other one).
  if (Refs.empty() && Ctors.empty() && !D.empty() &&
      (Qual == "isinstance" || Qual == "torch.is_tensor")) {
    size_t Want = Qual == "isinstance" ? 2 : 1;
    bool Plain = positionalOnly(As, Want);
    if (Plain && Want == 2) {
      std::string Cls = dottedName(stripParens(As[1].Value), Src);
      Plain = !Cls.empty() && !isLocalName(Cls.substr(0, Cls.find('.'))) &&
              resolve(Cls).Qual == "torch.Tensor";
    }
    if (Plain) {
      VarId T;
      test(engine::TestKind::IsTensor, expr(As[0].Value), N, T);
      return T;
    }
  }

  // A catalog name, by its spelling or as the package's own function (the
  // catalog's word wins over the body: Megatron-LM defines its own).
  auto Cataloged = [&](const NameSet &Names) {
    return !D.empty() &&
           (Names.matches(Qual) ||
            (Refs.size() == 1 && Names.matches(P.Functions[Refs[0].Fn].QualName)));
  };
  // tree_map(f, tree): for a leaf, f(tree); for a container, a container of
  // f's results, which is what f(tree) is where f is a conversion that maps
  // containers (weak_ref_tensors) and is f's own reading of a container
  // otherwise. Lowered as that call, at the mapper's position (Megatron-LM
  // weakens every graph output with tree_map(make_weakref, out)).
  if (int FnAt = Refs.empty() && Ctors.empty() ? treeMapperFunctionArg(Qual) : -1;
      FnAt >= 0) {
    std::vector<CallArg> Positional;
    bool Plain = true;
    for (const CallArg &A : As) {
      if (A.Splat)
        Plain = false;
      else if (A.Keyword.empty())
        Positional.push_back(A);
    }
    if (Plain && int(Positional.size()) > FnAt + 1) {
      SyntaxNode Mapped = stripParens(Positional[FnAt].Value);
      std::vector<CallArg> Trees(Positional.begin() + FnAt + 1,
                                 Positional.end());
      // The type filter of tree_map_only is read for its effects only.
      for (int I = 0; I < FnAt; ++I)
        expr(Positional[I].Value);
      return callWith(N, Mapped, std::move(Trees), engine::NoVar);
    }
  }
  // Capture predicates: torch.npu.is_current_stream_capturing(); session
  // predicates: is_graph_capturing().
  bool SessionTest = Cataloged(Cat.SessionPredicates);
  if (SessionTest || Cataloged(Cat.CapturePredicates)) {
    lowerArgs(As);
    VarId T;
    test(SessionTest ? engine::TestKind::SessionPredicate
                     : engine::TestKind::CapturePredicate,
         Recv, N, T, Spelled);
    return T;
  }
  // Stream ordering (`side.wait_stream(main)`, an event's wait/record):
  // the call itself still runs as whatever it is below.
  if (!D.empty() && Refs.empty() &&
      (Cat.StreamSyncs.matches(Qual) || Cat.StreamSyncs.matches(Last)))
    emit(Op::Sync, N);
  // Weak-ref primitives, also when the package defines them itself under
  // the catalog's qualified name; a bare catalog name ("weak_ref_tensor",
  // the kernel in any namespace) is not a package function of that name,
  // whose body is read instead (dlinfer's returns a strong copy).
  bool WeakPrimitive =
      Refs.empty() ? Cataloged(Cat.WeakRefFunctions)
                   : !D.empty() && (Cat.WeakRefFunctions.matchesScoped(Qual) ||
                                    (Refs.size() == 1 &&
                                     Cat.WeakRefFunctions.matchesScoped(
                                         P.Functions[Refs[0].Fn].QualName)));
  if (WeakPrimitive)
    return weakRef(As, N, Spelled);
  // from_blob without a deleter aliases the memory behind its pointer.
  if (!D.empty() && Cat.BlobFunctions.matches(Qual)) {
    bool Deleter = false;
    for (const CallArg &A : As)
      Deleter |= A.Keyword == "deleter";
    CallArg *First = nullptr;
    for (CallArg &A : As)
      if (A.Keyword.empty() && !A.Splat && !First)
        First = &A;
    if (!Deleter && First) {
      SyntaxNode Ptr = stripParens(First->Value);
      // from_blob(t.data_ptr(), ...): t's memory.
      if (kindOf(Ptr) == G.Call && kindOf(fieldOf(Ptr, G.FFunction)) == G.Attribute &&
          textOf(fieldOf(fieldOf(Ptr, G.FFunction), G.FAttribute), Src) == "data_ptr")
        First->V = expr(fieldOf(fieldOf(Ptr, G.FFunction), G.FObject));
      lowerArgs(As);
      VarId W = temp();
      engine::Inst &I = emit(Op::WeakRef, N);
      I.Dst = W;
      I.A = First->V;
      I.Weak = engine::WeakKind::FromBlob;
      I.Name = Spelled;
      return W;
    }
  }
  // Region begin/end calls: capture_begin()/capture_end(), task groups.
  {
    engine::RegionKind RK = engine::RegionKind::Capture;
    bool Begin = false, Region = false;
    if (!D.empty() && (Cat.CaptureBegins.matches(Qual) || Cat.CaptureBegins.matches(D)))
      Region = Begin = true;
    else if (!D.empty() && (Cat.CaptureEnds.matches(Qual) || Cat.CaptureEnds.matches(D)))
      Region = true;
    else if (!D.empty() && (Cat.TaskUpdateBegins.matches(Qual) ||
                            Cat.TaskUpdateBegins.matches(D)))
      Region = Begin = true, RK = engine::RegionKind::TaskUpdate;
    else if (!D.empty() && (Cat.TaskUpdateEnds.matches(Qual) ||
                            Cat.TaskUpdateEnds.matches(D)))
      Region = true, RK = engine::RegionKind::TaskUpdate;
    else if (Cataloged(Cat.SessionBegins))
      Region = Begin = true, RK = engine::RegionKind::CaptureSession;
    else if (Cataloged(Cat.SessionEnds))
      Region = true, RK = engine::RegionKind::CaptureSession;
    else if (!D.empty())
      Region = taskRegion(Last, RK, Begin);
    if (Region) {
      lowerArgs(As);
      engine::Inst &I = emit(Begin ? Op::RegionBegin : Op::RegionEnd, N);
      I.Region = RK;
      I.Name = Spelled;
      // graph.capture_begin(pool=...): the receiver is the graph captured
      // into, as `with torch.cuda.graph(graph)` names it.
      if (RK == engine::RegionKind::Capture && Recv != engine::NoVar)
        I.A = Recv;
      return constant(N);
    }
  }
  // functools.partial(f, a, k=v): f with leading arguments bound.
  if (Qual == "functools.partial" && firstPlain(As)) {
    lowerArgs(As);
    VarId V = constant(N);
    std::vector<FnRef> Bound = info(As[0].V).Fns;
    for (FnRef &R : Bound) {
      for (size_t I = 1; I < As.size(); ++I) {
        if (As[I].Splat)
          break;
        if (As[I].Keyword.empty())
          R.Pos.push_back(As[I].V);
        else
          R.Kw.emplace_back(As[I].Keyword, As[I].V);
      }
    }
    info(V).Fns = std::move(Bound);
    return V;
  }
  // dict.fromkeys(keys[, value]) and defaultdict(factory): containers whose
  // slots start as that value (None when not given).
  if (Refs.empty() && Ctors.empty() &&
      (D == "dict.fromkeys" || (Method == "fromkeys" && Recv == engine::NoVar) ||
       Qual == "collections.defaultdict")) {
    bool FromKeys = Qual != "collections.defaultdict";
    VarId C = temp();
    engine::Inst &A = emit(Op::Alloc, N);
    A.Dst = C;
    A.Alloc = engine::AllocKind::Container;
    A.Name = Spelled;
    SyntaxNode ValueN{};
    if (FromKeys && As.size() >= 2)
      ValueN = As[1].Value;
    else if (!FromKeys && !As.empty() && kindOf(stripParens(As[0].Value)) == G.Lambda)
      ValueN = fieldOf(stripParens(As[0].Value), G.FBody);
    VarId V = engine::NoVar;
    if (FromKeys && As.size() < 2) {
      V = temp();
      emit(Op::Null, N).Dst = V;
    } else if (!isNull(ValueN)) {
      V = expr(ValueN);
    }
    for (size_t I = 0; I < As.size(); ++I)
      if (!(FromKeys && I == 1) && As[I].V == engine::NoVar &&
          kindOf(stripParens(As[I].Value)) != G.Lambda)
        As[I].V = expr(As[I].Value);
    if (V != engine::NoVar) {
      engine::Inst &S = emit(Op::Store, isNull(ValueN) ? N : ValueN);
      S.A = V;
      S.P.Kind = PlaceRef::Element;
      S.P.Base = C;
      S.P.Spelling = Spelled;
    }
    return C;
  }
  // list(x), sorted(d.items()), dict(): a fresh container (or the same view).
  if (Refs.empty() && Ctors.empty() && kindOf(F) == G.Identifier &&
      (isElementCopy(Qual) || isContainerMaker(Qual))) {
    lowerArgs(As);
    if (positionalOnly(As, 1) &&
        info(As[0].V).View != VarInfo::NoView)
      return As[0].V;
    VarId C = temp();
    engine::Inst &A = emit(Op::Alloc, N);
    A.Dst = C;
    A.Alloc = engine::AllocKind::Container;
    A.Name = Spelled;
    for (const CallArg &X : As) {
      VarId E = X.V;
      if (X.Keyword.empty()) { // the elements of an iterable
        E = temp();
        engine::Inst &R = emit(Op::Read, X.Whole);
        R.Dst = E;
        R.P.Kind = PlaceRef::Element;
        R.P.Base = X.V;
        R.P.Spelling = key(X.Value);
      }
      engine::Inst &S = emit(Op::Store, X.Whole);
      S.A = E;
      S.P.Kind = PlaceRef::Element;
      S.P.Base = C;
      S.P.Spelling = Spelled;
      llvm::SmallVector<engine::ClassId, 1> Elem = info(X.V).Elem;
      for (engine::ClassId K : Elem)
        addUnique(info(C).Elem, K);
    }
    return C;
  }
  if (Refs.empty() && Ctors.empty() && kindOf(F) == G.Identifier &&
      Qual == "enumerate" && As.size() >= 1 && !As[0].Splat) {
    lowerArgs(As);
    VarId V = aliasOf(As[0].V, N);
    VarInfo &I = info(V);
    I.View = VarInfo::Enumerate;
    I.ViewOf = As[0].V;
    return V;
  }

  // C++ bound into Python and analysed in the same run.
  if (Refs.empty() && Ctors.empty() && !Qual.empty())
    if (VarId V = boundCall(Qual, As, N, Spelled); V != engine::NoVar)
      return V;

  // In-tree code: constructors, then functions and methods.
  if (Ctors.size() == 1 && Refs.empty())
    return construct(Ctors[0], As, N, Spelled);
  if (!Ctors.empty() || !Refs.empty()) {
    VarId Result = temp();
    for (engine::ClassId C : Ctors)
      copyTo(Result, construct(C, As, N, Spelled), N);
    if (!Refs.empty()) {
      VarId Dst = Ctors.empty() ? Result : temp();
      emitCall(Dst, Refs, As, N, Spelled);
      for (const FnRef &R : Refs)
        addClass(Dst, Types.returns(R.Fn));
      if (Dst != Result)
        copyTo(Result, Dst, N);
    }
    return Result;
  }

  // dict.items(d), dict.__setitem__(d, k, v): a method of a builtin
  // container type called unbound, its receiver passed first.
  if (Recv == engine::NoVar && !Method.empty() && isContainerMethod(Method) &&
      firstPlain(As)) {
    std::string Type = key(RecvNode);
    if ((Type == "dict" || Type == "list" || Type == "set") &&
        resolve(Type).Kind == Resolved::External) {
      RecvNode = As[0].Value;
      Recv = expr(RecvNode);
      As.erase(As.begin());
    }
  }
  // A receiver of no known class.
  if (Recv != engine::NoVar) {
    VarId Result = engine::NoVar;
    if (info(Recv).CaptureContext &&
        (Method == "__enter__" || Method == "__exit__")) {
      lowerArgs(As);
      engine::Inst &I =
          emit(Method == "__enter__" ? Op::RegionBegin : Op::RegionEnd, N);
      I.Region = engine::RegionKind::Capture;
      I.Name = Spelled;
      I.A = info(Recv).ContextGraph;
      return constant(N);
    }
    if (info(Recv).Cls.empty() && isContainerMethod(Method) &&
        containerMethod(Method, Recv, RecvNode, As, N, Result))
      return Result;
    if (Method == "data_ptr" && As.empty()) {
      // A raw address of the tensor's memory: a task handed it is handed
      // the memory, which the integer does not own.
      VarId T = temp();
      engine::Inst &I = emit(Op::WeakRef, N);
      I.Dst = T;
      I.A = Recv;
      I.Weak = engine::WeakKind::Address;
      I.Name = Spelled;
      return T;
    }
    if (isMetadataMethod(Method)) {
      lowerArgs(As);
      return constant(N);
    }
    if (info(Recv).Cls.empty() && info(Recv).Tensor && isInPlaceOp(Method))
      return inPlaceOp(Recv, As, N, Spelled);
    // A view (`x.view(-1)`, `x.detach()`) is another handle of x's memory.
    if (info(Recv).Cls.empty() && isTensorViewOp(Method)) {
      lowerArgs(As);
      return aliasOf(Recv, N);
    }
    lowerArgs(As);
    VarId T = temp();
    engine::Inst &I = emit(Op::Call, N);
    I.Dst = T;
    I.Name = Spelled;
    I.Args.push_back(Recv);
    for (const CallArg &A : As)
      I.Args.push_back(A.V);
    return T;
  }

  // torch.cuda.graph(g, ...) kept in a variable to be entered by hand
  // (LightLLM's prefill graphs): the region opens at its __enter__.
  if (External && !D.empty() && Cat.CaptureContexts.matches(Qual)) {
    lowerArgs(As);
    VarId T = constant(N);
    info(T).CaptureContext = true;
    if (firstPlain(As))
      info(T).ContextGraph = As[0].V;
    return T;
  }
  // A task update of one call (cuda-python's
  // cuGraphExecKernelNodeSetParams): it binds what it is handed, as an
  // operation between an update's begin and end does.
  if (External && !D.empty() &&
      (Cat.TaskUpdateCalls.matches(D) || Cat.TaskUpdateCalls.matches(Qual))) {
    auto Region = [&](Op K) {
      engine::Inst &I = emit(K, N);
      I.Region = engine::RegionKind::TaskUpdate;
      I.Name = Spelled;
    };
    Region(Op::RegionBegin);
    VarId T = externalOp(As, N, Spelled, false);
    Region(Op::RegionEnd);
    return T;
  }
  // torch.as_tensor(obj): over the raw addresses obj holds (an object with
  // a __cuda_array_interface__ built from t.data_ptr()), a tensor that owns
  // nothing of t's memory; over anything else the op's own tensor.
  if (External && !D.empty() &&
      (Qual == "torch.as_tensor" || Qual == "torch.asarray") &&
      firstPlain(As)) {
    VarId T = externalOp(As, N, Spelled, false);
    engine::Inst &I = emit(Op::WeakRef, N);
    I.Dst = T;
    I.A = As[0].V;
    I.Weak = engine::WeakKind::OverAddress;
    I.Name = Spelled;
    return T;
  }
  // torch.narrow(x, ...), torch.transpose(x, ...): a view of x.
  if (External && !D.empty() && llvm::StringRef(Qual).starts_with("torch.") &&
      isTensorViewOp(Last) && firstPlain(As)) {
    lowerArgs(As);
    return aliasOf(As[0].V, N);
  }
  // Code outside the program.
  if (External && !D.empty()) {
    std::string Head = D.substr(0, D.find('.'));
    bool NoMemory = (kindOf(F) == G.Identifier && isNonOpBuiltin(D)) ||
                    llvm::StringRef(Head).contains("log");
    bool ClassLike = !Last.empty() && isupper((unsigned char)Last[0]);
    if (ClassLike && !NoMemory) {
      // An object of a library class: it may keep what it is given (its
      // arguments escape), and it holds it as long as it lives: a graph
      // kept in a record (`self.graphs[n] = Entry(graph=graph, ...)`) is
      // kept, as it is in a tuple or an object of the program's own.
      lowerArgs(As);
      VarId T = temp();
      engine::Inst &I = emit(Op::Call, N);
      I.Dst = T;
      I.Name = Spelled;
      for (const CallArg &A : As)
        I.Args.push_back(A.V);
      for (const CallArg &A : As) {
        if (A.Splat || isLiteral(A.Value))
          continue;
        engine::Inst &S = emit(Op::Store, A.Whole);
        S.A = A.V;
        S.P.Kind = PlaceRef::Element;
        S.P.Base = T;
        S.P.Spelling = Spelled;
      }
      return T;
    }
    return externalOp(As, N, Spelled, NoMemory);
  }
  // A callee of unknown meaning (a parameter, a call's result).
  lowerArgs(As);
  VarId T = temp();
  engine::Inst &I = emit(Op::Call, N);
  I.Dst = T;
  I.Name = Spelled;
  if (CalleeV != engine::NoVar)
    I.Args.push_back(CalleeV);
  for (const CallArg &A : As)
    I.Args.push_back(A.V);
  return T;
}

std::vector<FnRef> FnLowerer::methodsOf(VarId Obj, const char *Method) {
  std::vector<FnRef> Refs;
  for (engine::ClassId C : info(Obj).Cls) {
    int Mth = P.findMethod(C, Method);
    if (Mth < 0)
      continue;
    FnRef Ref;
    Ref.Fn = Mth;
    if (Types.isClassMethod(Mth))
      Ref.SkipFirst = true;
    else if (P.Functions[Mth].BoundMethod)
      Ref.Self = Obj;
    Refs.push_back(Ref);
  }
  return Refs;
}

bool FnLowerer::isLiteral(SyntaxNode Value) const {
  TSSymbol K = kindOf(stripParens(Value));
  return K == G.Integer || K == L.Float || K == G.String || K == G.True ||
         K == G.False || K == G.None;
}

/// `buf.copy_(y)` on a tensor this function made: an operation that writes
/// the tensor and reads what it is handed, as `torch.add(y, 0, out=buf)`
/// is; an in-place method returns its tensor.
VarId FnLowerer::inPlaceOp(VarId Recv, std::vector<CallArg> &As, SyntaxNode N,
                           const std::string &Spelled) {
  lowerArgs(As);
  engine::Inst &I = emit(Op::Use, N);
  I.A = Recv;
  I.Name = Spelled;
  useArgs(As, Spelled);
  return Recv;
}

void FnLowerer::useArgs(const std::vector<CallArg> &As,
                        const std::string &Spelled) {
  // autograd's walk reads its outputs' history, not their storage
  // (Megatron-LM hands it weak references of a captured graph's outputs).
  llvm::StringRef Fn(Spelled);
  bool Storage = !Fn.ends_with("autograd.grad") && !Fn.ends_with("autograd.backward");
  for (const CallArg &A : As) {
    if (isLiteral(A.Value))
      continue; // a literal is no memory
    engine::Inst &I = emit(Op::Use, A.Whole);
    I.A = A.V;
    I.Name = Spelled;
    // op(q, [ws]), out=[output, lse]: the tensors of a list or tuple
    // written in the call are handed to the op as the container is.
    if (!Storage || A.V == engine::NoVar)
      continue;
    std::vector<VarId> Elems = info(A.V).LiteralElems;
    for (VarId E : Elems) {
      engine::Inst &U = emit(Op::Use, A.Whole);
      U.A = E;
      U.Name = Spelled;
    }
  }
}

VarId FnLowerer::externalOp(std::vector<CallArg> &As, SyntaxNode N,
                            const std::string &Spelled, bool NoMemory) {
  lowerArgs(As);
  if (NoMemory)
    return constant(N);
  useArgs(As, Spelled);
  llvm::StringRef Last = llvm::StringRef(Spelled).rsplit('.').second;
  if (Last.empty())
    Last = Spelled;
  bool Producer = Cat.WorkspaceProducers.matches(Spelled) ||
                  Cat.WorkspaceProducers.matches(resolve(Spelled).Qual);
  VarId T = temp();
  engine::Inst &I = emit(Op::Alloc, N);
  I.Dst = T;
  I.Name = Spelled;
  I.Alloc = Producer ? engine::AllocKind::Workspace : engine::AllocKind::Tensor;
  I.Device = Producer || isTensorFactory(Last);
  info(T).Tensor = I.Device;
  if (!Producer && isAllocation(Last)) {
    // A size computed from this function's arguments (or its object's
    // fields), not a maximum the caller cannot exceed.
    // A parameter passed as the size, or a size computed from the
    // object's own fields (one layer's head count); an expression of the
    // key such as `n * 2` is the same for every layer.
    // A shape written as a tuple or list (`torch.empty((n, hidden))`) is
    // the same sizes as the arguments.
    Sizing Sz;
    auto Param = [&](SyntaxNode X) {
      if (kindOf(X) == G.Identifier && ParamNames.count(text(X)))
        Sz.Params.insert(text(X));
    };
    for (const CallArg &A : As) {
      if (!A.Keyword.empty())
        continue;
      SyntaxNode V = stripParens(A.Value);
      Param(V);
      if (kindOf(V) == G.Tuple || kindOf(V) == G.List)
        eachChild(V, true, [&](SyntaxNode C, TSFieldId) { Param(stripParens(C)); });
      preorder(A.Value, [&](SyntaxNode X) {
        if (kindOf(X) == G.Attribute && isSelf(firstChildOf(X)))
          Sz.BySelf = true;
        return !Sz.BySelf;
      });
    }
    I.SizedByCaller = Sz.BySelf || !Sz.Params.empty();
    if (I.SizedByCaller)
      AllocSizing[{B.current(), Out.Blocks[B.current()].Insts.size() - 1}] =
          std::move(Sz);
  }
  if (!Producer)
    LastAlloc[T] = {B.current(), Out.Blocks[B.current()].Insts.size() - 1};
  return T;
}

VarId FnLowerer::weakRef(std::vector<CallArg> &As, SyntaxNode N,
                         const std::string &Spelled) {
  CallArg *First = nullptr;
  for (CallArg &A : As)
    if (A.Keyword.empty() && !A.Splat) {
      First = &A;
      break;
    }
  if (!First) {
    lowerArgs(As);
    return constant(N);
  }
  SyntaxNode V = stripParens(First->Value);
  if (kindOf(V) == G.Tuple || kindOf(V) == G.List) {
    // weak_ref_tensors((a, b)): a new container of weak references.
    VarId C = temp();
    engine::Inst &A = emit(Op::Alloc, V);
    A.Dst = C;
    A.Alloc = engine::AllocKind::Container;
    unsigned Index = 0;
    eachChild(V, true, [&](SyntaxNode X, TSFieldId) {
      if (kindOf(X) == G.Comment)
        return;
      VarId E = expr(X);
      VarId W = temp();
      engine::Inst &I = emit(Op::WeakRef, N);
      I.Dst = W;
      I.A = E;
      I.Name = Spelled;
      engine::Inst &S = emit(Op::Store, X);
      S.A = W;
      S.P.Kind = PlaceRef::Element;
      S.P.Base = C;
      if (kindOf(X) != G.ListSplat)
        S.P.Key = std::to_string(Index);
      ++Index; // the fresh container has no spelling
    });
    First->V = C;
    lowerArgs(As);
    return C;
  }
  lowerArgs(As);
  VarId W = temp();
  engine::Inst &I = emit(Op::WeakRef, N);
  I.Dst = W;
  I.A = First->V;
  I.Name = Spelled;
  // The edit that drops this conversion (offered when it is the inner one
  // of a nested pair): the call replaced by its argument. Offsets are into
  // the file, whose byte order mark the text lacks and which may be latin-1.
  FixIt Fix;
  Fix.File = M.Path;
  Fix.Offset = M.Layout.fileOffset(Src, startByte(N));
  Fix.Length = M.Layout.fileOffset(Src, endByte(N)) - Fix.Offset;
  Fix.Text = M.Layout.fileText(text(First->Value));
  I.Fixes.push_back(std::move(Fix));
  // `weak_ref_tensors(torch.empty(n))`: a new tensor (a factory's, a
  // workspace producer's) made as the argument is a temporary whose one
  // reference ends when the conversion returns; only the weak alias is left
  // (a named local dies at its `del`, rebinding or return). What other
  // calls return may be a view of memory someone holds (`x.view(-1)`).
  if (kindOf(V) == G.Call && info(First->V).Tensor)
    emit(Op::Kill, N).A = First->V;
  return W;
}

VarId FnLowerer::construct(engine::ClassId C, std::vector<CallArg> &As,
                           SyntaxNode N, const std::string &Spelled) {
  VarId Obj = temp();
  engine::Inst &A = emit(Op::Alloc, N);
  A.Dst = Obj;
  A.Alloc = engine::AllocKind::Object;
  A.Class = C;
  A.Name = Spelled;
  addUnique(info(Obj).Cls, C);
  int Init = P.findMethod(C, "__init__");
  if (Init >= 0) {
    FnRef R;
    R.Fn = Init;
    R.Self = Obj;
    emitCall(engine::NoVar, {R}, As, N, P.Classes[C].Name + ".__init__");
    return Obj;
  }
  // A dataclass / NamedTuple: fields take the arguments in order.
  lowerArgs(As);
  const Class &Cl = P.Classes[C];
  size_t Next = 0;
  for (const CallArg &X : As) {
    if (X.Splat) {
      emit(Op::Escape, X.Whole).A = X.V;
      continue;
    }
    std::string Field = X.Keyword.empty()
                            ? (Next < Cl.Fields.size() ? Cl.Fields[Next++] : "")
                            : X.Keyword;
    if (Field.empty())
      continue;
    engine::Inst &S = emit(Op::Store, X.Whole);
    S.A = X.V;
    S.P.Kind = PlaceRef::Field;
    S.P.Base = Obj;
    S.P.Name = Field;
    S.P.Spelling = Cl.Name + "." + Field;
  }
  return Obj;
}

engine::CallTarget FnLowerer::target(const FnRef &R,
                                     const std::vector<CallArg> &As) {
  const Function &Cal = P.Functions[R.Fn];
  const std::vector<std::string> &Ps = Cal.Params;
  engine::CallTarget T;
  T.Fn = R.Fn;
  T.Args.assign(Ps.size(), engine::NoVar);
  size_t Next = 0;
  if (R.Self != engine::NoVar && !Ps.empty())
    T.Args[Next++] = R.Self;
  else if (R.SkipFirst && !Ps.empty())
    ++Next;
  auto Positional = [&](VarId V) {
    if (Next < Ps.size() && Ps[Next] != "*")
      T.Args[Next++] = V;
  };
  // Keywords by name; a map only for a callee with many parameters.
  std::unordered_map<std::string, size_t> ByName;
  if (Ps.size() > 16)
    for (size_t J = 0; J < Ps.size(); ++J)
      ByName.emplace(Ps[J], J);
  auto Keyword = [&](const std::string &K, VarId V) {
    if (Ps.size() > 16) {
      auto It = ByName.find(K);
      if (It != ByName.end())
        T.Args[It->second] = V;
      return;
    }
    for (size_t J = 0; J < Ps.size(); ++J)
      if (Ps[J] == K)
        T.Args[J] = V;
  };
  for (VarId V : R.Pos)
    Positional(V);
  bool Splatted = false;
  for (const CallArg &A : As) {
    if (A.Splat)
      Splatted = true; // positions after *xs are not known
    else if (A.Keyword.empty() && !Splatted)
      Positional(A.V);
  }
  for (const auto &[K, V] : R.Kw)
    Keyword(K, V);
  for (const CallArg &A : As)
    if (!A.Keyword.empty())
      Keyword(A.Keyword, A.V);
  return T;
}

engine::Inst &FnLowerer::emitCall(VarId Dst, const std::vector<FnRef> &Refs,
                                  std::vector<CallArg> &As, SyntaxNode N,
                                  const std::string &Spelled) {
  lowerArgs(As);
  // *xs and **kw hand their contents to code we do not map.
  for (const CallArg &A : As)
    if (A.Splat)
      emit(Op::Escape, A.Whole).A = A.V;
  engine::Inst &I = emit(Op::Call, N);
  I.Dst = Dst;
  I.Name = Spelled;
  if (!Refs.empty()) { // what the callee value holds bound: receiver, partial
    if (Refs[0].Self != engine::NoVar)
      I.Args.push_back(Refs[0].Self);
    I.Args.insert(I.Args.end(), Refs[0].Pos.begin(), Refs[0].Pos.end());
    for (const auto &KV : Refs[0].Kw)
      I.Args.push_back(KV.second);
  }
  I.ArgLocs.assign(I.Args.size(), loc(N)); // bound: written at the call
  for (const CallArg &A : As) {
    I.Args.push_back(A.V);
    I.ArgLocs.push_back(loc(A.Value));
  }
  // `f(g(x))`: if both turn out to be weak-ref functions, the edit that
  // drops the inner one replaces this call by its argument.
  if (positionalOnly(As, 1)) {
    FixIt Fix;
    Fix.File = M.Path;
    Fix.Offset = M.Layout.fileOffset(Src, startByte(N));
    Fix.Length = M.Layout.fileOffset(Src, endByte(N)) - Fix.Offset;
    Fix.Text = M.Layout.fileText(text(As[0].Value));
    I.Fixes.push_back(std::move(Fix));
  }
  for (const FnRef &R : Refs)
    I.Targets.push_back(target(R, As));
  if (Dst != engine::NoVar && !Refs.empty())
    for (const CallArg &A : As)
      if (A.Keyword.empty() && !A.Splat && A.V != engine::NoVar &&
          LastAlloc.count(A.V))
        InTreeCallArgs[Dst].push_back(A.V);
  return I;
}

VarId FnLowerer::boundCall(const std::string &Qual, std::vector<CallArg> &As,
                           SyntaxNode N, const std::string &Spelled) {
  const std::vector<engine::BoundFunction> *Fs =
      P.Foreign ? P.Foreign->lookup(Qual) : nullptr;
  if (!Fs)
    return engine::NoVar;
  VarId Dst = temp();
  engine::Inst &I = emitCall(Dst, {}, As, N, Spelled);
  for (const engine::BoundFunction &BF : *Fs) {
    const engine::Function &Cal = P.Foreign->Code.Functions[BF.Fn];
    engine::CallTarget T;
    T.Fn = P.ForeignBase + BF.Fn;
    T.Args.assign(Cal.NumParams, engine::NoVar);
    size_t Next = BF.FirstArg;
    bool Splatted = false;
    for (const CallArg &A : As) {
      Splatted |= A.Splat; // positions after *xs are not known
      if (A.Splat)
        continue;
      if (A.Keyword.empty()) {
        if (!Splatted && Next < T.Args.size())
          T.Args[Next++] = A.V;
        continue;
      }
      // pybind11's py::arg names are the C++ parameters' as a rule.
      for (size_t J = BF.FirstArg; J < Cal.NumParams; ++J)
        if (Cal.VarNames[J] == A.Keyword)
          T.Args[J] = A.V;
    }
    I.Targets.push_back(std::move(T));
  }
  return Dst;
}
