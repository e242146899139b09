//===- LowerExpr.cpp - One expression, its operands already lowered -------===//
//
// Values are kept per expression (Val): a variable, or a place whose read
// is emitted only when a value is needed, so the left side of an
// assignment is a store and not a read, and `m.find(k)` is a place the
// comparison with `m.end()` can test.
//
//===----------------------------------------------------------------------===//
#include "lower/LowerImpl.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "common/LayerKeys.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
using namespace tether::cxx::lower;
using engine::Op;

//===--- values
//------------------------------------------------------------===//

const Expr *lower::peelValue(const Expr *E) {
  while (E) {
    const Expr *Before = E;
    E = E->IgnoreParens();
    if (const auto *FE = dyn_cast<FullExpr>(E))
      E = FE->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    else if (const auto *DI = dyn_cast<CXXDefaultInitExpr>(E))
      E = DI->getExpr(); // an in-class initialiser, lowered in the ctor
    if (E == Before)
      return E;
  }
  return E;
}

const Expr *lower::strip(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    const Expr *Next = peelValue(E)->IgnoreImpCasts();
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

Val *FunctionLowering::find(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    if (auto It = Vals.find(E); It != Vals.end())
      return &It->second;
    const Expr *Next = peelValue(E);
    if (Next == E) {
      if (const auto *IC = dyn_cast<ImplicitCastExpr>(E))
        Next = IC->getSubExpr(); // a cast the CFG did not list
      else
        return nullptr;
    }
    E = Next;
  }
  return nullptr;
}

engine::Inst &FunctionLowering::emit(Op K, SourceLocation L) {
  return B.emit(K, TU.loc(L));
}

VarId FunctionLowering::temp(const Expr *At, Op K) {
  VarId T = B.var();
  emit(K, At ? At->getBeginLoc() : SourceLocation()).Dst = T;
  return T;
}

VarId FunctionLowering::value(const Expr *E) {
  if (!E)
    return temp(nullptr, Op::Const);
  if (Val *X = find(E)) {
    if (X->V != NoVar)
      return X->V;
    if (X->HasPlace) {
      engine::PlaceRef P = X->P;
      bool Absent = X->MayBeAbsent;
      VarId T = B.var();
      engine::ClassId Handed = X->Handed;
      engine::Inst &I = emit(Op::Read, E->getBeginLoc());
      I.Dst = T;
      I.P = std::move(P);
      I.MayBeAbsent = Absent;
      I.Class = Handed;
      find(E)->V = T;
      return T;
    }
  }
  if (isa<CXXThisExpr>(strip(E)) && This != NoVar && !inLambda())
    return This;
  VarId T = temp(E, Op::Const);
  Vals[E].V = T;
  return T;
}

VarId FunctionLowering::truth(const Expr *E) {
  if (Val *X = find(E); X && X->Truth && X->V != NoVar)
    return X->V;
  // A bool a call returned: the engine knows whether the callee returns a
  // capture predicate (an in-tree wrapper of one).
  if (Val *X = find(E); X && X->V != NoVar && E->getType()->isBooleanType() &&
                        isa<CallExpr>(strip(E)))
    return X->V;
  return temp(E, Op::Const); // a condition the lowering cannot read
}

void FunctionLowering::set(const Expr *E, VarId V, bool Truth) {
  Val &X = Vals[E];
  X = Val();
  X.V = V;
  X.Truth = Truth;
}

void FunctionLowering::setPlace(const Expr *E, engine::PlaceRef P,
                                bool MayBeAbsent, bool Iterator) {
  Val &X = Vals[E];
  X = Val();
  X.HasPlace = true;
  X.P = std::move(P);
  X.MayBeAbsent = MayBeAbsent;
  X.Iterator = Iterator;
}

void FunctionLowering::alias(const Expr *E, const Expr *Of) {
  if (Val *O = find(Of)) {
    Val Copy = *O;
    Vals[E] = std::move(Copy);
  }
}

std::string FunctionLowering::spelling(const Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = CharSourceRange::getTokenRange(
      SM.getExpansionRange(E->getSourceRange()).getAsRange());
  std::string S = Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
  if (S.size() > 80)
    S = S.substr(0, 77) + "...";
  return S;
}

std::string FunctionLowering::keySpelling(const Expr *Key) {
  if (!Key || Key->isValueDependent() || Key->isTypeDependent())
    return {};
  const Expr *K = strip(Key);
  if (const auto *SL = dyn_cast<StringLiteral>(K))
    return "\"" + SL->getBytes().str() + "\"";
  if (K->getType()->isIntegralOrEnumerationType())
    if (std::optional<llvm::APSInt> V = K->getIntegerConstantExpr(Ctx))
      return llvm::toString(*V, 10);
  return {};
}

engine::PlaceRef FunctionLowering::element(const Expr *Container,
                                           const Expr *Key) {
  engine::PlaceRef P;
  P.Kind = engine::PlaceRef::Element;
  std::string BaseSpelling;
  if (Val *C = find(Container); C && C->HasPlace)
    BaseSpelling = C->P.Spelling;
  P.Base = value(Container);
  if (BaseSpelling.empty() && size_t(P.Base) < F.VarNames.size())
    BaseSpelling = F.VarNames[P.Base];
  P.Key = keySpelling(Key);
  P.KeyPerLayer = Key && namesLayer(Key);
  P.Spelling = BaseSpelling + "[]";
  return P;
}

bool FunctionLowering::namesLayer(const Expr *Key) const {
  llvm::SmallVector<const Stmt *, 16> Work{Key};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    const NamedDecl *D = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      D = DRE->getDecl();
    else if (const auto *ME = dyn_cast<MemberExpr>(S))
      D = ME->getMemberDecl();
    if (D && D->getIdentifier() && isLayerName(D->getName()))
      return true;
    for (const Stmt *C : S->children())
      Work.push_back(C);
  }
  return false;
}

void FunctionLowering::bindName(VarId V, llvm::StringRef Name) {
  auto It = AllocOf.find(V);
  if (It == AllocOf.end() || !Cat.WorkspaceNames.matches(Name))
    return;
  engine::Inst &I = F.Blocks[It->second.first].Insts[It->second.second];
  if (I.Alloc == engine::AllocKind::Tensor)
    I.Alloc = engine::AllocKind::Workspace;
}

/// Whether Pred holds for Root or any statement below it.
static bool anyStmt(const Stmt *Root,
                    llvm::function_ref<bool(const Stmt *)> Pred) {
  llvm::SmallVector<const Stmt *, 16> Work{Root};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (Pred(S))
      return true;
    for (const Stmt *C : S->children())
      Work.push_back(C);
  }
  return false;
}

/// `this->f` or `f` of the enclosing object: one layer's own state.
static bool readsOwnField(const Stmt *S) {
  const auto *ME = dyn_cast<MemberExpr>(S);
  return ME && isa<FieldDecl>(ME->getMemberDecl()) &&
         isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts());
}

void FunctionLowering::keyCarriesSize(const Expr *ValueE, const Expr *KeyE) {
  if (!ValueE || !KeyE)
    return;
  const Expr *Made = strip(ValueE);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Made))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->hasLocalStorage() && V->getInit())
      Made = strip(V->getInit());
  const Val *MV = find(Made);
  auto It = MV ? AllocOf.find(MV->V) : AllocOf.end();
  if (It == AllocOf.end())
    return;
  engine::Inst &I = F.Blocks[It->second.first].Insts[It->second.second];
  if (!I.SizedByCaller)
    return;
  // The parameters an expression names; false when it reads a field of
  // this object (one layer's own size, which no key carries).
  auto Params = [&](const Expr *E, llvm::SmallPtrSet<const Decl *, 4> &Out) {
    return !anyStmt(E, [&](const Stmt *S) {
      if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
        if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
          Out.insert(P);
      return readsOwnField(S);
    });
  };
  llvm::SmallPtrSet<const Decl *, 4> Sizing, Key;
  if (!Params(Made, Sizing) || !Params(KeyE, Key))
    return;
  for (const Decl *P : Sizing)
    if (!Key.count(P))
      return;
  I.SizedByCaller = false;
}

bool FunctionLowering::sizedByCaller(const Expr *E) const {
  // As in the Python lowering: a size is one caller's when it is a
  // parameter as passed (`{need}`) or computes from the object's own
  // fields (one layer's head count). An expression of parameters
  // (`{n * 2}`, `q.numel()`, tensor options) or a maximum query is the same
  // for every layer.
  E = strip(E);
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    for (const Expr *X : IL->inits())
      if (sizedByCaller(X))
        return true;
    return false;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) { // IntArrayRef({..})
    for (const Expr *X : CE->arguments())
      if (sizedByCaller(X))
        return true;
    return false;
  }
  if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(E))
    return sizedByCaller(SIL->getSubExpr());
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
        P && P->getDeclContext() == FD)
      return true;
  return anyStmt(E, readsOwnField);
}

//===--- expressions
//-------------------------------------------------------===//

void FunctionLowering::expr(const Expr *E) {
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    // A conversion to a number or a truth value is a value of its own,
    // unless it carries a truth value the lowering computed.
    const Val *Sub = find(C->getSubExpr());
    bool Scalar =
        E->getType()->isArithmeticType() || E->getType()->isEnumeralType();
    if (Sub && (Sub->Truth || !Scalar))
      alias(E, C->getSubExpr());
    return;
  }
  if (isa<FullExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, ParenExpr>(
          E)) {
    alias(E, peelValue(E) == E ? nullptr : peelValue(E));
    return;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return declRef(DRE);
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return member(ME);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return call(Call);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return construct(CE);
  if (const auto *New = dyn_cast<CXXNewExpr>(E)) {
    if (New->getConstructExpr())
      alias(E, New->getConstructExpr());
    return;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return unary(U);
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return binary(BO);
  if (isa<ConditionalOperator>(E)) {
    if (auto It = Joins.find(E); It != Joins.end())
      set(E, It->second);
    return;
  }
  if (isa<CXXThisExpr>(E)) {
    if (This == NoVar)
      return;
    if (!inLambda())
      return set(E, This);
    // Inside a lambda, `this` is the enclosing object the closure keeps.
    engine::PlaceRef P;
    P.Kind = engine::PlaceRef::Field;
    P.Base = This;
    P.Name = P.Spelling = "this";
    return setPlace(E, std::move(P));
  }
  if (const auto *L = dyn_cast<LambdaExpr>(E))
    return closure(L);
  if (const auto *IL = dyn_cast<InitListExpr>(E);
      IL && E->getType()->isArrayType() &&
      E->getType()->getPointeeOrArrayElementType()->isPointerType()) {
    // `void *args[] = {&query, &workspace}`: a kernel's argument array,
    // each element the address of an argument (`&p` is what p holds, for
    // where memory is held). A task handed the array reads what they hold.
    VarId C = fresh(E, engine::AllocKind::Container);
    for (const Expr *Init : IL->inits())
      storeElement(C, value(Init), Init->getBeginLoc());
    return set(E, C);
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E))
    if (const auto *RD = E->getType()->getAsCXXRecordDecl();
        RD && !RD->isUnion() && (TU.classOf(RD) >= 0 || RD->isCLike()))
      return aggregate(IL, RD);
  if (isa<CXXThrowExpr>(E)) {
    Throws = true;
    RetLoc = E->getBeginLoc();
  }
}

std::string lower::staticLocalName(const VarDecl *V) {
  // One global per function (a lambda inside it names the same one).
  const auto *Owner =
      dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  while (Owner && isa<CXXMethodDecl>(Owner) &&
         cast<CXXMethodDecl>(Owner)->getParent()->isLambda())
    Owner = dyn_cast_or_null<FunctionDecl>(
        cast<CXXMethodDecl>(Owner)->getParent()->getParentFunctionOrMethod());
  return (Owner ? qualifiedName(Owner) : std::string()) +
         "::" + V->getName().str();
}

bool FunctionLowering::inLambda() const {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && MD->getParent()->isLambda();
}

void FunctionLowering::closure(const LambdaExpr *L) {
  // A closure is an object whose members are its captures (the lambda's
  // body reads them as fields of its receiver).
  std::vector<std::pair<std::string, VarId>> Members;
  auto Init = L->capture_init_begin();
  for (const LambdaCapture &C : L->captures()) {
    const Expr *IE = Init == L->capture_init_end() ? nullptr : *Init++;
    if (C.capturesThis() && This != NoVar)
      Members.push_back({"this", IE ? value(IE) : This});
    else if (C.capturesVariable() && IE)
      if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
        Members.push_back({V->getName().str(), value(IE)});
  }
  VarId Obj = fresh(L, engine::AllocKind::Object, -1, "lambda");
  for (auto &[Name, V] : Members)
    storeField(Obj, Name, Name, V, L->getBeginLoc());
  set(L, Obj);
}

VarId FunctionLowering::fresh(const Expr *At, engine::AllocKind K,
                              engine::ClassId C, llvm::StringRef Name) {
  VarId V = temp(At, Op::Alloc);
  engine::Inst &A = F.Blocks[B.current()].Insts.back();
  A.Alloc = K;
  A.Class = C;
  A.Name = Name.str();
  return V;
}

void FunctionLowering::storeElement(VarId Base, VarId X, SourceLocation At) {
  engine::Inst &S = emit(Op::Store, At);
  S.P.Kind = engine::PlaceRef::Element;
  S.P.Base = Base;
  S.P.Spelling = "[]";
  S.A = X;
}

void FunctionLowering::storeField(VarId Base, llvm::StringRef Name,
                                  llvm::StringRef Spelling, VarId X,
                                  SourceLocation At) {
  engine::Inst &S = emit(Op::Store, At);
  S.P.Kind = engine::PlaceRef::Field;
  S.P.Base = Base;
  S.P.Name = Name.str();
  S.P.Spelling = Spelling.str();
  S.A = X;
}

void FunctionLowering::aggregate(const InitListExpr *IL,
                                 const CXXRecordDecl *RD) {
  // `GraphEntry{&graph, seqlen}`, `cudaKernelNodeParams p = {}`: a fresh
  // object of the class (in-TU, or a library's C struct) whose fields hold
  // the initialisers, in declaration order after the bases'.
  const std::string Name = RD->getName().str();
  VarId Obj = fresh(IL, engine::AllocKind::Object, TU.classOf(RD), Name);
  unsigned Next = RD->getNumBases();
  for (const FieldDecl *Fd : RD->fields()) {
    if (Next >= IL->getNumInits())
      break;
    const Expr *Init = IL->getInit(Next++);
    if (Fd->isUnnamedBitField() || isa<ImplicitValueInitExpr>(Init))
      continue;
    VarId X = value(Init);
    if (X == NoVar)
      continue;
    storeField(Obj, Fd->getName(), Name + "." + Fd->getName().str(), X,
               Init->getBeginLoc());
  }
  set(IL, Obj);
}

void FunctionLowering::declRef(const DeclRefExpr *E) {
  const auto *V = dyn_cast<VarDecl>(E->getDecl());
  // A structured binding of a tuple-like object is its hidden variable; of
  // an aggregate, the member of the decomposed object that it names.
  if (const auto *BD = dyn_cast<BindingDecl>(E->getDecl())) {
    if (!BD->getHoldingVar())
      return memberBinding(E, BD);
    V = BD->getHoldingVar();
  }
  if (!V)
    return; // functions, enumerators: constants
  if (V->hasLocalStorage()) {
    if (auto It = Bound.find(V); It != Bound.end()) {
      Val Copy = It->second;
      Vals[E] = std::move(Copy);
      Vals[E].V = NoVar; // read again at this use
      return;
    }
    // A local may hold a truth value: a bool, or a capture status kept as
    // its enum or cast to a number (`auto st = currentStreamCaptureStatus();
    // if (st == CaptureStatus::None)`); the engine knows whether it does.
    if (auto It = Vars.find(V); It != Vars.end())
      return set(E, It->second,
                 V->getType()->isIntegralOrEnumerationType());
    // A local of the enclosing function inside a lambda: a member of the
    // closure object.
    if (inLambda() && This != NoVar) {
      engine::PlaceRef P;
      P.Kind = engine::PlaceRef::Field;
      P.Base = This;
      P.Name = V->getName().str();
      P.Spelling = P.Name;
      setPlace(E, std::move(P));
    }
    return;
  }
  if (TU.inSystemHeader(V->getLocation())) {
    // std::nullopt is the empty optional; other library constants are no
    // memory of the program.
    if (const CXXRecordDecl *RD = V->getType()->getAsCXXRecordDecl();
        RD && RD->getIdentifier() && RD->getName() == "nullopt_t")
      set(E, temp(E, Op::Null));
    return;
  }
  engine::PlaceRef P;
  P.Kind = engine::PlaceRef::Global;
  if (V->isStaticLocal())
    P.Name = staticLocalName(V);
  else
    P.Name = V->getQualifiedNameAsString();
  P.Local = !V->isExternallyVisible();
  P.Spelling = V->getName().str();
  if (const auto *RD = dyn_cast<CXXRecordDecl>(V->getDeclContext()))
    P.Spelling = RD->getName().str() + "::" + P.Spelling;
  setPlace(E, std::move(P));
}


void FunctionLowering::memberBinding(const DeclRefExpr *E,
                                     const BindingDecl *BD) {
  // `auto &[n, ws] : entries` over structs: `ws` is `<element>.ws`. The
  // binding's expression is not in the CFG; it is lowered at each use, as
  // the member access it stands for. An element of an array names no place.
  const Expr *Binding = BD->getBinding();
  const auto *ME =
      dyn_cast_or_null<MemberExpr>(Binding ? Binding->IgnoreImplicit() : nullptr);
  const auto *Whole =
      ME ? dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreImplicit()) : nullptr;
  if (!Whole || !isa<DecompositionDecl>(Whole->getDecl()))
    return;
  declRef(Whole);
  member(ME);
  alias(E, ME);
}

void FunctionLowering::member(const MemberExpr *E) {
  const ValueDecl *M = E->getMemberDecl();
  if (!M->getIdentifier())
    return;
  if (isa<FieldDecl, VarDecl>(M) &&
      Cat.CapturePredicates.matches(M->getQualifiedNameAsString())) {
    set(E, temp(E, Op::Test), true); // Test defaults to CapturePredicate
    return;
  }
  if (const auto *V = dyn_cast<VarDecl>(M)) {
    if (V->hasLocalStorage() || TU.inSystemHeader(V->getLocation()))
      return;
    engine::PlaceRef P;
    P.Kind = engine::PlaceRef::Global;
    P.Name = V->getQualifiedNameAsString();
    P.Local = !V->isExternallyVisible();
    if (const auto *RD = dyn_cast<CXXRecordDecl>(V->getDeclContext()))
      P.Spelling = RD->getName().str() + "::" + V->getName().str();
    setPlace(E, std::move(P));
    return;
  }
  const auto *Fld = dyn_cast<FieldDecl>(M);
  if (!Fld)
    return; // a method: the call lowers it
  // An element of a map through its iterator: `it->second` is the slot.
  QualType BaseT = E->getBase()->getType();
  if (E->isArrow() && BaseT->isPointerType())
    BaseT = BaseT->getPointeeType();
  if (isPair(BaseT)) {
    // `m.emplace(k, v).first`: the iterator to the slot emplace filled.
    if (!E->isArrow() && Fld->getName() == "first" &&
        isa<CallExpr>(strip(E->getBase()))) {
      alias(E, E->getBase());
      return;
    }
    if (Fld->getName() == "second")
      alias(E, E->getBase());
    if (Val *X = find(E))
      X->Iterator = false;
    return;
  }
  // A library type's internals are its own; a library's C struct is the
  // caller's to fill (`params.kernelParams = args`).
  const auto *Owner = dyn_cast<CXXRecordDecl>(Fld->getParent());
  if (TU.inSystemHeader(Fld->getLocation()) && !(Owner && Owner->isCLike()))
    return;
  engine::PlaceRef P;
  P.Kind = engine::PlaceRef::Field;
  P.Base = value(E->getBase());
  P.Name = Fld->getName().str();
  P.Spelling = Fld->getParent()->getName().str() + "::" + P.Name;
  setPlace(E, std::move(P));
  if (engine::ClassId C = TU.handedInClass(Fld); C >= 0)
    find(E)->Handed = C;
}

void FunctionLowering::unary(const UnaryOperator *E) {
  switch (E->getOpcode()) {
  case UO_LNot: {
    const Val *Sub = find(E->getSubExpr());
    if (!Sub || !Sub->Truth)
      return;
    VarId T = temp(E, Op::Not);
    F.Blocks[B.current()].Insts.back().A = Sub->V;
    set(E, T, true);
    return;
  }
  case UO_Deref:
  case UO_AddrOf:
    // A pointer to an object is the object, for where memory is held.
    alias(E, E->getSubExpr());
    if (Val *X = find(E))
      X->Iterator = false;
    return;
  default:
    return;
  }
}

void FunctionLowering::binary(const BinaryOperator *E) {
  switch (E->getOpcode()) {
  case BO_Assign:
    return assign(E, E->getLHS(), E->getRHS());
  case BO_EQ:
  case BO_NE:
    return compare(E, E->getLHS(), E->getRHS(), E->getOpcode() == BO_EQ, false);
  case BO_LT:
  case BO_LE:
  case BO_GT:
  case BO_GE:
    return compare(E, E->getLHS(), E->getRHS(), false, true);
  case BO_Comma:
    return alias(E, E->getRHS());
  default:
    return;
  }
}

void FunctionLowering::assign(const Expr *E, const Expr *L, const Expr *R) {
  VarId X = value(R);
  // `it = m.emplace(k, v).first`: an iterator local now denotes another
  // slot (or none we know); the slot it denoted is not written.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(strip(L)))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && !V->getType()->isReferenceType())
      if (auto It = Bound.find(V); It != Bound.end() && It->second.Iterator) {
        Val *RV = find(R);
        if (RV && RV->HasPlace && RV->Iterator)
          It->second = *RV;
        else
          Bound.erase(It);
        return;
      }
  if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(strip(L));
      Sub && Sub->getOperator() == OO_Subscript && Sub->getNumArgs() == 2 &&
      isMap(Sub->getArg(0)->getType()))
    keyCarriesSize(R, Sub->getArg(1));
  storeTo(L, X, E->getBeginLoc());
  alias(E, L);
}

void FunctionLowering::storeTo(const Expr *L, VarId X, SourceLocation At) {
  Val *LV = find(L);
  if (LV && LV->HasPlace) {
    engine::PlaceRef P = LV->P;
    std::string Name = P.Name;
    engine::Inst &I = emit(Op::Store, At);
    I.P = std::move(P);
    I.A = X;
    bindName(X, Name);
  } else if (const auto *DRE = dyn_cast<DeclRefExpr>(strip(L))) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    auto It = V ? Vars.find(V) : Vars.end();
    if (It != Vars.end()) {
      engine::Inst &I = emit(Op::Copy, At);
      I.Dst = It->second;
      I.A = X;
      bindName(X, V->getName());
    }
  }
}

/// The tensor whose size `X.numel()`, `X.size(0)`, `X.sizes()[0]` or
/// `X.nbytes()` reads, or null.
static const Expr *sizeOf(const Expr *E) {
  E = strip(E);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
    E = strip(Op->getArg(0));
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !isTensorType(MC->getObjectType()))
    return nullptr;
  StringRef N = M->getName();
  if (N == "numel" || N == "size" || N == "sizes" || N == "nbytes" ||
      N == "storage_nbytes" || N == "sym_numel")
    return MC->getImplicitObjectArgument();
  return nullptr;
}

static bool isEndCall(const Expr *E) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(strip(E));
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  return M && M->getIdentifier() &&
         (M->getName() == "end" || M->getName() == "cend");
}

static const EnumConstantDecl *enumerator(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(strip(E));
  return DRE ? dyn_cast<EnumConstantDecl>(DRE->getDecl()) : nullptr;
}

static bool isNullopt(const Expr *E) {
  const CXXRecordDecl *RD = strip(E)->getType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "nullopt_t";
}

void FunctionLowering::compare(const Expr *E, const Expr *L, const Expr *R,
                               bool Equal, bool Ordering) {
  auto Negated = [&](VarId V, bool Negate) {
    if (!Negate)
      return set(E, V, true);
    VarId T = temp(E, Op::Not);
    F.Blocks[B.current()].Insts.back().A = V;
    set(E, T, true);
  };
  if (const Expr *Sized = sizeOf(L) ? sizeOf(L) : sizeOf(R)) {
    VarId A = value(Sized);
    VarId T = temp(E, Op::Test);
    engine::Inst &I = F.Blocks[B.current()].Insts.back();
    I.Test = engine::TestKind::SizeCheck;
    I.A = A;
    return set(E, T, true);
  }
  if (Ordering)
    return;
  for (auto [X, Y] : {std::pair(L, R), std::pair(R, L)}) {
    Val *XV = find(X);
    // `it == m.end()`: the slot the iterator found is empty.
    if (XV && XV->HasPlace && XV->Iterator && isEndCall(Y)) {
      engine::PlaceRef P = XV->P;
      VarId T = temp(E, Op::Test);
      engine::Inst &I = F.Blocks[B.current()].Insts.back();
      I.Test = engine::TestKind::PlaceEmpty;
      I.P = std::move(P);
      return Negated(T, !Equal);
    }
    // `opt == std::nullopt`.
    if (isNullopt(Y) && !isNullopt(X)) {
      VarId A = value(X);
      VarId T = temp(E, Op::Test);
      engine::Inst &I = F.Blocks[B.current()].Insts.back();
      I.Test = engine::TestKind::IsNull;
      I.A = A;
      return Negated(T, !Equal);
    }
    if (!XV || !XV->Truth)
      continue;
    VarId V = XV->V;
    // A truth value compared with a constant: `count(k) == 0`, a capture
    // status `!= CaptureStatus::None` / `== CaptureStatus::Active`.
    // The enumerators of torch's CaptureStatus, CUDA's and HIP's
    // cudaStreamCaptureStatusNone/Active, ACL's ..._CAPTURE_STATUS_NONE/ACTIVE.
    if (const EnumConstantDecl *EC = enumerator(Y); EC && EC->getIdentifier()) {
      std::string Name = EC->getName().lower();
      if (llvm::StringRef(Name).ends_with("none"))
        return Negated(V, Equal);
      if (llvm::StringRef(Name).ends_with("active"))
        return Negated(V, !Equal);
      return;
    }
    if (!Y->isValueDependent())
      if (std::optional<llvm::APSInt> C = strip(Y)->getIntegerConstantExpr(Ctx))
        return Negated(V, (C->isZero()) == Equal);
  }
}

void FunctionLowering::construct(const CXXConstructExpr *E) {
  const CXXConstructorDecl *Ctor = E->getConstructor();
  QualType T = E->getType();
  std::vector<const Expr *> Args(E->arg_begin(), E->arg_end());
  switch (E->getConstructionKind()) {
  case CXXConstructionKind::NonVirtualBase:
  case CXXConstructionKind::VirtualBase:
  case CXXConstructionKind::Delegating:
    // Building this object's base (or delegating): the constructor runs on
    // `this`.
    if (This != NoVar && TU.fnOf(Ctor) >= 0)
      userCall(nullptr, E->getBeginLoc(), Ctor, This, Args, {TU.fnOf(Ctor)});
    return;
  default:
    break;
  }
  if (Ctor->isCopyOrMoveConstructor() && E->getNumArgs() >= 1)
    return alias(E, E->getArg(0)); // the same memory, another handle
  if (isTensorType(T) || isOptionalType(T)) {
    if (E->getNumArgs() == 0 || isNullopt(E->getArg(0)))
      return set(E, temp(E, Op::Null));
    if (isOptionalType(T))
      return alias(E, E->getArg(0)); // an optional holding that value
    return alloc(E, engine::AllocKind::Tensor, Args);
  }
  // `std::vector<Layer *> order(layers.rbegin(), layers.rend())`: a copy
  // of another container's elements, from its iterator range.
  if (isContainerType(T) && E->getNumArgs() >= 2)
    if (const auto *Begin = dyn_cast<CXXMemberCallExpr>(
            strip(E->getArg(0))->IgnoreImplicit()))
      if (const CXXMethodDecl *MD = Begin->getMethodDecl();
          MD && MD->getIdentifier() &&
          llvm::is_contained({"begin", "cbegin", "rbegin", "crbegin"},
                             MD->getName()) &&
          isContainerType(Begin->getImplicitObjectArgument()->getType())) {
        engine::PlaceRef P = element(Begin->getImplicitObjectArgument(), nullptr);
        VarId X = B.var();
        engine::Inst &R = emit(Op::Read, E->getBeginLoc());
        R.Dst = X;
        R.P = std::move(P);
        VarId C = fresh(E, engine::AllocKind::Container);
        storeElement(C, X, E->getBeginLoc());
        return set(E, C);
      }
  if (isContainerType(T) && holdsTensor(T)) {
    VarId C = fresh(E, engine::AllocKind::Container);
    // `std::vector<at::Tensor> keep{a, b}` holds its elements.
    for (const Expr *A : Args)
      if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(strip(A)))
        if (const auto *Inits = dyn_cast<InitListExpr>(strip(IL->getSubExpr())))
          for (const Expr *Init : Inits->inits()) {
            if (holdsTensor(Init->getType()))
              storeElement(C, value(Init), Init->getBeginLoc());
          }
    return set(E, C);
  }
  engine::ClassId Cls = TU.classOf(T);
  if (Cls < 0) {
    // A C struct of a library (`cudaKernelNodeParams p;`): a fresh object
    // whose fields hold what the code stores there.
    if (const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
        RD && RD->isCLike() && !RD->isUnion() && E->getNumArgs() == 0)
      set(E, fresh(E, engine::AllocKind::Object, -1, RD->getName()));
    return;
  }
  // An in-TU class: fresh object, then its constructor on it.
  VarId Obj =
      fresh(E, engine::AllocKind::Object, Cls,
            T.getNonReferenceType()->getAsCXXRecordDecl()->getName());
  if (TU.fnOf(Ctor) >= 0)
    userCall(nullptr, E->getBeginLoc(), Ctor, Obj, Args, {TU.fnOf(Ctor)});
  set(E, Obj);
}
