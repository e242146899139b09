//===- WorkspaceSharedAcrossLayersCheck.cpp -------------------------------===//
//
// A workspace place is a place (global, static, member of a class whose only
// instances are static) that the catalog names a workspace or that is filled
// from a workspace producer, and that is not keyed by the layer. Its
// in-capture accesses are then judged:
//  (a) a write or clear that is not a first fill (not under a test that the
//      slot is empty) replaces what an in-capture read handed to a task;
//  (b) a first fill whose size comes from the filling call's parameters
//      (which the key does not carry), read back in capture with no size
//      comparison anywhere on the place;
//  (c) op-uses on different streams (catalog stream switches, inherited
//      along the capture call chain) that are not ordered: some path of
//      the capture from one use to the other (up the first use's call
//      chain, across the function where the chains meet, down to the other)
//      passes no event record followed by a wait (catalog stream syncs,
//      also inside functions called on the way).
//
//===----------------------------------------------------------------------===//
#include "WorkspaceSharedAcrossLayersCheck.h"
#include "common/Messages.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "clang/AST/ParentMap.h"

using namespace clang;
using namespace tether;
using namespace tether::cxx;
namespace msg = tether::msg;

namespace {

/// Calls E makes, and declarations it names, anywhere inside it.
template <typename Fn> void forEachIn(const Stmt *S, Fn &&Visit) {
  if (!S)
    return;
  Visit(S);
  for (const Stmt *C : S->children())
    forEachIn(C, Visit);
}

bool mentionsLayer(const Expr *Key) {
  bool Found = false;
  forEachIn(Key, [&](const Stmt *S) {
    const NamedDecl *D = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      D = DRE->getDecl();
    else if (const auto *ME = dyn_cast<MemberExpr>(S))
      D = ME->getMemberDecl();
    if (D && D->getIdentifier() && D->getName().contains_insensitive("layer"))
      Found = true;
  });
  return Found;
}

StringRef methodName(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}

class Workspaces {
public:
  Workspaces(const CompiledCatalog &Cat, const WeakRefModel &Model,
             const CaptureRegions &Regions, const Places &Where)
      : Cat(Cat), Model(Model), Regions(Regions), Where(Where) {}

  bool isWorkspacePlace(const ValueDecl *D) const;
  bool isShared(const ValueDecl *D);
  bool isFirstFill(const PlaceAccess &A) const;
  /// The allocation of a fill and the parameter its size comes from.
  const Expr *callerSized(const PlaceAccess &A) const;
  bool sizeCompared(const ValueDecl *D) const;
  std::string streamAt(const FunctionDecl *F, const Stmt *S, unsigned Depth);
  /// Whether every path of the capture between the two uses, either way
  /// round, records an event and then waits on it.
  bool ordered(const PlaceAccess &X, const PlaceAccess &Y);

private:
  /// Ordering state along a path: nothing yet, an event recorded, ordered
  /// (a wait after a record, or a full synchronisation); Unreached when no
  /// path gets there.
  enum Sync : unsigned { None = 0, Recorded = 1, Ordered = 2, Unreached = 3 };
  using At = CFGPoint;
  /// The worst state on the paths of F from after From (the entry when
  /// null) to just before To (the exit when null), entering with Start.
  unsigned flow(const FunctionDecl *F, std::optional<At> From,
                std::optional<At> To, unsigned Start, unsigned Depth);
  unsigned transfer(const CallExpr *Call, unsigned S, unsigned Depth);
  /// Worst ordering across X's direction: X's use, to Y's use.
  unsigned across(const PlaceAccess &X, const PlaceAccess &Y);
  std::optional<At> pointOf(const FunctionDecl *F, const Stmt *S);
  bool relatesTo(const FunctionDecl *F, const Expr *E, const ValueDecl *D) const;
  bool emptinessTest(const FunctionDecl *F, const Expr *Cond,
                     const ValueDecl *D, bool &TrueMeansEmpty) const;
  void computeStreams(const FunctionDecl *F);

  const CompiledCatalog &Cat;
  const WeakRefModel &Model;
  const CaptureRegions &Regions;
  const Places &Where;
  llvm::DenseMap<const CXXRecordDecl *, bool> SharedClass;
  llvm::DenseMap<const FunctionDecl *,
                 llvm::DenseMap<const Stmt *, std::string>>
      Streams;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, unsigned> Effects;
};

bool Workspaces::isWorkspacePlace(const ValueDecl *D) const {
  if (D->getIdentifier() && Cat.WorkspaceNames.matches(D->getName()))
    return true;
  for (const PlaceAccess &A : Where.accesses(D))
    if (A.Kind == PlaceAccess::Write && A.Value)
      if (const auto *Call = dyn_cast_or_null<CallExpr>(peel(A.Value)))
        if (const FunctionDecl *FD = Call->getDirectCallee())
          if (FD->getIdentifier() &&
              Cat.WorkspaceProducers.matches(FD->getQualifiedNameAsString()))
            return true;
  return false;
}

bool Workspaces::isShared(const ValueDecl *D) {
  // Keyed by the layer everywhere it is keyed: one slot per layer.
  bool Keyed = false, AllByLayer = true;
  for (const PlaceAccess &A : Where.accesses(D))
    if (A.P.Key) {
      Keyed = true;
      AllByLayer &= mentionsLayer(A.P.Key);
    }
  if (Keyed && AllByLayer)
    return false;
  const auto *FD = dyn_cast<FieldDecl>(D);
  if (!FD)
    return true; // a global or static
  // A member is shared when its object is: methods of the class are only
  // called on global or static instances.
  const CXXRecordDecl *RD = dyn_cast<CXXRecordDecl>(FD->getParent());
  auto [It, New] = SharedClass.try_emplace(RD, false);
  if (!New)
    return It->second;
  bool SawStatic = false, SawOther = false;
  for (const FunctionDecl *F : Regions.functions())
    for (const CallSite &CS : Regions.callersOf(F)) {
      const auto *MC = dyn_cast<CXXMemberCallExpr>(CS.Call);
      if (!MC || MC->getRecordDecl() != RD)
        continue;
      const Expr *Obj = MC->getImplicitObjectArgument();
      if (isa<CXXThisExpr>(Obj->IgnoreParenImpCasts()))
        continue;
      Place P = Where.placeOf(CS.Caller, Obj);
      if (P && isa<VarDecl>(P.Decl))
        SawStatic = true;
      else
        SawOther = true;
    }
  It->second = SawStatic && !SawOther;
  return It->second;
}

bool Workspaces::relatesTo(const FunctionDecl *F, const Expr *E,
                           const ValueDecl *D) const {
  if (Place P = Where.placeOf(F, E); P && P.Decl == D)
    return true;
  if (const VarDecl *V = referencedVar(E))
    if (V->hasLocalStorage() && V->getInit())
      if (Place P = Where.placeOf(F, V->getInit()); P && P.Decl == D)
        return true;
  return false;
}

bool Workspaces::emptinessTest(const FunctionDecl *F, const Expr *Cond,
                               const ValueDecl *D, bool &TrueMeansEmpty) const {
  bool Neg = false;
  for (;;) {
    Cond = peel(Cond);
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(Cond);
        U && U->getOpcode() == UO_LNot) {
      Neg = !Neg;
      Cond = U->getSubExpr();
      continue;
    }
    break;
  }
  if (!Cond)
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Cond)) {
    StringRef N = methodName(MC);
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (!relatesTo(F, Obj, D))
      return false;
    if (N == "defined" || N == "has_value" || N == "contains" || N == "count")
      TrueMeansEmpty = Neg;
    else if (N == "empty")
      TrueMeansEmpty = !Neg;
    else
      return false;
    return true;
  }
  auto Cmp = [&](BinaryOperatorKind K, const Expr *L, const Expr *R) {
    if (K != BO_EQ && K != BO_NE)
      return false;
    // find(k) == end(), count(k) == 0
    for (const Expr *X : {L, R}) {
      const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(peel(X));
      if (!MC || !relatesTo(F, MC->getImplicitObjectArgument(), D))
        continue;
      StringRef N = methodName(MC);
      if (N == "find" || N == "count" || N == "end" || N == "size") {
        TrueMeansEmpty = (K == BO_EQ) != Neg;
        return true;
      }
    }
    // it == m.end() with `it` from m.find(k)
    for (const Expr *X : {L, R})
      if (relatesTo(F, X, D)) {
        TrueMeansEmpty = (K == BO_EQ) != Neg;
        return true;
      }
    return false;
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond))
    return Cmp(BO->getOpcode(), BO->getLHS(), BO->getRHS());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond))
    if (Op->getNumArgs() == 2)
      return Cmp(Op->getOperator() == OO_EqualEqual   ? BO_EQ
                 : Op->getOperator() == OO_ExclaimEqual ? BO_NE
                                                        : BO_Comma,
                 Op->getArg(0), Op->getArg(1));
  return false;
}

bool Workspaces::isFirstFill(const PlaceAccess &A) const {
  const ParentMap &PM = Where.parents(A.Fn);
  const Stmt *Cur = A.Whole;
  for (const Stmt *Par = PM.getParent(Cur); Par;
       Cur = Par, Par = PM.getParent(Par)) {
    if (const auto *If = dyn_cast<IfStmt>(Par)) {
      bool TrueEmpty = false;
      if (Cur != If->getCond() &&
          emptinessTest(A.Fn, If->getCond(), A.P.Decl, TrueEmpty) &&
          (Cur == If->getThen()) == TrueEmpty)
        return true;
    }
    // An early exit before it: `if (!empty) return ...;`
    if (const auto *CS = dyn_cast<CompoundStmt>(Par))
      for (const Stmt *S : CS->body()) {
        if (S == Cur)
          break;
        const auto *If = dyn_cast<IfStmt>(S);
        bool TrueEmpty = false;
        if (If && !If->getElse() &&
            isa<ReturnStmt, ContinueStmt, BreakStmt>(
                If->getThen()->children().empty() ||
                        !isa<CompoundStmt>(If->getThen())
                    ? If->getThen()
                    : *cast<CompoundStmt>(If->getThen())->body_rbegin()) &&
            emptinessTest(A.Fn, If->getCond(), A.P.Decl, TrueEmpty) &&
            !TrueEmpty)
          return true;
      }
  }
  return false;
}

const Expr *Workspaces::callerSized(const PlaceAccess &A) const {
  const auto *Alloc = dyn_cast_or_null<CallExpr>(A.Value ? peel(A.Value) : nullptr);
  if (!Alloc)
    if (const VarDecl *V = A.Value ? referencedVar(A.Value) : nullptr)
      if (V->hasLocalStorage() && V->getInit())
        Alloc = dyn_cast<CallExpr>(peel(V->getInit()));
  if (!Alloc)
    return nullptr;
  llvm::SmallPtrSet<const ParmVarDecl *, 4> Params, InKey;
  auto Collect = [&](const Stmt *S, llvm::SmallPtrSet<const ParmVarDecl *, 4> &To,
                     bool FollowLocals) {
    forEachIn(S, [&](const Stmt *X) {
      const auto *DRE = dyn_cast<DeclRefExpr>(X);
      if (!DRE)
        return;
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
        To.insert(P);
      else if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (FollowLocals && V->hasLocalStorage() && V->getInit())
          forEachIn(V->getInit(), [&](const Stmt *Y) {
            if (const auto *D2 = dyn_cast<DeclRefExpr>(Y))
              if (const auto *P = dyn_cast<ParmVarDecl>(D2->getDecl()))
                To.insert(P);
          });
    });
  };
  for (const Expr *Arg : Alloc->arguments())
    if (!isTensorType(Arg->getType()) || isa<CXXMemberCallExpr>(Alloc))
      Collect(Arg, Params, true);
  if (A.P.Key)
    Collect(A.P.Key, InKey, true);
  for (const ParmVarDecl *P : Params)
    if (!InKey.count(P))
      return Alloc;
  return nullptr;
}

bool Workspaces::sizeCompared(const ValueDecl *D) const {
  for (const PlaceAccess &A : Where.accesses(D)) {
    // The access (or a local copy of it) under a size query in a comparison.
    const ParentMap &PM = Where.parents(A.Fn);
    const Stmt *Cur = A.E;
    bool SawSize = false;
    for (const Stmt *Par = PM.getParent(Cur); Par; Par = PM.getParent(Par)) {
      if (const auto *BO = dyn_cast<BinaryOperator>(Par))
        if (BO->isComparisonOp()) {
          if (SawSize)
            return true;
          break;
        }
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Par))
        if (Op->isComparisonOp()) {
          if (SawSize)
            return true;
          break;
        }
      if (isa<CompoundStmt, IfStmt, DeclStmt, ReturnStmt>(Par))
        break;
      const auto *MC = dyn_cast<CXXMemberCallExpr>(Par);
      StringRef N = MC ? methodName(MC) : StringRef();
      if (MC && N != "numel" && N != "size" && N != "sizes" && N != "nbytes" &&
          N != "sym_numel" && N != "storage" && N != "nbytes")
        break;
      if (MC)
        SawSize = true;
    }
  }
  return false;
}

void Workspaces::computeStreams(const FunctionDecl *F) {
  auto &Map = Streams[F];
  const CFG *G = Model.cfgOf(F);
  if (!G)
    return;
  auto Ident = [&](const Expr *E) -> std::string {
    E = peel(E);
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
      return DRE->getDecl()->getNameAsString();
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(E))
      return ME->getMemberDecl()->getNameAsString();
    if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
      return methodName(Call).str() + "()";
    return "stream";
  };
  // Blocks in order; a guard holds until its scope ends, a setter until the
  // next switch. Merges keep the first stream seen (may-analysis suffices to
  // tell that some path uses another stream).
  llvm::DenseMap<const CFGBlock *, std::string> In;
  for (const CFGBlock *B : reversePostOrder(*G)) {
    std::string Cur = In.lookup(B);
    llvm::DenseMap<const VarDecl *, std::string> Guards;
    for (const CFGElement &E : *B) {
      if (auto CS = E.getAs<CFGStmt>()) {
        const Stmt *S = CS->getStmt();
        if (const auto *DS = dyn_cast<DeclStmt>(S)) {
          for (const Decl *D : DS->decls())
            if (const auto *V = dyn_cast<VarDecl>(D))
              if (const CXXRecordDecl *RD = V->getType()->getAsCXXRecordDecl())
                if (RD->getIdentifier() &&
                    Cat.StreamSwitches.matches(RD->getQualifiedNameAsString()))
                  if (const auto *CE =
                          dyn_cast_or_null<CXXConstructExpr>(V->getInit()))
                    if (CE->getNumArgs())
                      Cur = Ident(CE->getArg(0));
        } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
          if (const FunctionDecl *FD = Call->getDirectCallee())
            if (FD->getIdentifier() && !isa<CXXConstructorDecl>(FD) &&
                Cat.StreamSwitches.matches(FD->getQualifiedNameAsString()) &&
                Call->getNumArgs())
              Cur = Ident(Call->getArg(0));
        }
        if (!Cur.empty())
          Map.try_emplace(S, Cur);
      } else if (auto Dt = E.getAs<CFGAutomaticObjDtor>()) {
        const CXXRecordDecl *RD =
            Dt->getVarDecl()->getType()->getAsCXXRecordDecl();
        if (RD && RD->getIdentifier() &&
            Cat.StreamSwitches.matches(RD->getQualifiedNameAsString()))
          Cur.clear();
      }
    }
    for (const CFGBlock *Succ : B->succs())
      if (Succ && !In.count(Succ))
        In[Succ] = Cur;
  }
}

std::string Workspaces::streamAt(const FunctionDecl *F, const Stmt *S,
                                 unsigned Depth) {
  if (!Streams.count(F))
    computeStreams(F);
  std::string Local = Streams[F].lookup(S);
  if (!Local.empty() || Depth > CaptureRegions::MaxDepth)
    return Local;
  // Inherit the stream of the call that brought F into the capture.
  const CaptureSite *Site = Regions.contextOf(F);
  if (!Site || Site->Chain.empty())
    return Local;
  const CallExpr *Call = Site->Chain.back();
  for (const CallSite &CS : Regions.callersOf(F))
    if (CS.Call == Call)
      return streamAt(CS.Caller, Call, Depth + 1);
  return Local;
}

std::optional<Workspaces::At> Workspaces::pointOf(const FunctionDecl *F,
                                                  const Stmt *S) {
  // The innermost enclosing statement that is an element of the CFG.
  const ParentMap &PM = Where.parents(F);
  for (unsigned Depth = 0; S && Depth < 32; ++Depth, S = PM.getParent(S))
    if (auto P = Model.pointOf(F, S))
      return P;
  return std::nullopt;
}

unsigned Workspaces::transfer(const CallExpr *Call, unsigned S,
                              unsigned Depth) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (FD && FD->getIdentifier() &&
      Cat.StreamSyncs.matches(FD->getQualifiedNameAsString())) {
    StringRef N = FD->getName();
    bool Record = N.contains_insensitive("record");
    bool Wait = N.contains_insensitive("wait") || N == "block";
    if (N == "wait_stream" || Record == Wait)
      return Ordered; // waits for everything queued on the other stream
    if (Record)
      return S == None ? Recorded : S;
    return S == Recorded ? Ordered : S;
  }
  const FunctionDecl *Def = calleeDefinition(Call);
  if (!Def || !Model.cfgOf(Def) || Depth >= 4 || S == Ordered)
    return S;
  auto [It, New] = Effects.try_emplace({Def, S}, S); // recursion: no effect
  if (!New)
    return It->second;
  unsigned R = flow(Def, std::nullopt, std::nullopt, S, Depth + 1);
  R = R == Unreached ? S : R;
  Effects[{Def, S}] = R;
  return R;
}

unsigned Workspaces::flow(const FunctionDecl *F, std::optional<At> From,
                          std::optional<At> To, unsigned Start,
                          unsigned Depth) {
  const CFG *G = Model.cfgOf(F);
  if (!G)
    return Start;
  const CFGBlock *ToB = To ? To->Block : &G->getExit();
  unsigned ToI = To ? To->Index : 0;
  std::vector<unsigned> In(G->getNumBlockIDs(), Unreached);
  llvm::SmallVector<const CFGBlock *, 16> Work;
  unsigned Result = Unreached;
  auto Run = [&](const CFGBlock *B, unsigned FromI, unsigned S) {
    unsigned I = 0;
    for (const CFGElement &E : *B) {
      unsigned Here = I++;
      if (Here < FromI)
        continue;
      if (B == ToB && Here == ToI) {
        Result = std::min(Result, S); // a path reaches To: stop there
        return;
      }
      if (auto CS = E.getAs<CFGStmt>())
        if (const auto *Call = dyn_cast<CallExpr>(CS->getStmt()))
          S = transfer(Call, S, Depth);
    }
    if (B == ToB && ToI >= I) {
      Result = std::min(Result, S);
      return;
    }
    for (const CFGBlock *Succ : B->succs())
      if (Succ && S < In[Succ->getBlockID()]) {
        In[Succ->getBlockID()] = S;
        Work.push_back(Succ);
      }
  };
  if (From)
    Run(From->Block, From->Index + 1, Start);
  else
    Run(&G->getEntry(), 0, Start);
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    Run(B, 0, In[B->getBlockID()]);
  }
  return Result;
}

unsigned Workspaces::across(const PlaceAccess &X, const PlaceAccess &Y) {
  const CaptureSite *SX = Regions.at(X.Fn, X.E);
  const CaptureSite *SY = Regions.at(Y.Fn, Y.E);
  if (!SX || !SY || SX->Region != SY->Region)
    return Unreached; // not one capture
  llvm::ArrayRef<const CallExpr *> CX = SX->Chain, CY = SY->Chain;
  size_t P = 0;
  while (P < CX.size() && P < CY.size() && CX[P] == CY[P])
    ++P;
  // The function at level K of a chain: the region's, then each callee.
  auto Level = [&](llvm::ArrayRef<const CallExpr *> C, size_t K) {
    return K == 0 ? SX->Region->Fn : calleeDefinition(C[K - 1]);
  };
  auto Point = [&](const FunctionDecl *F, const Stmt *S) {
    return F ? pointOf(F, S) : std::nullopt;
  };
  unsigned S = None;
  // Up from X's use to the function where the chains meet.
  for (size_t K = CX.size(); K > P; --K) {
    const FunctionDecl *F = Level(CX, K);
    auto From = Point(F, K == CX.size() ? static_cast<const Stmt *>(X.E)
                                        : CX[K]);
    if (!From)
      return Unreached;
    S = flow(F, From, std::nullopt, S, 0);
    if (S == Unreached)
      return Unreached;
  }
  const FunctionDecl *Meet = Level(CX, P);
  auto AX = Point(Meet, P < CX.size() ? static_cast<const Stmt *>(CX[P]) : X.E);
  auto AY = Point(Meet, P < CY.size() ? static_cast<const Stmt *>(CY[P]) : Y.E);
  if (!AX || !AY)
    return Unreached;
  S = flow(Meet, AX, AY, S, 0);
  // Down from the meeting point to Y's use.
  for (size_t K = P + 1; K <= CY.size() && S != Unreached; ++K) {
    const FunctionDecl *F = Level(CY, K);
    auto To = Point(F, K == CY.size() ? static_cast<const Stmt *>(Y.E)
                                      : CY[K]);
    if (!To)
      return Unreached;
    S = flow(F, std::nullopt, To, S, 0);
  }
  return S;
}

bool Workspaces::ordered(const PlaceAccess &X, const PlaceAccess &Y) {
  // Loops over layers run the pair both ways round; each way that some path
  // takes must be ordered.
  unsigned XY = across(X, Y), YX = across(Y, X);
  return (XY == Ordered || XY == Unreached) && (YX == Ordered || YX == Unreached);
}

} // namespace

void WorkspaceSharedAcrossLayersCheck::run(const Analyses &A) {
  Workspaces W(A.Catalog, A.Model, A.Regions, A.Where);
  for (const ValueDecl *D : A.Where.declarations()) {
    if (!W.isWorkspacePlace(D))
      continue;
    // The in-capture reads that hand the workspace to a task.
    llvm::SmallVector<const PlaceAccess *, 4> OpReads;
    for (const PlaceAccess &Acc : A.Where.accesses(D))
      if (Acc.Kind == PlaceAccess::Read && A.Regions.at(Acc.Fn, Acc.E) &&
          A.Where.opUse(Acc.Fn, Acc.E))
        OpReads.push_back(&Acc);
    if (OpReads.empty() || !W.isShared(D))
      continue;
    std::string Name = Places::name(Place{D, false, nullptr});
    const Expr *ReadUse = A.Where.opUse(OpReads.front()->Fn, OpReads.front()->E);
    bool ReportedUnsized = false;
    for (const PlaceAccess &Acc : A.Where.accesses(D)) {
      if (Acc.Kind == PlaceAccess::Read)
        continue;
      const CaptureSite *Site = A.Regions.at(Acc.Fn, Acc.E);
      if (!Site)
        continue;
      if (!W.isFirstFill(Acc)) {
        // (a) replaced or cleared mid-capture.
        diag(Acc.Whole->getBeginLoc(), msg::WorkspaceReplacedWarning) << Name;
        noteCapture(*Site, false);
        diag(ReadUse->getBeginLoc(), msg::WorkspaceEarlierRead,
             DiagnosticIDs::Note);
        noteCaptureEnd(*Site);
        continue;
      }
      // (b) sized for the first caller.
      if (ReportedUnsized || W.sizeCompared(D))
        continue;
      if (const Expr *Alloc = W.callerSized(Acc)) {
        ReportedUnsized = true;
        diag(Acc.Whole->getBeginLoc(), msg::WorkspaceUnsizedWarning) << Name;
        noteCapture(*Site, false);
        diag(Alloc->getBeginLoc(), msg::WorkspaceSizedHere, DiagnosticIDs::Note);
        noteCaptureEnd(*Site);
      }
    }
    // (c) the same slot on different streams, unordered.
    if (OpReads.size() < 2)
      continue;
    const PlaceAccess *First = OpReads.front();
    std::string FirstStream = W.streamAt(First->Fn, First->E, 0);
    for (const PlaceAccess *R : llvm::drop_begin(OpReads)) {
      if (W.streamAt(R->Fn, R->E, 0) == FirstStream || W.ordered(*First, *R))
        continue;
      const CaptureSite *Site = A.Regions.at(R->Fn, R->E);
      diag(R->E->getBeginLoc(), msg::WorkspaceStreamsWarning) << Name;
      noteCapture(*Site, false);
      diag(First->E->getBeginLoc(), msg::WorkspaceOtherStream,
           DiagnosticIDs::Note);
      noteCaptureEnd(*Site);
      break;
    }
  }
}
