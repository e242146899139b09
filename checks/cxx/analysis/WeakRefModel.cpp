//===- WeakRefModel.cpp ---------------------------------------------------===//
#include "WeakRefModel.h"
#include "WholeDefinition.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/PostOrderIterator.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;

const Expr *tether::cxx::peel(const Expr *E) {
  while (E) {
    const Expr *Before = E;
    E = E->IgnoreParenImpCasts();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    else if (const auto *EC = dyn_cast<ExplicitCastExpr>(E))
      E = EC->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      // A copy or move of a tensor handle shares the same storage.
      if (CE->getNumArgs() >= 1 && CE->getConstructor()->isCopyOrMoveConstructor())
        E = CE->getArg(0);
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // std::move / std::forward denote their argument.
      if (const FunctionDecl *FD = Call->getDirectCallee())
        if (FD->isInStdNamespace() && FD->getIdentifier() &&
            (FD->getName() == "move" || FD->getName() == "forward") &&
            Call->getNumArgs() == 1)
          E = Call->getArg(0);
    }
    if (E == Before)
      return E;
  }
  return E;
}

std::vector<const CFGBlock *> tether::cxx::reversePostOrder(const CFG &G) {
  std::vector<const CFGBlock *> Post;
  std::vector<bool> Seen(G.getNumBlockIDs(), false);
  // Iterative DFS: (block, next successor index).
  std::vector<std::pair<const CFGBlock *, unsigned>> Stack;
  auto Visit = [&](const CFGBlock *Root) {
    if (!Root || Seen[Root->getBlockID()])
      return;
    Seen[Root->getBlockID()] = true;
    Stack.push_back({Root, 0});
    while (!Stack.empty()) {
      auto &[B, Next] = Stack.back();
      if (Next < B->succ_size()) {
        const CFGBlock *S = *(B->succ_begin() + Next++);
        if (S && !Seen[S->getBlockID()]) {
          Seen[S->getBlockID()] = true;
          Stack.push_back({S, 0});
        }
        continue;
      }
      Post.push_back(B);
      Stack.pop_back();
    }
  };
  Visit(&G.getEntry());
  std::vector<const CFGBlock *> Order(Post.rbegin(), Post.rend());
  return Order;
}

ForwardWorklist::ForwardWorklist(const CFG &G)
    : Queued(G.getNumBlockIDs(), true) {
  for (const CFGBlock *B : reversePostOrder(G))
    Work.push_back(B);
}

const CFGBlock *ForwardWorklist::next() {
  if (Work.empty())
    return nullptr;
  const CFGBlock *B = Work.front();
  Work.pop_front();
  Queued[B->getBlockID()] = false;
  return B;
}

void ForwardWorklist::revisit(const CFGBlock *B) {
  if (Queued[B->getBlockID()])
    return;
  Queued[B->getBlockID()] = true;
  Work.push_back(B);
}

const VarDecl *tether::cxx::referencedVar(const Expr *E) {
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(peel(E)))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      return VD;
  return nullptr;
}

namespace {
/// Which local variables may hold a weak reference, and where it was made.
using WeakState = llvm::SmallDenseMap<const VarDecl *, const CallExpr *, 4>;

void mergeInto(WeakState &To, const WeakState &From) {
  for (const auto &[V, Origin] : From)
    To.try_emplace(V, Origin);
}

bool sameState(const WeakState &A, const WeakState &B) {
  if (A.size() != B.size())
    return false;
  for (const auto &[V, Origin] : A) {
    auto It = B.find(V);
    if (It == B.end() || It->second != Origin)
      return false;
  }
  return true;
}

bool isTracked(const VarDecl *V) {
  return V && V->hasLocalStorage();
}
} // namespace

struct WeakRefModel::FunctionInfo {
  const FunctionDecl *FD = nullptr;
  std::unique_ptr<CFG> Cfg;
  bool ReturnsWeak = false;
  llvm::DenseMap<unsigned, ParamConversion> Params;
};

WeakRefModel::WeakRefModel(ASTContext &Ctx, const CompiledCatalog &Catalog)
    : Ctx(Ctx), Catalog(Catalog) {}
WeakRefModel::~WeakRefModel() = default;

static bool matchesCached(llvm::DenseMap<const FunctionDecl *, bool> &Cache,
                          const NameSet &Names, const FunctionDecl *FD) {
  FD = FD->getCanonicalDecl();
  auto [It, New] = Cache.try_emplace(FD, false);
  if (New && FD->getIdentifier())
    It->second = Names.matches(FD->getQualifiedNameAsString());
  return It->second;
}

bool WeakRefModel::isCatalogWeakRef(const FunctionDecl *FD) const {
  return matchesCached(WeakRefCache, Catalog.WeakRefFunctions, FD);
}

bool WeakRefModel::isCatalogBlob(const FunctionDecl *FD) const {
  return matchesCached(BlobCache, Catalog.BlobFunctions, FD);
}

WeakRefModel::FunctionInfo *
WeakRefModel::infoFor(const FunctionDecl *FD) const {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Def = FD->getDefinition())
    FD = Def;
  auto It = ByDecl.find(FD);
  return It == ByDecl.end() ? nullptr : It->second;
}

bool WeakRefModel::returnsWeak(const FunctionDecl *FD) const {
  const FunctionInfo *I = infoFor(FD);
  return I && I->ReturnsWeak;
}

const llvm::DenseMap<unsigned, ParamConversion> *
WeakRefModel::convertedParams(const FunctionDecl *FD) const {
  const FunctionInfo *I = infoFor(FD);
  return I && !I->Params.empty() ? &I->Params : nullptr;
}

std::optional<CFGPoint> WeakRefModel::pointOf(const FunctionDecl *FD,
                                              const Stmt *S) const {
  auto [It, New] = Points.try_emplace(FD);
  if (New)
    if (const CFG *G = cfgOf(FD))
      for (const CFGBlock *B : *G) {
        unsigned I = 0;
        for (const CFGElement &E : *B) {
          if (auto CS = E.getAs<CFGStmt>())
            It->second.try_emplace(CS->getStmt(), CFGPoint{B, I});
          ++I;
        }
      }
  auto PIt = It->second.find(S);
  if (PIt == It->second.end())
    return std::nullopt;
  return PIt->second;
}

const CFG *WeakRefModel::cfgOf(const FunctionDecl *FD) const {
  const FunctionInfo *I = infoFor(FD);
  return I ? I->Cfg.get() : nullptr;
}

/// from_blob(data, sizes, ..., deleter, ...): a deleter means the new tensor
/// owns (or at least manages) the memory, so it is not a weak reference.
static bool passesDeleter(const CallExpr *Call, const FunctionDecl *FD) {
  for (unsigned I = 0, N = std::min(Call->getNumArgs(), FD->getNumParams());
       I < N; ++I) {
    if (isa<CXXDefaultArgExpr>(Call->getArg(I)))
      continue;
    const ParmVarDecl *P = FD->getParamDecl(I);
    if (P->getName().contains_insensitive("deleter"))
      return true;
    std::string Ty = P->getType().getNonReferenceType().getAsString();
    if (llvm::StringRef(Ty).contains("function<"))
      return true;
  }
  return false;
}

/// Whether the local V is changed after its initialisation anywhere in its
/// function: assigned, incremented, or its address taken.
static bool changedAfterInit(const VarDecl *V) {
  const auto *FD = dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  if (!FD || !FD->getBody())
    return true;
  bool Changed = false;
  llvm::SmallVector<const Stmt *, 32> Work{FD->getBody()};
  while (!Work.empty() && !Changed) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      Changed |= BO->isAssignmentOp() && referencedVar(BO->getLHS()) == V;
    else if (const auto *U = dyn_cast<UnaryOperator>(S))
      Changed |= (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
                 referencedVar(U->getSubExpr()) == V;
    for (const Stmt *C : S->children())
      Work.push_back(C);
  }
  return Changed;
}

/// The tensor whose storage `X.data_ptr()` (or data/mutable_data_ptr)
/// exposes, or null; also through a local pointer initialised from it and
/// never changed (`void *p = t.data_ptr(); from_blob(p, ...)`, the way
/// vLLM Ascend's weak_ref_tensor is written).
static const Expr *dataPtrOwner(const Expr *E, bool ThroughLocal = true) {
  const Expr *P = peel(E);
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(P)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!ThroughLocal || !V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        !V->getType()->isPointerType() || !V->getInit() ||
        changedAfterInit(V))
      return nullptr;
    return dataPtrOwner(V->getInit(), false);
  }
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(P);
  if (!MC || !MC->getMethodDecl() || !MC->getMethodDecl()->getIdentifier())
    return nullptr;
  llvm::StringRef Name = MC->getMethodDecl()->getName();
  if (Name != "data_ptr" && Name != "mutable_data_ptr" &&
      Name != "const_data_ptr")
    return nullptr;
  return MC->getImplicitObjectArgument();
}

/// `for_blob(data, sizes).strides(..)...make_tensor()`: the catalog
/// for_blob call at the root of a TensorMaker chain, or null when the chain
/// gives the tensor a deleter or a context with one (it then manages its
/// memory).
const CallExpr *WeakRefModel::makerRoot(const CXXMemberCallExpr *Make) const {
  const CXXMethodDecl *M = Make->getMethodDecl();
  if (!M || !M->getIdentifier() || M->getName() != "make_tensor" ||
      !M->getParent()->getIdentifier() ||
      M->getParent()->getName() != "TensorMaker")
    return nullptr;
  const Expr *Obj = Make->getImplicitObjectArgument();
  for (unsigned Depth = 0; Obj && Depth < 16; ++Depth) {
    Obj = peel(Obj);
    if (const auto *Step = dyn_cast_or_null<CXXMemberCallExpr>(Obj)) {
      const CXXMethodDecl *SM = Step->getMethodDecl();
      if (!SM || !SM->getIdentifier())
        return nullptr;
      if (SM->getName() == "deleter")
        return nullptr;
      if (SM->getName() == "context" && Step->getNumArgs() >= 2 &&
          !isa<CXXDefaultArgExpr>(Step->getArg(1)))
        return nullptr;
      Obj = Step->getImplicitObjectArgument();
      continue;
    }
    const auto *Root = dyn_cast_or_null<CallExpr>(Obj);
    const FunctionDecl *RF = Root ? Root->getDirectCallee() : nullptr;
    if (RF && !isa<CXXMethodDecl>(RF) && isCatalogBlob(RF) &&
        Root->getNumArgs() >= 1)
      return Root;
    return nullptr;
  }
  return nullptr;
}

/// A tensor handle by value (from_blob's result; not for_blob's TensorMaker).
static bool isTensorLike(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         (RD->getName() == "Tensor" || RD->getName() == "TensorBase");
}

std::optional<Conversion>
WeakRefModel::asConversion(const CallExpr *Call) const {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || isa<CXXOperatorCallExpr>(Call))
    return std::nullopt;
  if (isCatalogWeakRef(FD))
    return Conversion{Conversion::Primitive, Call,
                      Call->getNumArgs() ? Call->getArg(0) : nullptr, FD};
  if (isCatalogBlob(FD) && Call->getNumArgs() >= 1 &&
      isTensorLike(Call->getType()) && !passesDeleter(Call, FD))
    if (const Expr *Owner = dataPtrOwner(Call->getArg(0)))
      return Conversion{Conversion::Blob, Call, Owner, FD};
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (const CallExpr *Root = makerRoot(MC))
      if (const Expr *Owner = dataPtrOwner(Root->getArg(0)))
        return Conversion{Conversion::Blob, Call, Owner, FD};
  if (returnsWeak(FD)) {
    const Expr *Source = Call->getNumArgs() ? Call->getArg(0) : nullptr;
    if (const auto *Params = convertedParams(FD))
      for (unsigned I = 0; I < Call->getNumArgs(); ++I)
        if (Params->count(I)) {
          Source = Call->getArg(I);
          break;
        }
    return Conversion{Conversion::Helper, Call, Source, FD};
  }
  return std::nullopt;
}

const CallExpr *WeakRefModel::weakOrigin(const Expr *E) const {
  E = peel(E);
  if (!E)
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return asConversion(Call) ? Call : nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return UseOrigin.lookup(DRE);
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    const CallExpr *C = weakOrigin(CO->getTrueExpr());
    return C ? C : weakOrigin(CO->getFalseExpr());
  }
  return nullptr;
}

void WeakRefModel::summarize(llvm::ArrayRef<const FunctionDecl *> Defs) {
  for (const FunctionDecl *FD : Defs) {
    // A definition clang could not finish or build without errors is left
    // out, as if only declared: its CFG cannot be built safely.
    if (FD->isDependentContext() || ByDecl.count(FD) || !isWholeDefinition(FD))
      continue;
    auto Info = std::make_unique<FunctionInfo>();
    Info->FD = FD;
    CFG::BuildOptions Opts;
    Opts.setAllAlwaysAdd();
    Opts.AddImplicitDtors = true;
    Opts.AddTemporaryDtors = true;
    Opts.AddLifetime = true;
    Opts.AddScopes = true;
    Info->Cfg = CFG::buildCFG(FD, FD->getBody(), &Ctx, Opts);
    if (!Info->Cfg)
      continue;
    ByDecl[FD] = Info.get();
    Functions.push_back(std::move(Info));
  }
  // Summaries only grow, so this terminates; the bound guards pathological
  // recursion chains (each round settles at least one more call level).
  for (unsigned Round = 0; Round < 64; ++Round) {
    bool Changed = false;
    for (auto &Info : Functions)
      Changed |= analyseFunction(*Info);
    if (!Changed)
      break;
  }
}

bool WeakRefModel::analyseFunction(FunctionInfo &Info) {
  const CFG &G = *Info.Cfg;
  bool SummaryChanged = false;

  auto NoteParam = [&](const Expr *Arg, SourceLocation Loc,
                       const FunctionDecl *Via) {
    const auto *P = dyn_cast_or_null<ParmVarDecl>(referencedVar(Arg));
    if (!P || P->getDeclContext() != Info.FD)
      return;
    if (Info.Params.try_emplace(P->getFunctionScopeIndex(),
                                ParamConversion{Loc, Via})
            .second)
      SummaryChanged = true;
  };

  auto Transfer = [&](const Stmt *S, WeakState &St) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!isTracked(V))
        return;
      auto It = St.find(V);
      if (It != St.end())
        UseOrigin[DRE] = It->second;
      else
        UseOrigin.erase(DRE);
      return;
    }
    auto Assign = [&](const VarDecl *V, const Expr *Value) {
      if (!isTracked(V))
        return;
      if (const CallExpr *Origin = Value ? weakOrigin(Value) : nullptr)
        St[V] = Origin;
      else
        St.erase(V);
    };
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (!V->getType()->isReferenceType() || V->getInit())
            Assign(V, V->getInit());
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->getOpcode() == BO_Assign)
        Assign(referencedVar(BO->getLHS()), BO->getRHS());
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
        Assign(referencedVar(Op->getArg(0)), Op->getArg(1));
      return;
    }
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      if (Ret->getRetValue() && weakOrigin(Ret->getRetValue()) &&
          !Info.ReturnsWeak) {
        Info.ReturnsWeak = true;
        SummaryChanged = true;
      }
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (auto Conv = asConversion(Call)) {
        if (Conv->Source)
          NoteParam(Conv->Source, Call->getBeginLoc(),
                    Conv->Kind == Conversion::Helper ? Conv->Callee : nullptr);
        return;
      }
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee || isa<CXXOperatorCallExpr>(Call))
        return;
      if (const auto *Params = convertedParams(Callee))
        for (const auto &[Index, PC] : *Params)
          if (Index < Call->getNumArgs())
            NoteParam(Call->getArg(Index), Call->getBeginLoc(), Callee);
    }
  };

  // Forward may-analysis over the blocks, to a fixpoint.
  std::vector<WeakState> In(G.getNumBlockIDs());
  ForwardWorklist Work(G);
  while (const CFGBlock *B = Work.next()) {
    WeakState St = In[B->getBlockID()];
    for (const CFGElement &E : *B)
      if (auto CS = E.getAs<CFGStmt>())
        Transfer(CS->getStmt(), St);
    for (const CFGBlock *Succ : B->succs()) {
      if (!Succ)
        continue;
      WeakState Merged = In[Succ->getBlockID()];
      mergeInto(Merged, St);
      if (!sameState(Merged, In[Succ->getBlockID()])) {
        In[Succ->getBlockID()] = std::move(Merged);
        Work.revisit(Succ);
      }
    }
  }
  return SummaryChanged;
}
