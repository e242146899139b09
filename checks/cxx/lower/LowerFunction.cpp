//===- LowerFunction.cpp - One definition's CFG into IR blocks ------------===//
//
// Each reachable CFG block becomes one IR block (plus the small blocks a
// multi-way branch or an edge into the exit needs). Elements are lowered in
// the CFG's order, which is evaluation order, so an expression's operands
// always have their values when the expression is reached.
//
//===----------------------------------------------------------------------===//
#include "lower/LowerImpl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
using namespace tether::cxx::lower;

FunctionLowering::FunctionLowering(TULowering &TU, const FunctionDecl *FD,
                                   const CFG &G, engine::Function &F)
    : TU(TU), Cat(TU.Cat), Ctx(TU.Ctx), FD(FD), G(G), F(F), B(F) {}

void FunctionLowering::params() {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isInstance())
    This = B.param("this", TU.classOf(MD->getParent()));
  for (const ParmVarDecl *P : FD->parameters())
    Vars[P] = B.param(P->getName().str(), TU.classOf(P->getType()),
                      TU.elementClassOf(P->getType()));
  // A std::optional parameter may be empty whatever the callers pass: its
  // type says so. The entry forks on a value nothing tests; on one side
  // the parameter is the empty optional (from its declaration).
  for (const ParmVarDecl *P : FD->parameters()) {
    if (!isOptionalType(P->getType().getNonReferenceType()))
      continue;
    engine::SrcLoc At = TU.loc(P->getLocation());
    VarId Unknown = B.var();
    B.emit(engine::Op::Const, At).Dst = Unknown;
    uint32_t Empty = B.block(), Join = B.block();
    B.branch(Unknown, Empty, Join, At);
    B.setBlock(Empty);
    VarId Null = B.var();
    B.emit(engine::Op::Null, At).Dst = Null;
    engine::Inst &I = B.emit(engine::Op::Copy, At);
    I.Dst = Vars[P];
    I.A = Null;
    B.jump(Join, At);
    B.setBlock(Join);
  }
}

namespace {
/// The `?:` of a body (not of nested lambdas: they are functions of their
/// own), whose arms are joined into one variable.
struct Conditionals : RecursiveASTVisitor<Conditionals> {
  std::vector<const ConditionalOperator *> Found;
  bool VisitConditionalOperator(ConditionalOperator *CO) {
    Found.push_back(CO);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};
} // namespace

void FunctionLowering::indexConditionals() {
  Conditionals C;
  C.TraverseStmt(const_cast<Stmt *>(FD->getBody()));
  for (const ConditionalOperator *CO : C.Found) {
    VarId Join = B.var();
    Joins[CO] = Join;
    ArmOf[CO->getTrueExpr()->IgnoreParens()] = Join;
    ArmOf[CO->getFalseExpr()->IgnoreParens()] = Join;
  }
}

/// Reachable blocks in reverse post-order, skipping the null successors of
/// edges clang proved impossible.
static std::vector<const CFGBlock *> reachable(const CFG &G) {
  std::vector<const CFGBlock *> Post;
  std::vector<bool> Seen(G.getNumBlockIDs(), false);
  std::vector<std::pair<const CFGBlock *, unsigned>> Stack;
  Seen[G.getEntry().getBlockID()] = true;
  Stack.push_back({&G.getEntry(), 0});
  while (!Stack.empty()) {
    auto &[Blk, Next] = Stack.back();
    if (Next < Blk->succ_size()) {
      const CFGBlock *S = *(Blk->succ_begin() + Next++);
      if (S && !Seen[S->getBlockID()]) {
        Seen[S->getBlockID()] = true;
        Stack.push_back({S, 0});
      }
      continue;
    }
    Post.push_back(Blk);
    Stack.pop_back();
  }
  return {Post.rbegin(), Post.rend()};
}

void FunctionLowering::run() {
  params();
  indexConditionals();
  indexMemberTemps();
  IsProducer = Cat.WorkspaceProducers.matches(qualifiedName(FD));
  Blocks[&G.getEntry()] = B.current();
  for (const CFGBlock *Blk : reachable(G)) {
    if (Blk == &G.getExit())
      continue; // edges into it are returns
    B.setBlock(blockFor(Blk));
    lowerBlock(Blk);
    terminate(Blk);
  }
  B.finish();
}

uint32_t FunctionLowering::blockFor(const CFGBlock *Blk) {
  auto [It, New] = Blocks.try_emplace(Blk, 0);
  if (New)
    It->second = B.block();
  return It->second;
}

void FunctionLowering::lowerBlock(const CFGBlock *Blk) {
  RetVal = NoVar;
  RetLoc = SourceLocation();
  Throws = false;
  for (const CFGElement &E : *Blk)
    element(E);
  flushKills();
}

void FunctionLowering::element(const CFGElement &E) {
  if (auto CS = E.getAs<CFGStmt>()) {
    flushKills();
    const Stmt *S = CS->getStmt();
    if (const auto *Ex = dyn_cast<Expr>(S)) {
      expr(Ex);
      if (auto It = ArmOf.find(Ex); It != ArmOf.end()) {
        VarId V = value(Ex);
        engine::Inst &I = emit(engine::Op::Copy, Ex->getBeginLoc());
        I.Dst = It->second;
        I.A = V;
      }
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          declare(V, DS);
    } else if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      RetLoc = R->getBeginLoc();
      if (R->getRetValue())
        RetVal = value(R->getRetValue());
    }
    return;
  }
  if (auto L = E.getAs<CFGLifetimeEnds>())
    return lifetimeEnds(L->getVarDecl(), L->getTriggerStmt());
  if (auto T = E.getAs<CFGTemporaryDtor>()) {
    // A temporary handle dies at the end of its full expression (`f(at::
    // empty(..))`): its variable is killed where it was made. Only the
    // lowering's own temporaries: a named local is never a temporary.
    const CXXBindTemporaryExpr *BT = T->getBindTemporaryExpr();
    const Val *X = BT && !MemberTemps.count(BT) ? find(BT) : nullptr;
    if (X && X->V >= VarId(F.NumParams) && size_t(X->V) < F.VarNames.size() &&
        F.VarNames[X->V].empty() && holdsTensor(BT->getType()))
      PendingKills.push_back({X->V, BT->getBeginLoc()});
    return;
  }
  flushKills();
  if (auto I = E.getAs<CFGInitializer>())
    return initializer(I->getInitializer());
  if (auto D = E.getAs<CFGAutomaticObjDtor>()) {
    // A destructor of an in-TU class runs its body on the local.
    const VarDecl *V = D->getVarDecl();
    const CXXRecordDecl *RD = V->getType()->getAsCXXRecordDecl();
    const CXXDestructorDecl *Dtor = RD ? RD->getDestructor() : nullptr;
    auto Var = Vars.find(V);
    if (!Dtor || Var == Vars.end() || TU.fnOf(Dtor) < 0)
      return;
    const Stmt *T = D->getTriggerStmt();
    engine::Inst &I =
        emit(engine::Op::Call, T ? T->getEndLoc() : V->getEndLoc());
    I.Name = Dtor->getNameAsString();
    I.Args = {Var->second};
    I.Targets.push_back({TU.fnOf(Dtor), {Var->second}});
  }
}

/// The catalog's name for a guard's class, if the local is one.
static const CXXRecordDecl *guardClass(const VarDecl *V) {
  if (V->getType()->isReferenceType())
    return nullptr;
  const CXXRecordDecl *RD = V->getType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() ? RD : nullptr;
}

void FunctionLowering::declare(const VarDecl *V, const Stmt *S) {
  if (!V->hasLocalStorage()) {
    // A static local: one global of the function, which its initialiser
    // (an empty cache, an undefined tensor too) stores on the first call.
    if (!V->isStaticLocal() || !V->getInit())
      return;
    VarId X = value(V->getInit());
    engine::Inst &I = emit(engine::Op::Store, V->getLocation());
    I.P.Kind = engine::PlaceRef::Global;
    I.P.Name = staticLocalName(V);
    I.P.Local = !V->isExternallyVisible();
    I.P.Spelling = V->getName().str();
    I.A = X;
    bindName(X, V->getName());
    return;
  }
  VarId X = B.var(V->getName().str());
  Vars[V] = X;
  if (const CXXRecordDecl *RD = guardClass(V)) {
    std::string Name = RD->getQualifiedNameAsString();
    bool Capture = Cat.CaptureGuards.matches(Name);
    if (Capture || Cat.StreamSwitches.matches(Name)) {
      engine::RegionKind K =
          Capture ? engine::RegionKind::Capture : engine::RegionKind::Stream;
      Guards[V] = K;
      const auto *CE = dyn_cast_or_null<CXXConstructExpr>(
          V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr);
      // A capture guard's graph is its first argument.
      VarId Graph = Capture && CE && CE->getNumArgs() ? value(CE->getArg(0))
                                                      : NoVar;
      engine::Inst &I = emit(engine::Op::RegionBegin, V->getLocation());
      I.Region = K;
      I.Name = Name;
      I.A = Graph;
      if (!Capture && CE && CE->getNumArgs())
        I.Key = spelling(CE->getArg(0));
      return;
    }
  }
  if (!V->getInit())
    return;
  if (bindPairMember(V))
    return;
  Val *Init = find(V->getInit());
  if (Init && Init->HasPlace &&
      (V->getType()->isReferenceType() || Init->Iterator)) {
    Bound[V] = *Init; // the local denotes that place
    return;
  }
  VarId From = value(V->getInit());
  engine::Inst &I = emit(engine::Op::Copy, V->getLocation());
  I.Dst = X;
  I.A = From;
  bindName(From, V->getName());
}

bool FunctionLowering::bindPairMember(const VarDecl *V) {
  // `auto &[key, t] : map`: each name is a hidden variable initialised
  // with std::get<i> of the element; the second names the element's slot.
  if (!V->isImplicit())
    return false;
  const auto *Get = dyn_cast<CallExpr>(strip(V->getInit()));
  if (!Get || Get->getNumArgs() != 1)
    return false;
  const auto *Ref = dyn_cast<DeclRefExpr>(strip(Get->getArg(0)));
  const auto *DD = Ref ? dyn_cast<DecompositionDecl>(Ref->getDecl()) : nullptr;
  if (!DD || !isPair(DD->getType()))
    return false;
  auto Whole = Bound.find(DD);
  llvm::ArrayRef<BindingDecl *> Names = DD->bindings();
  for (size_t I = 0; I < Names.size(); ++I) {
    if (Names[I]->getHoldingVar() != V)
      continue;
    if (I == 1 && Whole != Bound.end()) {
      Val Slot = Whole->second;
      Slot.Iterator = false;
      Bound[V] = std::move(Slot);
    }
    return true; // the key is a value of no interest
  }
  return false;
}

void FunctionLowering::lifetimeEnds(const VarDecl *V, const Stmt *Trigger) {
  auto Var = Vars.find(V);
  if (Var == Vars.end())
    return;
  SourceLocation Loc = Trigger ? Trigger->getEndLoc() : V->getEndLoc();
  if (Trigger && isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(Trigger))
    Loc = Trigger->getBeginLoc();
  if (auto G = Guards.find(V); G != Guards.end()) {
    engine::Inst &I = emit(engine::Op::RegionEnd, Loc);
    I.Region = G->second;
  }
  // Every local dies at a return; only a scope that ends before the
  // function does is a Kill. Parameters live to the end.
  bool FunctionEnds =
      !Trigger || isa<ReturnStmt>(Trigger) || Trigger == FD->getBody();
  if (FunctionEnds || isa<ParmVarDecl>(V) || V->isImplicit())
    return;
  emit(engine::Op::Kill, Loc).A = Var->second;
}

void FunctionLowering::flushKills() {
  for (auto &[V, L] : PendingKills)
    emit(engine::Op::Kill, L).A = V;
  PendingKills.clear();
}

void FunctionLowering::indexMemberTemps() {
  // A member initialiser's temporary becomes the member itself, although
  // the CFG lists its destruction: it is no temporary that dies.
  const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD);
  if (!Ctor)
    return;
  for (const CXXCtorInitializer *I : Ctor->inits()) {
    // One step at a time: peelValue would skip the temporary itself.
    const Expr *E = I->getInit();
    for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
      if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E)) {
        MemberTemps.insert(BT);
        E = BT->getSubExpr();
      } else if (const auto *DI = dyn_cast<CXXDefaultInitExpr>(E)) {
        E = DI->getExpr();
      } else if (const auto *FE = dyn_cast<FullExpr>(E)) {
        E = FE->getSubExpr();
      } else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
        E = MT->getSubExpr();
      } else if (const auto *C = dyn_cast<ImplicitCastExpr>(E)) {
        E = C->getSubExpr();
      } else if (const auto *P = dyn_cast<ParenExpr>(E)) {
        E = P->getSubExpr();
      } else {
        break;
      }
    }
  }
}

void FunctionLowering::initializer(const CXXCtorInitializer *Init) {
  const FieldDecl *Fld = Init->getAnyMember();
  if (!Fld || This == NoVar || !Init->getInit())
    return; // a base's constructor is a call (see construct)
  VarId X = value(Init->getInit());
  SourceLocation L =
      Init->isWritten() ? Init->getSourceLocation() : Fld->getLocation();
  engine::Inst &I = emit(engine::Op::Store, L);
  I.P.Kind = engine::PlaceRef::Field;
  I.P.Base = This;
  I.P.Name = Fld->getName().str();
  I.P.Spelling = Fld->getParent()->getName().str() + "::" + I.P.Name;
  I.A = X;
  bindName(X, Fld->getName());
}

namespace {
/// Where the condition of a branching statement begins.
SourceLocation conditionOf(const Stmt *T) {
  const Expr *C = nullptr;
  if (!T)
    return {};
  if (const auto *S = dyn_cast<IfStmt>(T))
    C = S->getCond();
  else if (const auto *S = dyn_cast<WhileStmt>(T))
    C = S->getCond();
  else if (const auto *S = dyn_cast<ForStmt>(T))
    C = S->getCond();
  else if (const auto *S = dyn_cast<DoStmt>(T))
    C = S->getCond();
  else if (const auto *S = dyn_cast<AbstractConditionalOperator>(T))
    C = S->getCond();
  else if (const auto *S = dyn_cast<BinaryOperator>(T))
    C = S;
  return C ? C->getBeginLoc() : SourceLocation();
}
} // namespace

void FunctionLowering::terminate(const CFGBlock *Blk) {
  std::vector<const CFGBlock *> Succs;
  for (const CFGBlock::AdjacentBlock &A : Blk->succs())
    Succs.push_back(A.getReachableBlock());
  const Stmt *T = Blk->getTerminatorStmt();
  SourceLocation TLoc = T ? T->getBeginLoc() : SourceLocation();
  engine::SrcLoc TL = TU.loc(TLoc);

  // An edge into the exit returns (with the block's return value).
  auto Target = [&](const CFGBlock *S) -> uint32_t {
    if (S != &G.getExit())
      return blockFor(S);
    uint32_t Cur = B.current(), Ret = B.block();
    B.setBlock(Ret);
    B.ret(RetVal, RetLoc.isValid() ? TU.loc(RetLoc) : F.EndLoc);
    B.setBlock(Cur);
    return Ret;
  };

  if (Throws) {
    B.raise(TU.loc(RetLoc));
    return;
  }
  llvm::SmallVector<const CFGBlock *, 2> Live;
  for (const CFGBlock *S : Succs)
    if (S)
      Live.push_back(S);
  if (Live.empty()) {
    // No way on: a noreturn call (abort, a fatal check) leaves here.
    B.raise(TL.valid() ? TL : F.EndLoc);
    return;
  }
  if (Live.size() == 1) {
    if (Live[0] == &G.getExit()) {
      B.ret(RetVal, RetLoc.isValid() ? TU.loc(RetLoc) : F.EndLoc);
      return;
    }
    B.jump(blockFor(Live[0]), TL);
    return;
  }
  if (Succs.size() == 2) {
    const auto *Cond = dyn_cast_or_null<Expr>(Blk->getTerminatorCondition());
    // The last block of `a || b` (or `&&`) branches on `b`: the CFG has
    // taken the branches on `a` already.
    for (unsigned Depth = 0; Cond && Depth < 64; ++Depth) {
      const auto *BO = dyn_cast<BinaryOperator>(strip(Cond));
      if (!BO || !BO->isLogicalOp() || BO == T)
        break;
      Cond = BO->getRHS();
    }
    VarId C = Cond ? truth(Cond) : B.var();
    if (!Cond) // a static local's "first call?" branch, a `try`: unknown
      B.emit(engine::Op::Const, TL).Dst = C;
    // One statement each: blocks are numbered in the order they are asked
    // for, and argument evaluation order is the compiler's.
    uint32_t IfTrue = Target(Succs[0]);
    uint32_t IfFalse = Target(Succs[1]);
    // A branch is where its condition is written (the capture a predicate
    // opens begins there), as in the Python lowering.
    SourceLocation CL = conditionOf(T);
    B.branch(C, IfTrue, IfFalse, CL.isValid() ? TU.loc(CL) : TL);
    return;
  }
  // A switch (or an indirect goto): a chain of two-way branches on values
  // the lowering cannot read.
  for (size_t I = 0; I + 1 < Live.size(); ++I) {
    VarId C = B.var();
    engine::Inst &K = B.emit(engine::Op::Const, TL);
    K.Dst = C;
    uint32_t Next = I + 2 < Live.size() ? B.block() : Target(Live[I + 1]);
    uint32_t Taken = Target(Live[I]);
    B.branch(C, Taken, Next, TL);
    if (I + 2 < Live.size())
      B.setBlock(Next);
  }
}
