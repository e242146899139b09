//===- Callees.cpp - What a call means: catalog, containers, user code ----===//
//
// In order: the catalog (capture begin/end, predicates, weak-ref
// primitives, from_blob without a deleter, workspace producers, stream
// setters), container and tensor/optional methods (places, null tests),
// calls of in-TU definitions (with every candidate: virtual calls reach
// each in-TU override), and last calls of code outside the program (a Use
// of each tensor argument and a fresh tensor for the result) or of code
// nobody can name (a call without targets: its arguments escape).
//
//===----------------------------------------------------------------------===//
#include "lower/LowerImpl.h"
#include "common/Allocators.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/Builtins.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
using namespace tether::cxx::lower;
using engine::Op;

//===--- types
//-------------------------------------------------------------===//

static const CXXRecordDecl *recordOf(QualType T) {
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  return T->getAsCXXRecordDecl();
}

bool lower::isTensorType(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         (RD->getName() == "Tensor" || RD->getName() == "TensorBase");
}

bool lower::isPair(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         RD->getName() == "pair";
}

bool lower::isOptionalType(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "optional" &&
         (RD->isInStdNamespace() ||
          RD->getQualifiedNameAsString() == "c10::optional");
}

bool lower::isContainerType(QualType T) {
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD || !RD->getIdentifier() || !RD->isInStdNamespace())
    return false;
  return llvm::StringSwitch<bool>(RD->getName())
      .Cases({"map", "unordered_map", "multimap", "unordered_multimap"}, true)
      .Cases({"vector", "deque", "list", "forward_list", "array"}, true)
      .Cases({"set", "unordered_set"}, true)
      .Default(false);
}

bool lower::isMap(QualType T) {
  const CXXRecordDecl *RD = recordOf(T);
  return RD && RD->getIdentifier() && RD->getName().contains("map");
}

bool lower::holdsTensor(QualType T, unsigned Depth) {
  if (T.isNull() || Depth > 3)
    return false;
  if (isTensorType(T))
    return true;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec)
    return false;
  for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
    if (A.getKind() == TemplateArgument::Type &&
        holdsTensor(A.getAsType(), Depth + 1))
      return true;
  return false;
}

//===--- the catalog
//-------------------------------------------------------===//

void FunctionLowering::alloc(const Expr *E, engine::AllocKind K,
                             ArrayRef<const Expr *> SizeArgs) {
  if (IsProducer && K == engine::AllocKind::Tensor)
    K = engine::AllocKind::Workspace;
  bool Sized = false;
  for (const Expr *A : SizeArgs)
    Sized |= !isa<CXXDefaultArgExpr>(A) && sizedByCaller(A);
  VarId T = temp(E, Op::Alloc);
  engine::Inst &I = F.Blocks[B.current()].Insts.back();
  I.Alloc = K;
  I.SizedByCaller = Sized;
  // Fresh device memory: a workspace, or a tensor factory's result (a view
  // such as `buf.slice(..)` or an op's output is memory someone else may
  // own).
  const FunctionDecl *Callee = nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    Callee = Call->getDirectCallee();
  I.Device = K == engine::AllocKind::Workspace ||
             (K == engine::AllocKind::Tensor && Callee &&
              Callee->getIdentifier() && isTensorFactory(Callee->getName()));
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      I.Name = FD->getNameAsString();
  if (K == engine::AllocKind::Tensor)
    AllocOf[T] = {B.current(),
                  uint32_t(F.Blocks[B.current()].Insts.size() - 1)};
  set(E, T);
}

/// from_blob(data, sizes, ..., deleter, ...): with a deleter the new tensor
/// manages the memory, so it is no weak reference.
static bool passesDeleter(const CallExpr *Call, const FunctionDecl *FD) {
  for (unsigned I = 0, N = std::min(Call->getNumArgs(), FD->getNumParams());
       I < N; ++I) {
    if (isa<CXXDefaultArgExpr>(Call->getArg(I)))
      continue;
    const ParmVarDecl *P = FD->getParamDecl(I);
    if (P->getName().contains_insensitive("deleter") ||
        StringRef(P->getType().getAsString()).contains("function<"))
      return true;
  }
  return false;
}

/// `t.data_ptr()` and its typed and const forms: a raw address of t's memory.
static bool isDataPtr(StringRef N) {
  return N == "data_ptr" || N == "mutable_data_ptr" || N == "const_data_ptr";
}

/// The tensor whose `data_ptr()` E is, directly or through a pointer local
/// that keeps its initial value (`void *p = t.data_ptr(); from_blob(p,..)`).
static const Expr *dataPtrOwner(const Expr *E, const FunctionDecl *FD,
                                ASTContext &Ctx, bool ThroughLocal = true) {
  E = strip(E)->IgnoreParenCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!ThroughLocal || !V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        !V->getType()->isPointerType() || !V->getInit() || !FD->getBody() ||
        ExprMutationAnalyzer(*FD->getBody(), Ctx).isMutated(V))
      return nullptr;
    return dataPtrOwner(V->getInit(), FD, Ctx, false);
  }
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier())
    return nullptr;
  StringRef N = M->getName();
  if (!isDataPtr(N))
    return nullptr;
  return MC->getImplicitObjectArgument();
}

std::optional<VarId> FunctionLowering::blobConversion(const CallExpr *E,
                                                      const FunctionDecl *FD) {
  const Expr *Owner = nullptr;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    // for_blob(data, sizes).strides(..)...make_tensor(): weak unless a step
    // gives it a deleter or a context with one.
    if (!MD->getIdentifier() || MD->getName() != "make_tensor" ||
        !MD->getParent()->getIdentifier() ||
        MD->getParent()->getName() != "TensorMaker")
      return std::nullopt;
    const Expr *Obj = cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument();
    for (unsigned Depth = 0; Obj && Depth < 16; ++Depth) {
      Obj = strip(Obj);
      if (const auto *Step = dyn_cast<CXXMemberCallExpr>(Obj)) {
        const CXXMethodDecl *SM = Step->getMethodDecl();
        if (!SM || !SM->getIdentifier() || SM->getName() == "deleter" ||
            (SM->getName() == "context" && Step->getNumArgs() >= 2 &&
             !isa<CXXDefaultArgExpr>(Step->getArg(1))))
          return std::nullopt;
        Obj = Step->getImplicitObjectArgument();
        continue;
      }
      const auto *Root = dyn_cast<CallExpr>(Obj);
      const FunctionDecl *RF = Root ? Root->getDirectCallee() : nullptr;
      if (RF && !isa<CXXMethodDecl>(RF) && Root->getNumArgs() >= 1 &&
          Cat.BlobFunctions.matches(qualifiedName(RF)))
        Owner = dataPtrOwner(Root->getArg(0), this->FD, Ctx);
      break;
    }
  } else if (E->getNumArgs() >= 1 && !passesDeleter(E, FD)) {
    Owner = dataPtrOwner(E->getArg(0), this->FD, Ctx);
  }
  if (!Owner)
    return std::nullopt;
  VarId A = value(Owner);
  VarId T = temp(E, Op::WeakRef);
  engine::Inst &I = F.Blocks[B.current()].Insts.back();
  I.Weak = engine::WeakKind::FromBlob;
  I.A = A;
  I.Name = FD->getNameAsString();
  return T;
}

/// The edit that drops conversion E: the call replaced by the text of its
/// argument (none inside macros).
std::optional<FixIt> FunctionLowering::dropConversion(const CallExpr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  CharSourceRange Whole = CharSourceRange::getTokenRange(E->getSourceRange());
  CharSourceRange Arg =
      CharSourceRange::getTokenRange(E->getArg(0)->getSourceRange());
  if (Whole.getBegin().isMacroID() || Whole.getEnd().isMacroID() ||
      Arg.getBegin().isMacroID() || Arg.getEnd().isMacroID())
    return std::nullopt;
  bool Invalid = false;
  StringRef Text = Lexer::getSourceText(Arg, SM, LO, &Invalid);
  CharSourceRange Chars = Lexer::makeFileCharRange(Whole, SM, LO);
  if (Invalid || Text.empty() || Chars.isInvalid())
    return std::nullopt;
  auto [FID, Begin] = SM.getDecomposedLoc(Chars.getBegin());
  auto End = SM.getDecomposedLoc(Chars.getEnd()).second;
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE || End < Begin)
    return std::nullopt;
  FixIt Fix;
  Fix.File = std::string(FE->getName());
  Fix.Offset = Begin;
  Fix.Length = End - Begin;
  Fix.Text = Text.str();
  return Fix;
}

/// What `&x` passed as an out-parameter names (x), or null.
static const Expr *outArgument(const Expr *A) {
  const auto *U = dyn_cast<UnaryOperator>(A->IgnoreParenImpCasts());
  return U && U->getOpcode() == UO_AddrOf ? U->getSubExpr() : nullptr;
}

/// A runtime's raw memory calls (catalog: raw_allocators, raw_frees,
/// graph_destroys, graph_launches). True when the call is lowered whole
/// (an allocation, a free).
bool FunctionLowering::rawMemoryCall(const CallExpr *E, StringRef Name) {
  if (Cat.RawAllocators.matches(Name)) {
    // The address arrives through the out-parameter (`aclrtMalloc(&ws,
    // ...)`, `cudaMalloc((void **)&buf, n)`); the result is an error code.
    const Expr *Out = outArgument(E->getArg(0)->IgnoreParenCasts());
    if (!Out)
      return true; // `aclrtMalloc(slot, ...)`: where it goes is not seen
    VarId T = temp(E, Op::Alloc);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Device = true;
    I.Manual = true;
    I.Name = E->getDirectCallee()->getNameAsString();
    storeTo(Out, T, E->getBeginLoc());
    return true;
  }
  if (Cat.RawFrees.matches(Name)) {
    VarId A = value(E->getArg(0));
    emit(Op::Free, E->getBeginLoc()).A = A;
    return true;
  }
  // A graph's destroy or replay is still the call it was (what it is
  // handed is lowered as for any other): the IR only learns when.
  if (Cat.GraphDestroys.matches(Name))
    emit(Op::GraphDestroy, E->getBeginLoc());
  else if (Cat.GraphLaunches.matches(Name))
    emit(Op::GraphLaunch, E->getBeginLoc());
  return false;
}

bool FunctionLowering::catalogCall(const CallExpr *E, const FunctionDecl *FD) {
  std::string Name = qualifiedName(FD);
  if (Name.empty())
    return false;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  const Expr *Key = MC ? MC->getImplicitObjectArgument()
                       : (E->getNumArgs() ? E->getArg(0) : nullptr);
  // Stream ordering (an event's record/block, a stream wait): the call
  // itself is still lowered as whatever else it is.
  if (TU.fnOf(FD) < 0 && FD->getIdentifier() &&
      (Cat.StreamSyncs.matches(Name) || Cat.StreamSyncs.matches(FD->getName())))
    emit(Op::Sync, E->getBeginLoc());
  bool UpdateBegin = Cat.TaskUpdateBegins.matches(Name);
  if (UpdateBegin || Cat.TaskUpdateEnds.matches(Name)) {
    engine::Inst &I = emit(UpdateBegin ? Op::RegionBegin : Op::RegionEnd,
                           E->getBeginLoc());
    I.Region = engine::RegionKind::TaskUpdate;
    I.Key = Key ? spelling(Key) : std::string();
    I.Name = FD->getNameAsString();
    return true;
  }
  bool SessionBegin = Cat.SessionBegins.matches(Name);
  if (SessionBegin || Cat.SessionEnds.matches(Name)) {
    engine::Inst &I = emit(SessionBegin ? Op::RegionBegin : Op::RegionEnd,
                           E->getBeginLoc());
    I.Region = engine::RegionKind::CaptureSession;
    I.Name = FD->getNameAsString();
    return true;
  }
  bool Begin = Cat.CaptureBegins.matches(Name);
  if (Begin || Cat.CaptureEnds.matches(Name)) {
    // ACL's task-group pair is in the catalog's capture pairs; the IR
    // keeps what it is.
    engine::RegionKind K = StringRef(Name).contains("TaskGrp")
                               ? engine::RegionKind::TaskGroup
                           : StringRef(Name).contains("TaskUpdate")
                               ? engine::RegionKind::TaskUpdate
                               : engine::RegionKind::Capture;
    std::string KeyText = Key ? spelling(Key) : std::string();
    // The graph captured into: the receiver of `graph.capture_begin()`
    // (ACL's begin names a stream, not a graph).
    VarId Graph = Begin && MC && K == engine::RegionKind::Capture
                      ? value(Key)
                      : NoVar;
    // Or the graph a stream capture ends into, through the end call's
    // out-parameter (`cudaStreamEndCapture(stream, &graph_)`, ACL's
    // `aclmdlRICaptureEnd(stream, &model_)`: a model runtime instance).
    if (!Begin && K == engine::RegionKind::Capture)
      for (const Expr *A : E->arguments())
        if (const Expr *Out = outArgument(A)) {
          std::string Type = Out->getType().getAsString();
          if (StringRef(Type).contains_insensitive("graph") ||
              StringRef(Type).contains_insensitive("aclmdlri"))
            Graph = value(Out);
        }
    engine::Inst &I =
        emit(Begin ? Op::RegionBegin : Op::RegionEnd, E->getBeginLoc());
    I.Region = K;
    I.Key = std::move(KeyText);
    I.Name = FD->getNameAsString();
    I.A = Graph;
    return true;
  }
  bool SessionTest = Cat.SessionPredicates.matches(Name);
  if (SessionTest || Cat.CapturePredicates.matches(Name)) {
    VarId T = temp(E, Op::Test);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Name = FD->getNameAsString();
    if (SessionTest)
      I.Test = engine::TestKind::SessionPredicate;
    // A runtime's predicate answers through an out-parameter and returns
    // an error code (`cudaStreamIsCapturing(stream, &status)`,
    // `aclmdlRICaptureGetInfo(stream, &status, &ri)`): the status local
    // holds the truth value, the result is none.
    for (const Expr *A : E->arguments()) {
      const Expr *Out = outArgument(A);
      const auto *DRE =
          Out ? dyn_cast<DeclRefExpr>(Out->IgnoreParens()) : nullptr;
      const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      auto It = V && V->getType()->isEnumeralType() ? Vars.find(V) : Vars.end();
      if (It == Vars.end())
        continue;
      engine::Inst &C = emit(Op::Copy, E->getBeginLoc());
      C.Dst = It->second;
      C.A = T;
      return true;
    }
    set(E, T, true);
    return true;
  }
  // Even when the TU defines it: CUDA's header wraps its allocators in
  // templates with a body (`cudaMalloc(T **, size_t)`), whose own call
  // is handed a cast parameter, not the caller's `&buf`.
  if (E->getNumArgs() >= 1 && rawMemoryCall(E, Name))
    return true;
  if (Cat.WeakRefFunctions.matches(Name) && E->getNumArgs() >= 1) {
    VarId A = value(E->getArg(0));
    VarId T = temp(E, Op::WeakRef);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.A = A;
    I.Name = FD->getNameAsString();
    if (auto Fix = dropConversion(E))
      I.Fixes.push_back(std::move(*Fix));
    set(E, T);
    return true;
  }
  bool Blob = isa<CXXMethodDecl>(FD)
                  ? FD->getIdentifier() && FD->getName() == "make_tensor"
                  : Cat.BlobFunctions.matches(Name);
  if (Blob && isTensorType(E->getType())) {
    if (std::optional<VarId> W = blobConversion(E, FD))
      set(E, *W);
    else
      alloc(E, engine::AllocKind::Tensor, {}); // it manages its memory
    return true;
  }
  if (Cat.WorkspaceProducers.matches(Name) && TU.fnOf(FD) < 0 &&
      !holdsTensor(E->getType()))
    return true; // a size query (`*_get_max_workspace(q)`): no memory used
  if (Cat.WorkspaceProducers.matches(Name) && TU.fnOf(FD) < 0) {
    bool Max = StringRef(Name).contains_insensitive("max");
    alloc(E, engine::AllocKind::Workspace,
          Max ? ArrayRef<const Expr *>()
              : ArrayRef(E->getArgs(), E->getNumArgs()));
    return true;
  }
  if (!isa<CXXConstructorDecl>(FD) && Cat.StreamSwitches.matches(Name)) {
    // A stream setter: work issued after it goes to the stream it names.
    std::string KeyText = E->getNumArgs() ? spelling(E->getArg(0)) : "";
    engine::Inst &End = emit(Op::RegionEnd, E->getBeginLoc());
    End.Region = engine::RegionKind::Stream;
    engine::Inst &Start = emit(Op::RegionBegin, E->getBeginLoc());
    Start.Region = engine::RegionKind::Stream;
    Start.Key = std::move(KeyText);
    Start.Name = FD->getNameAsString();
    return true;
  }
  return false;
}

//===--- methods of containers, tensors and optionals
//----------------------===//

bool FunctionLowering::containerCall(const CallExpr *E, const CXXMethodDecl *M,
                                     const Expr *Obj) {
  if (!M->getIdentifier() && !isa<CXXOperatorCallExpr>(E))
    return false;
  StringRef N = M->getIdentifier() ? M->getName() : StringRef();
  unsigned NArgs = E->getNumArgs();
  if (isa<CXXOperatorCallExpr>(E)) // the container is argument 0
    return false;
  const Expr *A0 = NArgs ? E->getArg(0) : nullptr;
  bool Keyed = isMap(Obj->getType());
  // A map's emplace, try_emplace and insert store only into an absent key
  // (Python's setdefault): a fill, never a replacement of what it holds.
  bool IfAbsent =
      Keyed && (N == "emplace" || N == "try_emplace" || N == "insert");
  auto Store = [&](const Expr *KeyE, const Expr *ValueE) {
    engine::PlaceRef P = element(Obj, Keyed ? KeyE : nullptr);
    VarId X = value(ValueE);
    if (Keyed)
      keyCarriesSize(ValueE, KeyE);
    engine::Inst &I = emit(Op::Store, E->getBeginLoc());
    I.P = P;
    I.A = X;
    I.IfAbsent = IfAbsent;
    // The pair it returns: `.first` is an iterator to the key's slot.
    if (IfAbsent)
      setPlace(E, std::move(P), /*MayBeAbsent=*/false, /*Iterator=*/true);
  };
  auto Clear = [&](const Expr *KeyE) {
    engine::PlaceRef P = element(Obj, KeyE);
    emit(Op::Clear, E->getBeginLoc()).P = std::move(P);
  };
  if (N == "at" || N == "front" || N == "back") {
    setPlace(E, element(Obj, N == "at" && Keyed ? A0 : nullptr));
  } else if (N == "find" || N == "lower_bound") {
    setPlace(E, element(Obj, Keyed ? A0 : nullptr), /*MayBeAbsent=*/true,
             /*Iterator=*/true);
  } else if (N == "begin" || N == "cbegin" || N == "rbegin") {
    // The iteration's element: each slot in turn.
    engine::PlaceRef P = element(Obj, nullptr);
    P.EverySlot = true;
    setPlace(E, std::move(P), false, true);
  } else if (N == "count" || N == "contains") {
    engine::PlaceRef P = element(Obj, Keyed ? A0 : nullptr);
    VarId T = temp(E, Op::Test);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Test = engine::TestKind::PlaceEmpty;
    I.P = std::move(P);
    VarId Not = temp(E, Op::Not);
    F.Blocks[B.current()].Insts.back().A = T;
    set(E, Not, true);
  } else if (N == "emplace" || N == "try_emplace" || N == "insert_or_assign" ||
             N == "insert") {
    if (NArgs >= 2) {
      Store(E->getArg(0), E->getArg(1)); // (key, value) or (position, value)
    } else if (NArgs == 1 && Keyed && N == "try_emplace") {
      Store(A0, nullptr); // try_emplace(k): a default-constructed value
    } else if (NArgs == 1) {
      // insert({k, v}) / insert(std::make_pair(k, v)) / set.insert(v)
      const Expr *Arg = strip(A0);
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Arg);
          CE && CE->getNumArgs() == 1)
        Arg = strip(CE->getArg(0));
      const auto *IL = dyn_cast<InitListExpr>(Arg);
      const auto *Pair = dyn_cast<CXXConstructExpr>(Arg);
      const auto *Make = dyn_cast<CallExpr>(Arg);
      if (IL && IL->getNumInits() == 2)
        Store(IL->getInit(0), IL->getInit(1));
      else if (Pair && Pair->getNumArgs() == 2)
        Store(Pair->getArg(0), Pair->getArg(1));
      else if (Make && Make->getNumArgs() == 2)
        Store(Make->getArg(0), Make->getArg(1));
      else
        Store(nullptr, A0);
    }
  } else if (N == "push_back" || N == "emplace_back" || N == "push_front" ||
             N == "emplace_front") {
    if (NArgs)
      Store(nullptr, A0);
  } else if (N == "erase") {
    const Val *KV = A0 ? find(A0) : nullptr;
    if (KV && KV->HasPlace && KV->Iterator) {
      engine::PlaceRef P = KV->P;
      emit(Op::Clear, E->getBeginLoc()).P = std::move(P);
    } else {
      Clear(Keyed ? A0 : nullptr);
    }
  } else if (N == "clear" || N == "pop_back" || N == "pop_front") {
    Clear(nullptr);
  } else {
    return true; // size, empty, end, reserve: no memory of its elements
  }
  return true;
}

bool FunctionLowering::tensorMethod(const CallExpr *E, const CXXMethodDecl *M,
                                    const Expr *Obj) {
  StringRef N = M->getIdentifier() ? M->getName() : StringRef();
  bool ToBool =
      isa<CXXConversionDecl>(M) &&
      cast<CXXConversionDecl>(M)->getConversionType()->isBooleanType();
  if (N == "defined" || N == "has_value" || ToBool) {
    VarId A = value(Obj);
    VarId T = temp(E, Op::Test);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Test = engine::TestKind::IsNull;
    I.A = A;
    VarId Not = temp(E, Op::Not);
    F.Blocks[B.current()].Insts.back().A = T;
    set(E, Not, true);
    return true;
  }
  // A raw address of the tensor's memory: a task handed it is handed the
  // memory, which the address does not own.
  if (isDataPtr(N)) {
    VarId A = value(Obj);
    VarId T = temp(E, Op::WeakRef);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Weak = engine::WeakKind::Address;
    I.A = A;
    I.Name = N.str();
    set(E, T);
    return true;
  }
  // The tensor Obj names now holds V: a store to its place, or a new value
  // of its local.
  auto Rebind = [&](VarId V) {
    if (Val *O = find(Obj); O && O->HasPlace) {
      engine::PlaceRef P = O->P;
      engine::Inst &I = emit(Op::Store, E->getBeginLoc());
      I.P = std::move(P);
      I.A = V;
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(strip(Obj))) {
      if (auto It = Vars.find(dyn_cast<VarDecl>(DRE->getDecl()));
          It != Vars.end()) {
        engine::Inst &I = emit(Op::Copy, E->getBeginLoc());
        I.Dst = It->second;
        I.A = V;
      }
    }
  };
  if (N == "reset") {
    Rebind(temp(E, Op::Null));
    return true;
  }
  // `t.set_data(v)` (Python's `t.data = v`): t names v's storage, so every
  // holder of t holds what v is (a weak alias makes them all weak).
  if (N == "set_data" && E->getNumArgs() == 1) {
    Rebind(value(E->getArg(0)));
    return true;
  }
  if (N == "value") {
    alias(E, Obj); // the optional's tensor
    return true;
  }
  if (N == "value_or" && E->getNumArgs() == 1) {
    // `o.value_or(d)` is `o ? *o : d`: the optional's value where it holds
    // one, the default on the other side.
    engine::SrcLoc At = TU.loc(E->getBeginLoc());
    VarId O = value(Obj), D = value(E->getArg(0));
    VarId R = B.var();
    VarId T = temp(E, Op::Test);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Test = engine::TestKind::IsNull;
    I.A = O;
    uint32_t Empty = B.block(), Held = B.block(), Join = B.block();
    B.branch(T, Empty, Held, At);
    B.setBlock(Empty);
    engine::Inst &FromD = B.emit(Op::Copy, At);
    FromD.Dst = R;
    FromD.A = D;
    B.jump(Join, At);
    B.setBlock(Held);
    engine::Inst &FromO = B.emit(Op::Copy, At);
    FromO.Dst = R;
    FromO.A = O;
    B.jump(Join, At);
    B.setBlock(Join);
    set(E, R);
    return true;
  }
  // A view (`t.slice(0, 0, n)`, `t.view({-1})`) is another handle of t's
  // memory: what it is handed to reads t, and t's holders keep it alive.
  if (isTypedTensorViewOp(N) && isTensorType(E->getType())) {
    alias(E, Obj);
    return true;
  }
  // What a handle says about its memory is not an operation on it.
  return llvm::StringSwitch<bool>(N)
      .Cases({"numel", "size", "sizes", "dim", "nbytes", "itemsize"}, true)
      .Cases({"strides", "stride"}, true)
      .Cases({"options", "dtype", "device", "scalar_type", "is_contiguous"},
             true)
      .Cases({"storage_offset", "element_size", "use_count", "get_device",
              "is_same"},
             true)
      .Cases({"sym_numel", "sym_sizes", "layout", "has_storage"}, true)
      .Default(false);
}

//===--- calls
//-------------------------------------------------------------===//

void FunctionLowering::userCall(const Expr *Result, SourceLocation Loc,
                                const FunctionDecl *Callee, VarId Recv,
                                ArrayRef<const Expr *> Args,
                                ArrayRef<engine::FnId> Targets) {
  std::vector<VarId> Values;
  for (const Expr *A : Args)
    Values.push_back(isa<CXXDefaultArgExpr>(A) ? NoVar : value(A));
  VarId Dst = NoVar;
  if (Result && !Callee->getReturnType()->isVoidType())
    Dst = B.var();
  engine::Inst &I = emit(Op::Call, Loc);
  I.Dst = Dst;
  I.Name = Callee->getNameAsString();
  if (Recv != NoVar) {
    I.Args.push_back(Recv);
    I.ArgLocs.push_back(TU.loc(Loc));
  }
  for (size_t K = 0; K < Values.size(); ++K)
    if (Values[K] != NoVar) {
      I.Args.push_back(Values[K]);
      I.ArgLocs.push_back(TU.loc(Args[K]->getExprLoc()));
    }
  for (engine::FnId T : Targets) {
    const FunctionDecl *TD = TU.Out.Decls[T];
    engine::CallTarget CT;
    CT.Fn = T;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(TD); MD && MD->isInstance())
      CT.Args.push_back(Recv);
    for (unsigned P = 0; P < TD->getNumParams(); ++P)
      CT.Args.push_back(P < Values.size() ? Values[P] : NoVar);
    I.Targets.push_back(std::move(CT));
  }
  if (Result && Dst != NoVar)
    set(Result, Dst);
}

void FunctionLowering::externalCall(const CallExpr *E, const FunctionDecl *FD,
                                    const Expr *Obj,
                                    ArrayRef<const Expr *> Args) {
  std::string Name = FD->getNameAsString();
  // What an operation reads: its tensors, and the raw addresses it is
  // handed, directly (`void *`) or in an object of arguments it is handed
  // by reference or pointer (`const AttnTaskArgs &`).
  auto Reads = [&](const Expr *A) {
    if (holdsTensor(A->getType()))
      return true;
    // As passed: an array (`void *args[]`) decays to a pointer.
    QualType T = A->getType().getNonReferenceType();
    if (T->isPointerType()) {
      QualType P = T->getPointeeType();
      return !P->isFunctionType() && !P->isAnyCharacterType();
    }
    const Expr *S = A->IgnoreParenImpCasts();
    return S->isLValue() &&
           S->getType().getNonReferenceType()->getAsCXXRecordDecl();
  };
  auto UseOf = [&](const Expr *A) {
    if (isa<CXXDefaultArgExpr>(A) || !Reads(A))
      return;
    VarId V = value(A);
    engine::Inst &I = emit(Op::Use, A->getBeginLoc());
    I.A = V;
    I.Name = Name;
  };
  if (Obj && holdsTensor(Obj->getType()))
    UseOf(Obj);
  for (const Expr *A : Args)
    UseOf(A);
  for (const Expr *A : Args)
    handedClosure(E, A);
  if (FD->getReturnType()->isReferenceType()) {
    // An in-place op returns its receiver (`t.copy_(x)`).
    if (Obj && holdsTensor(Obj->getType()) && isTensorType(E->getType()))
      alias(E, Obj);
    return;
  }
  // A function of the project defined in another translation unit: what
  // this one sees of it (a new tensor, its tensors used) stands until the
  // run links the units' programs, which may put the body in its place.
  std::string Link = TU.linkName(FD);
  // What the body may be handed: the tensors (lowered for their uses
  // above) and the caller's objects (a `Cache &` or `Cache *` the body
  // stores into or reads), lowered here, before the result's Alloc that
  // the call replaces when linked. A temporary (`{16}`, a string) is no
  // object the caller reads again.
  auto Passed = [&](const Expr *A) {
    if (isa<CXXDefaultArgExpr>(A))
      return false;
    if (holdsTensor(A->getType()))
      return true;
    const Expr *S = A->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && U->getOpcode() == UO_AddrOf)
      S = U->getSubExpr()->IgnoreParenImpCasts();
    QualType T = S->getType().getNonReferenceType();
    if (T->isPointerType())
      T = T->getPointeeType();
    return S->isLValue() && T->getAsCXXRecordDecl();
  };
  llvm::SmallVector<VarId, 0> Values;
  llvm::SmallVector<engine::SrcLoc, 0> Locs;
  if (!Link.empty()) {
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isInstance()) {
      Values.push_back(Obj ? value(Obj) : This); // the receiver, parameter 0
      Locs.push_back(TU.loc(E->getBeginLoc()));
    }
    for (const Expr *A : Args) {
      Values.push_back(Passed(A) ? value(A) : NoVar);
      Locs.push_back(TU.loc(A->getExprLoc()));
    }
  }
  bool Result = holdsTensor(E->getType());
  const uint32_t AllocBlock = B.current();
  size_t AllocIdx = 0;
  if (Result) {
    alloc(E, engine::AllocKind::Tensor, Args);
    AllocIdx = F.Blocks[AllocBlock].Insts.size() - 1;
  }
  if (Link.empty())
    return;
  engine::Inst &I = Result ? F.Blocks[AllocBlock].Insts[AllocIdx]
                           : emit(Op::Const, E->getBeginLoc());
  I.Name = Name;
  I.Link = std::move(Link);
  I.Args = std::move(Values);
  I.ArgLocs = std::move(Locs);
}

void FunctionLowering::handedClosure(const CallExpr *E, const Expr *A) {
  // Through the temporaries and the converting constructor of a callable
  // parameter (`SetCustomHandler(std::function<int()>)` handed a lambda).
  for (int Depth = 0; Depth < 4; ++Depth) {
    A = A->IgnoreImplicit()->IgnoreParens();
    const auto *C = dyn_cast<CXXConstructExpr>(A);
    if (!C || C->getNumArgs() != 1)
      break;
    A = C->getArg(0);
  }
  const CXXRecordDecl *RD =
      A->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->isLambda())
    return;
  const CXXMethodDecl *CallOp = RD->getLambdaCallOperator();
  engine::FnId Fn = CallOp ? TU.fnOf(CallOp) : -1;
  if (Fn < 0)
    return;
  // Its receiver is the closure; its parameters are the library's to pass.
  userCall(nullptr, E->getBeginLoc(), CallOp, value(A), {}, {Fn});
}

void FunctionLowering::unknownCall(const CallExpr *E,
                                   ArrayRef<const Expr *> Args) {
  llvm::SmallVector<VarId, 0> Values;
  for (const Expr *A : Args)
    if (!isa<CXXDefaultArgExpr>(A))
      Values.push_back(value(A));
  VarId Dst = E->getType()->isVoidType() ? NoVar : B.var();
  engine::Inst &I = emit(Op::Call, E->getBeginLoc());
  I.Dst = Dst;
  I.Args = std::move(Values);
  // `cb(x)` on a std::function: its object names it.
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
  I.Name = spelling(Op && Op->getNumArgs() ? Op->getArg(0) : E->getCallee());
  if (Dst != NoVar)
    set(E, Dst);
}

/// `make_shared<C>(..)` / `make_unique<C>(..)` of an in-TU class.
static QualType madeType(const FunctionDecl *FD) {
  if (!FD->getIdentifier() ||
      (FD->getName() != "make_shared" && FD->getName() != "make_unique"))
    return {};
  const TemplateArgumentList *TA = FD->getTemplateSpecializationArgs();
  if (!TA || TA->size() == 0 || TA->get(0).getKind() != TemplateArgument::Type)
    return {};
  return TA->get(0).getAsType();
}

void FunctionLowering::call(const CallExpr *E) {
  // A task update of one call (cudaGraphExecKernelNodeSetParams): the call
  // binds what it is handed, as an operation between an update's begin
  // and end does.
  const FunctionDecl *FD = E->getDirectCallee();
  bool Update = FD && TU.fnOf(FD) < 0 &&
                Cat.TaskUpdateCalls.matches(qualifiedName(FD));
  auto Region = [&](Op K) {
    engine::Inst &I = emit(K, E->getBeginLoc());
    I.Region = engine::RegionKind::TaskUpdate;
    I.Name = FD->getNameAsString();
  };
  if (Update)
    Region(Op::RegionBegin);
  callBody(E);
  if (Update)
    Region(Op::RegionEnd);
}

void FunctionLowering::callBody(const CallExpr *E) {
  const FunctionDecl *Callee = E->getDirectCallee();
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
  const Expr *Obj = nullptr;
  std::vector<const Expr *> Args(E->arg_begin(), E->arg_end());
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    Obj = MC->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (MD && MD->isInstance() && !Args.empty()) {
      Obj = Args.front();
      Args.erase(Args.begin());
    }
    bool UserOp = Callee && TU.fnOf(Callee) >= 0 && !Callee->isDefaulted();
    OverloadedOperatorKind K = Op->getOperator();
    unsigned N = Op->getNumArgs();
    if (!UserOp) {
      if (K == OO_Equal && N == 2)
        return assign(E, Op->getArg(0), Op->getArg(1));
      if (K == OO_Subscript && N == 2) {
        if (isContainerType(Op->getArg(0)->getType()))
          setPlace(E, element(Op->getArg(0), isMap(Op->getArg(0)->getType())
                                                 ? Op->getArg(1)
                                                 : nullptr));
        return;
      }
      if ((K == OO_Arrow || K == OO_Star) && N == 1) {
        alias(E, Op->getArg(0));
        if (Val *X = find(E))
          X->Iterator = false;
        return;
      }
      if ((K == OO_EqualEqual || K == OO_ExclaimEqual) && N == 2)
        return compare(E, Op->getArg(0), Op->getArg(1), K == OO_EqualEqual,
                       false);
      if ((K == OO_Less || K == OO_LessEqual || K == OO_Greater ||
           K == OO_GreaterEqual) &&
          N == 2)
        return compare(E, Op->getArg(0), Op->getArg(1), false, true);
      if (K == OO_PlusPlus || K == OO_MinusMinus)
        return;
    }
  }
  if (!Callee) {
    if (Obj)
      Args.insert(Args.begin(), Obj);
    return unknownCall(E, Args);
  }
  if (Callee->getBuiltinID() == Builtin::BI__builtin_expect && !Args.empty())
    return alias(E, Args.front());
  if (Callee->isInStdNamespace() && Callee->getIdentifier() &&
      (Callee->getName() == "move" || Callee->getName() == "forward") &&
      Args.size() == 1)
    return alias(E, Args.front());
  if (catalogCall(E, Callee))
    return;
  if (MD && Obj) {
    QualType OT = Obj->getType();
    if (OT->isPointerType())
      OT = OT->getPointeeType();
    if (isContainerType(OT) && containerCall(E, MD, Obj))
      return;
    if ((isTensorType(OT) || isOptionalType(OT)) && tensorMethod(E, MD, Obj))
      return;
  }
  const auto *ME = dyn_cast<MemberExpr>(E->getCallee()->IgnoreParens());
  bool Virtual = MD && MD->isVirtual() && !(ME && ME->hasQualifier());
  std::vector<engine::FnId> Targets = TU.targetsOf(Callee, Virtual);
  if (!Targets.empty()) {
    VarId Recv = NoVar;
    if (MD && MD->isInstance())
      Recv = Obj ? value(Obj) : This;
    return userCall(E, E->getBeginLoc(), Callee, Recv, Args, Targets);
  }
  bool Interface = Virtual && TU.classOf(MD->getParent()) >= 0;
  bool StdFunction = MD && MD->getParent()->isInStdNamespace() &&
                     MD->getParent()->getIdentifier() &&
                     MD->getParent()->getName() == "function";
  if (Interface || StdFunction) {
    // Code no one in the TU can name: the arguments escape.
    if (Obj)
      Args.insert(Args.begin(), Obj);
    return unknownCall(E, Args);
  }
  if (Callee->isInStdNamespace()) {
    if (engine::ClassId C = TU.classOf(madeType(Callee)); C >= 0)
      set(E, fresh(E, engine::AllocKind::Object, C));
    return; // the standard library keeps no tensor of ours alive
  }
  externalCall(E, Callee, Obj, Args);
}
