//===- Interpreter.cpp - Abstract interpretation of one function ---------===//
#include "engine/Interpreter.h"
#include "engine/LoopOrder.h"
#include "engine/State.h"
#include "engine/SummaryJoin.h"
#include "engine/Temporaries.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include <optional>
#include <set>

namespace tether::engine {
namespace {

class Interp {
public:
  Interp(Context &Cx, FnId F, bool Rec)
      : Cx(Cx), M(Cx.Mem), F(F), Fn(Cx.P.Functions[F]), Rec(Rec),
        Facts(Cx.Facts[F]) {}

  Summary run() {
    if (Rec)
      Facts = FunctionFacts();
    if (Fn.Blocks.empty())
      return Sum;
    order();
    Temps = temporaryEnds(Fn);
    // Deaths are tracked only for memory the function makes weak aliases
    // of, binds into a graph's task, or captures into (Watched); when that
    // set grows, the states are computed again with it.
    for (int Round = 0; Round < 4; ++Round) {
      size_t Known = Watched.size();
      fixpoint();
      if (Watched.size() == Known)
        break;
    }
    Emit = true;
    // The last pass reads each block's entry state once: it takes it.
    for (uint32_t B : Rpo)
      if (In[B].Reached) {
        State S = std::move(In[B]);
        block(S, B);
      }
    keptGraphs();
    freedAtReturns();
    dropUnreachableStores();
    keepWithinBudget();
    return std::move(Sum);
  }

private:
  // --- What a summary keeps -------------------------------------------------

  /// A store of the caller's memory into a container this function made
  /// and dropped (`out = []; out.append(f[i])`) is nothing the caller can
  /// see: only the containers it returns, stores where others see them
  /// (a global, a field, a parameter's place) or hands to an operation are
  /// anyone's, with what is stored in those. The rest are dropped from the
  /// summary (sympy's polynomial code kept 40,000 atoms of such stores in
  /// one function's summary, copied into every caller). A store of a weak
  /// alias or an empty value stays: its checks judge the store itself.
  void dropUnreachableStores() {
    auto Local = [&](MemId X) { return M.key(X).Root == RootKind::Alloc; };
    if (llvm::none_of(Sum.Stores,
                      [&](const StoreEffect &E) { return Local(E.Place); }))
      return;
    llvm::DenseSet<uint32_t> Seen; // allocation sites reached
    std::vector<uint32_t> Work;
    auto ReachSite = [&](uint32_t Site) {
      if (Seen.insert(Site).second)
        Work.push_back(Site);
    };
    auto Reach = [&](const Value &V) {
      for (const Atom &A : V)
        if ((A.Kind == Atom::Mem || A.Kind == Atom::Weak) && Local(A.M))
          ReachSite(M.key(A.M).A);
    };
    auto Kept = [&](const StoreEffect &E) {
      return !Local(E.Place) || Seen.count(M.key(E.Place).A) ||
             E.V.has(Atom::Weak) || E.V.has(Atom::Null);
    };
    Reach(Sum.Returns);
    for (uint32_t Site : VisibleSites)
      ReachSite(Site);
    for (const StoreEffect &E : Sum.Stores)
      if (Kept(E))
        Reach(E.V);
    llvm::sort(LocalEdges);
    while (!Work.empty()) {
      uint32_t Site = Work.back();
      Work.pop_back();
      for (auto It = llvm::lower_bound(LocalEdges,
                                       std::pair<uint32_t, uint32_t>{Site, 0});
           It != LocalEdges.end() && It->first == Site; ++It)
        ReachSite(It->second);
    }
    llvm::erase_if(Sum.Stores,
                   [&](const StoreEffect &E) { return !Kept(E); });
  }

  /// A summary past this many atoms (Summary::size) keeps, of its stores
  /// into containers made below it, only those of weak aliases, empty
  /// values and known device memory. At the top of a deep tree of list
  /// code the rest outgrows everything else: sympy's factorisation kept
  /// 160,000 atoms in 1,800 such stores, each caller replayed them all (a
  /// call took seconds), and analysing factortools.py with what it imports
  /// took 158 s and 2.7 GB. What a caller reads back from such a container
  /// it then does not know, as from unknown code; the stores into places it
  /// names (globals, its arguments' fields and slots) all stay. The largest
  /// summaries of the corpus, the Python library and numpy are 578, 4,617
  /// and 12,017 atoms.
  static constexpr size_t kSummaryBudget = 16384;
  void keepWithinBudget() {
    if (Sum.size() <= kSummaryBudget)
      return;
    auto Device = [&](const Atom &A) {
      return A.Kind == Atom::Mem && ownDeviceMemory(A.M);
    };
    llvm::erase_if(Sum.Stores, [&](const StoreEffect &E) {
      return M.key(E.Place).Root == RootKind::Alloc && !E.V.has(Atom::Weak) &&
             !E.V.has(Atom::Null) && llvm::none_of(E.V, Device);
    });
  }

  /// What the emitting pass stores where (for dropUnreachableStores): an
  /// edge from a local container to the local memory stored in it, or
  /// local memory put where others see it (Place NoPlace: an operation).
  void noteReach(MemId Place, const Value &V) {
    if (!Emit)
      return;
    bool Into = Place != NoPlace && M.key(Place).Root == RootKind::Alloc;
    for (const Atom &A : V) {
      if ((A.Kind != Atom::Mem && A.Kind != Atom::Weak) ||
          M.key(A.M).Root != RootKind::Alloc)
        continue;
      if (Into)
        LocalEdges.push_back({M.key(Place).A, M.key(A.M).A});
      else
        VisibleSites.push_back(M.key(A.M).A);
    }
  }

  // --- Order and fixpoint --------------------------------------------------

  void order() {
    size_t N = Fn.Blocks.size();
    std::vector<uint8_t> Seen(N, 0);
    std::vector<std::pair<uint32_t, unsigned>> Stack{{0, 0}};
    std::vector<uint32_t> Post;
    Seen[0] = 1;
    while (!Stack.empty()) {
      auto &[B, K] = Stack.back();
      const Terminator &T = Fn.Blocks[B].Term;
      unsigned NS = T.Kind == Terminator::Goto ? 1
                    : T.Kind == Terminator::Branch ? 2 : 0;
      if (K < NS) {
        uint32_t S = T.Succ[K++];
        if (S < N && !Seen[S]) {
          Seen[S] = 1;
          Stack.push_back({S, 0});
        }
        continue;
      }
      Post.push_back(B);
      Stack.pop_back();
    }
    Rpo.assign(Post.rbegin(), Post.rend());
    // The worklist's order keeps loops contiguous (LoopOrder.h).
    Order = loopOrder(Fn);
    Position.assign(N, ~0u);
    for (uint32_t I = 0; I < Order.size(); ++I)
      Position[Order[I]] = I;
  }

  void fixpoint() {
    In.assign(Fn.Blocks.size(), State());
    State &Entry = In[0];
    Entry.Reached = true;
    for (uint32_t P = 0; P < Fn.NumParams; ++P)
      Entry.set(VarId(P), Value(Atom::mem(M.root(RootKind::Param, F, P))));
    std::set<uint32_t> Work{0};
    auto ObjectOf = [&](MemId P) {
      const MemKey &K = M.key(P);
      return K.Root == RootKind::Alloc && !K.Path.empty()
                 ? M.root(RootKind::Alloc, K.A)
                 : P;
    };
    size_t Budget = 64 * Fn.Blocks.size() + 1024;
    while (!Work.empty() && Budget-- > 0) {
      uint32_t B = Order[*Work.begin()];
      Work.erase(Work.begin());
      State S = In[B];
      block(S, B);
      const Terminator &T = Fn.Blocks[B].Term;
      // S is not needed after its last edge: that edge hands its storage on
      // (a successor reached for the first time takes it without a copy).
      auto Flow = [&](uint32_t To, auto &&Out) {
        if (To < In.size() && Position[To] != ~0u &&
            joinInto(In[To], std::forward<decltype(Out)>(Out), ObjectOf))
          Work.insert(Position[To]);
      };
      if (T.Kind == Terminator::Goto) {
        Flow(T.Succ[0], std::move(S));
      } else if (T.Kind == Terminator::Branch) {
        if (!S.truth(T.Cond)) { // the edges learn nothing: S itself flows
          endTemporaries(S, Temps.AfterTerm[B]);
          Flow(T.Succ[0], static_cast<const State &>(S));
          Flow(T.Succ[1], std::move(S));
        } else {
          State Taken = edge(S, T, true);
          endTemporaries(Taken, Temps.AfterTerm[B]);
          Flow(T.Succ[0], std::move(Taken));
          State NotTaken = edge(std::move(S), T, false);
          endTemporaries(NotTaken, Temps.AfterTerm[B]);
          Flow(T.Succ[1], std::move(NotTaken));
        }
      }
    }
  }

  /// The state on the edge of branch T where its condition is Taken.
  State edge(State Out, const Terminator &Br, bool Taken) {
    const Truth *T = Out.truth(Br.Cond);
    if (!T)
      return Out;
    Truth Tr = *T;
    bool Holds = Taken == Tr.Positive;
    switch (Tr.Kind) {
    case Truth::None:
      break;
    case Truth::Capture:
      Out.Cap.Mask = Holds ? CaptureState::Inside : CaptureState::Outside;
      // The capture opens at the condition as written (`not ctx.capturing`
      // included), the predicate's own position otherwise.
      Out.Cap.Region =
          Holds ? Cx.predicateRegion(F, Br.Loc.valid() ? Br.Loc : Tr.At) : -1;
      break;
    case Truth::Session:
      Out.Cap.SessionMask =
          Holds ? CaptureState::Inside : CaptureState::Outside;
      Out.Cap.Session =
          Holds ? Cx.predicateRegion(F, Br.Loc.valid() ? Br.Loc : Tr.At,
                                     RegionKind::CaptureSession)
                : -1;
      break;
    case Truth::IsTensor:
      if (const Value *V = Out.get(Tr.Var))
        Out.set(Tr.Var, typed(*V, Holds));
      break;
    case Truth::IsNull:
      if (const Value *V = Out.get(Tr.Var)) {
        Value X = *V;
        if (Holds)
          X.removeIf([](const Atom &A) { return A.Kind != Atom::Null; });
        else
          X.removeIf([](const Atom &A) { return A.Kind == Atom::Null; });
        Out.set(Tr.Var, std::move(X));
      }
      [[fallthrough]];
    case Truth::Empty:
      for (MemId P : Tr.Places)
        knowEmpty(Out, P, Holds);
      break;
    }
    return Out;
  }

  static void knowEmpty(State &S, MemId P, bool IsEmpty) {
    memSetAdd(IsEmpty ? S.Empty : S.NonNull, P);
    forget(IsEmpty ? S.NonNull : S.Empty, P);
  }
  static void forget(MemSet &Set, MemId P) {
    auto It = std::lower_bound(Set.begin(), Set.end(), P);
    if (It != Set.end() && *It == P)
      Set.erase(It);
  }

  // --- Transfer --------------------------------------------------------------

  void block(State &S, uint32_t B) {
    const Block &Bl = Fn.Blocks[B];
    const auto &Ends = Temps.AfterInst[B];
    size_t K = 0;
    for (uint32_t I = 0; I < Bl.Insts.size(); ++I) {
      inst(S, Bl.Insts[I], B, I);
      for (; K < Ends.size() && Ends[K].first == I; ++K)
        endTemporary(S, Ends[K].second);
    }
    if (Emit && Bl.Term.Kind == Terminator::Return)
      returns(S, Bl.Term);
  }

  /// Temporary V is read no more: it leaves the state (Temporaries.h).
  /// Memory whose death matters stays until the return, where every local's
  /// memory dies, so that no death moves.
  void endTemporary(State &S, VarId V) {
    if (const Value *X = S.get(V))
      for (const Atom &A : *X)
        if (A.Kind == Atom::Mem && !S.isDead(A.M) && watched(S, A.M))
          return;
    S.set(V, Value());
  }
  void endTemporaries(State &S, const std::vector<VarId> &Vs) {
    for (VarId V : Vs)
      endTemporary(S, V);
  }

  Value get(const State &S, VarId V) const {
    const Value *X = V == NoVar ? nullptr : S.get(V);
    return X ? *X : Value();
  }

  bool isLocalMemory(MemId X) const {
    return M.key(X).Root == RootKind::Alloc && M.key(X).Path.empty();
  }
  /// Memory an allocation made as a tensor (a factory's, a workspace
  /// producer's); or as a container or object, which no tensor is.
  bool allocatedAs(MemId X, bool Tensor) const {
    if (!isLocalMemory(X))
      return false;
    uint32_t Site = M.key(X).A;
    if (Site >= Cx.Allocs.size())
      return false;
    const AllocSite &A = Cx.Allocs[Site];
    if (A.Unknown)
      return false;
    bool IsTensor = A.Kind == AllocKind::Tensor || A.Kind == AllocKind::Workspace;
    return Tensor ? IsTensor : !IsTensor;
  }
  /// What X may hold on a path where it is (Tensor) or is not a tensor.
  Value typed(Value X, bool Tensor) const {
    if (Tensor) {
      X.removeIf([&](const Atom &A) {
        return A.Kind == Atom::Null || A.isNotTensor() ||
               (A.Kind == Atom::Mem && allocatedAs(A.M, false));
      });
      return X;
    }
    Value Out;
    for (const Atom &A : X) {
      if (A.Kind == Atom::Weak ||
          (A.Kind == Atom::Mem && allocatedAs(A.M, true)))
        continue; // a tensor
      Out.add(A.Kind == Atom::Mem && !isLocalMemory(A.M)
                  ? Atom::notTensor(A.M)
                  : A);
    }
    return Out;
  }
  /// Local memory that holds other memory in its fields or slots (an object
  /// a constructor built, a container literal): what only it holds dies
  /// with it. Not the result of unknown code, which may be shared.
  bool isHolder(MemId X) const {
    return isLocalMemory(X) && holderSite(M.key(X).A);
  }
  bool holderSite(uint32_t Site) const {
    AllocKind K = Cx.Allocs[Site].Kind;
    return K == AllocKind::Object || K == AllocKind::Container;
  }
  /// Whether place P is Obj or a field, slot or deeper place below it.
  bool within(MemId P, MemId Obj) const {
    const MemKey &K = M.key(P), &O = M.key(Obj);
    return K.Root == O.Root && K.A == O.A && K.B == O.B &&
           K.Path.size() >= O.Path.size() &&
           std::equal(O.Path.begin(), O.Path.end(), K.Path.begin(), sameStep);
  }
  /// Whether place P is a field, slot or deeper place below Obj.
  bool below(MemId P, MemId Obj) const {
    return M.key(P).Path.size() > M.key(Obj).Path.size() && within(P, Obj);
  }
  /// Whether the death of X matters: X is watched, or it is a holder whose
  /// places hold (perhaps through further holders) watched memory.
  bool watched(const State &S, MemId X) const {
    if (memSetHas(Watched, X))
      return true;
    // Nothing watched (most functions: data tables, code with no weak
    // alias, task or capture) needs no search. Without this test a module
    // of large container literals took time quadratic in their size.
    if (Watched.empty() || !isHolder(X))
      return false;
    // Breadth first over what the holders hold, a few holders deep (each
    // is one scan of Held).
    llvm::SmallVector<MemId, 8> Work{X};
    for (size_t I = 0; I < Work.size() && I < 8; ++I) {
      if (I && memSetHas(Watched, Work[I]))
        return true;
      if (I && !isHolder(Work[I]))
        continue;
      for (const auto &[P, Y] : S.Held)
        if (below(P, Work[I]) &&
            std::find(Work.begin(), Work.end(), Y) == Work.end())
          Work.push_back(Y);
    }
    return false;
  }
  /// Two steps of paths that may name the same place: equal, or slots of
  /// one container one of which has a key computed at run time.
  static bool sameStep(uint32_t X, uint32_t Y) {
    auto Any = [](uint32_t S) {
      return S == MemTable::kElement || S == MemTable::kEverySlot;
    };
    return X == Y || (MemTable::isElement(X) && MemTable::isElement(Y) &&
                      (Any(X) || Any(Y)));
  }
  /// A raw address of memory (`t.data_ptr()`), not a weak reference.
  bool isAddress(const Atom &A) const {
    return A.Kind == Atom::Weak && Cx.Convs[A.W].Address;
  }
  /// A weak reference the weak-ref checks judge.
  bool isWeakRef(const Atom &A) const {
    return A.Kind == Atom::Weak && !Cx.Convs[A.W].Address;
  }

  /// The most atoms a variable's value keeps before it is widened.
  static constexpr size_t kMaxAtoms = 64;
  /// V, widened when it is too large: the places more than one step below
  /// their root are dropped for "unknown". Generated code (sympy's rubi
  /// rules: thousands of functions over one library of helpers walking
  /// `u.args[...]` recursively) makes values of every path of every
  /// parameter, thousands of atoms each, copied into every caller's
  /// summary (9 GB within two minutes). What is kept is what ownership
  /// and the checks need most: local memory, weak aliases, empties, and
  /// the places one step from a parameter, global or object.
  Value widen(Value V) const {
    if (V.atoms().size() > kMaxAtoms)
      dropDeepPlaces(V, M);
    return V;
  }

  /// Dst := V, noting the memory whose last strong holder Dst was.
  void assign(State &S, VarId Dst, Value V, SrcLoc At) {
    if (Dst == NoVar)
      return;
    V = widen(std::move(V));
    Value Old = get(S, Dst);
    // Memory the new value holds too is not let go of (a loop's next
    // allocation at the same site is the same abstract memory).
    Old.removeIf([&](const Atom &A) {
      return A.Kind == Atom::Mem &&
             std::find(V.begin(), V.end(), A) != V.end();
    });
    S.set(Dst, std::move(V));
    dropHolder(S, Old, At);
  }

  void dropHolder(State &S, const Value &Old, SrcLoc At) {
    for (const Atom &A : Old) {
      if (A.Kind != Atom::Mem || S.isDead(A.M) || !watched(S, A.M))
        continue;
      if (!heldBySomeVar(S, A.M))
        die(S, A.M, At, false);
    }
  }

  /// Whether a named local still holds X strongly. Temporaries hold a value
  /// only for the statement that computes it.
  bool heldBySomeVar(const State &S, MemId X) const {
    for (const auto &[V, Val] : S.Vals) {
      if (size_t(V) >= Fn.VarNames.size() || Fn.VarNames[V].empty())
        continue;
      for (const Atom &A : Val)
        if (A.Kind == Atom::Mem && A.M == X)
          return true;
    }
    return false;
  }

  bool hasElementStep(MemId P) const {
    return llvm::any_of(M.key(P).Path, MemTable::isElement);
  }

  /// The (place, memory) pairs of place P, in State::Held's order.
  static auto heldAt(State &S, MemId P) {
    auto Lo = std::lower_bound(S.Held.begin(), S.Held.end(),
                               std::pair<MemId, MemId>{P, 0});
    auto Hi = std::lower_bound(Lo, S.Held.end(),
                               std::pair<MemId, MemId>{P + 1, 0});
    return std::make_pair(Lo, Hi);
  }

  static bool heldByPlace(const State &S, MemId X) {
    for (const auto &[P, Y] : S.Held)
      if (Y == X)
        return true;
    return false;
  }

  /// Whether P names one slot: a store there replaces what it held. A slot
  /// of a computed key stands for many.
  bool exactPlace(MemId P) const {
    for (uint32_t Step : M.key(P).Path)
      if (Step == MemTable::kElement || Step == MemTable::kEverySlot)
        return false;
    return true;
  }

  /// P lets go of what it held (it is cleared, or overwritten when
  /// exact; with Slots, every slot of P's container): returns that memory.
  std::vector<MemId> release(State &S, MemId P, bool Slots) {
    std::vector<MemId> Let;
    if (!Slots) { // the pairs of one place are contiguous (Held is sorted)
      auto [It, End] = heldAt(S, P);
      for (auto I = It; I != End; ++I)
        Let.push_back(I->second);
      S.Held.erase(It, End);
      return Let;
    }
    MemId W = M.wildcard(P);
    llvm::erase_if(S.Held, [&](const std::pair<MemId, MemId> &H) {
      bool Here = H.first == P || M.wildcard(H.first) == W;
      if (Here)
        Let.push_back(H.second);
      return Here;
    });
    return Let;
  }
  /// Memory let go of at At that nothing else holds dies there (HeldBy:
  /// where the object was made whose death let go of it).
  void letGo(State &S, const std::vector<MemId> &Let, SrcLoc At,
             SrcLoc HeldBy = SrcLoc()) {
    for (MemId X : Let)
      if (!S.isDead(X) && watched(S, X) && !heldBySomeVar(S, X))
        die(S, X, At, false, HeldBy);
  }

  void die(State &S, MemId X, SrcLoc At, bool AtReturn,
           SrcLoc HeldBy = SrcLoc()) {
    // Someone outside, or a place, still holds it; raw memory outlives
    // every holder of its address (it leaks) until it is freed.
    if (memSetHas(S.Escaped, X) || heldByPlace(S, X) || raw(X))
      return;
    S.markDead(X, At);
    if (auto It = OutsideUse.find(X);
        It != OutsideUse.end() && !memSetHas(S.Bound, X))
      addLocalBind(LocalBindEffect{It->second.first, It->second.second, At});
    if (Emit && Rec)
      Facts.Deaths.push_back(DeathFact{X, At, AtReturn, S.Cap,
                                       memSetHas(S.Pending, X),
                                       memSetHas(S.Bound, X), HeldBy});
    if (!isHolder(X))
      return;
    // What only the dead object's fields (the container's slots) held
    // dies with it: a `Seqlen` built before the capture takes the buffers
    // its constructor made along.
    std::vector<MemId> Let;
    llvm::erase_if(S.Held, [&](const std::pair<MemId, MemId> &H) {
      bool Below = below(H.first, X);
      if (Below)
        Let.push_back(H.second);
      return Below;
    });
    letGo(S, Let, At, Cx.Allocs[M.key(X).A].At);
  }

  /// Raw memory this function (or a callee) made (Inst::Manual).
  bool raw(MemId X) const {
    return isLocalMemory(X) && Cx.Allocs[M.key(X).A].Manual;
  }

  /// The death of raw memory X freed at At (AfterBind: bound into a task
  /// before; Replayed: a graph was replayed after the free).
  static DeathFact freedDeath(const State &S, MemId X, SrcLoc At,
                              bool AfterBind, bool Replayed = false) {
    return DeathFact{X,        At,     false, S.Cap, memSetHas(S.Pending, X),
                     AfterBind, SrcLoc(), true, Replayed};
  }

  /// Raw memory freed: dead here, whoever holds its address. Memory bound
  /// into a graph's task stays in State::Freed: a replay after the free
  /// reads it (graphLaunched()), a destroy makes it harmless
  /// (graphDestroyed()), a return may leave a live graph with it
  /// (freedAtReturns()).
  void freeRaw(State &S, const Inst &I, uint32_t B, uint32_t Idx) {
    if (Emit && destroyFollows(B, Idx))
      FreedBeforeDestroy.insert(I.Loc);
    for (const Atom &A : get(S, I.A)) {
      if (A.Kind != Atom::Mem || !raw(A.M) || S.isDead(A.M))
        continue;
      MemId X = A.M;
      S.markDead(X, I.Loc);
      if (memSetHas(S.Bound, X)) {
        insertSorted(S.Freed, std::pair<MemId, SrcLoc>{X, I.Loc});
        continue;
      }
      // Used outside any region of this function's own and freed before
      // it returns: a caller that calls it inside a task update binds
      // memory that is gone (an op that frees the workspace it made).
      if (auto It = OutsideUse.find(X); It != OutsideUse.end())
        addLocalBind(LocalBindEffect{It->second.first, It->second.second,
                                     I.Loc, true});
      if (Emit && Rec && watched(S, X))
        Facts.Deaths.push_back(freedDeath(S, X, I.Loc, false));
    }
  }

  /// Whether instruction Idx of block B is followed, on some path, by a
  /// graph's destroy (here or in a callee): the function means to end the
  /// graph after a free there, and a return before it is an error path.
  bool destroyFollows(uint32_t B, uint32_t Idx) {
    auto Destroys = [&](const Inst &In) {
      if (In.Kind == Op::GraphDestroy)
        return true;
      return In.Kind == Op::Call &&
             llvm::any_of(In.Targets, [&](const CallTarget &T) {
               return T.Fn >= 0 && size_t(T.Fn) < Cx.Sums.size() &&
                      Cx.Sums[T.Fn].DestroysGraph;
             });
    };
    const auto &Insts = Fn.Blocks[B].Insts;
    for (size_t K = Idx + 1; K < Insts.size(); ++K)
      if (Destroys(Insts[K]))
        return true;
    // The blocks reachable from B's successors, each looked at once.
    std::vector<bool> Seen(Fn.Blocks.size());
    std::vector<uint32_t> Work;
    const Terminator &T = Fn.Blocks[B].Term;
    for (unsigned K = 0; K < T.numSuccs(); ++K)
      Work.push_back(T.Succ[K]);
    while (!Work.empty()) {
      uint32_t C = Work.back();
      Work.pop_back();
      if (C >= Fn.Blocks.size() || Seen[C])
        continue;
      Seen[C] = true;
      if (llvm::any_of(Fn.Blocks[C].Insts, Destroys))
        return true;
      const Terminator &CT = Fn.Blocks[C].Term;
      for (unsigned K = 0; K < CT.numSuccs(); ++K)
        Work.push_back(CT.Succ[K]);
    }
    return false;
  }

  /// A graph is replayed here (or in a callee): raw memory bound into a
  /// task and freed since is read by the replay, whatever comes after.
  void graphLaunched(const State &S) {
    if (!Emit)
      return;
    Sum.LaunchesGraph = true;
    if (Rec)
      for (const auto &[X, At] : S.Freed)
        Facts.Deaths.push_back(freedDeath(S, X, At, true, true));
  }

  /// A graph is destroyed here (or in a callee): no graph uses the memory
  /// bound into tasks so far, and freeing it is no longer a hazard.
  void graphDestroyed(State &S) {
    S.Bound.clear();
    S.Freed.clear();
    if (Emit)
      Sum.DestroysGraph = true;
  }

  llvm::SmallVector<MemId, 2> places(const State &S, const PlaceRef &P) {
    llvm::SmallVector<MemId, 2> Out;
    if (P.Kind == PlaceRef::Global) {
      Out.push_back(M.root(RootKind::Global, M.str(P.Name)));
      return Out;
    }
    uint32_t Step = P.Kind == PlaceRef::Field ? M.str(P.Name)
                    : P.EverySlot             ? MemTable::kEverySlot
                                              : M.elementStep(P.Key);
    for (const Atom &A : get(S, P.Base))
      if (A.Kind == Atom::Mem || A.Kind == Atom::Weak) {
        MemId C = M.child(A.M, Step);
        if (std::find(Out.begin(), Out.end(), C) == Out.end())
          Out.push_back(C);
      }
    return Out;
  }

  void inst(State &S, const Inst &I, uint32_t B, uint32_t Idx) {
    switch (I.Kind) {
    case Op::Const:
      assign(S, I.Dst, Value(), I.Loc);
      break;
    case Op::Null:
      assign(S, I.Dst, Value(Atom::null(Cx.nullSite(I.Loc))), I.Loc);
      break;
    case Op::Copy: {
      const Truth *T = S.truth(I.A);
      std::optional<Truth> Keep;
      if (T)
        Keep = *T;
      assign(S, I.Dst, get(S, I.A), I.Loc);
      if (Keep && I.Dst != NoVar)
        S.setTruth(I.Dst, *Keep);
      if (Emit && Rec)
        noteWorkspaceName(S, I);
      break;
    }
    case Op::Alloc: {
      // An object too is the site's own: it dies with its last holder, and
      // the facts name it as its class's place (close()).
      MemId X = M.root(RootKind::Alloc, uint32_t(Cx.allocSite(F, B, Idx)));
      // The site's memory of a loop's next iteration is alive again (what
      // held the last one still counts: the site stands for both).
      S.revive(X);
      // Raw memory allocated after a free may take the freed buffer's
      // place in the tasks' arguments (a workspace grown: freed, allocated
      // anew into the variable an argument array points at, bound again;
      // a loop that allocates, binds and frees per iteration): the freed
      // memory is no longer known to be read by a later replay.
      if (I.Manual)
        S.Freed.clear();
      made(S, Value(Atom::mem(X)));
      assign(S, I.Dst, Value(Atom::mem(X)), I.Loc);
      break;
    }
    case Op::WeakRef:
      convert(S, I);
      break;
    case Op::Call:
      call(S, I, B, Idx);
      break;
    case Op::Read: {
      Value V;
      if (I.Class >= 0) { // a handed-in reference: the class's shared object
        assign(S, I.Dst, Value(Atom::mem(M.root(RootKind::Shared,
                                                uint32_t(I.Class)))),
               I.Loc);
        break;
      }
      for (MemId P : places(S, I.P)) {
        V.add(Atom::mem(P));
        if (!I.P.Spelling.empty())
          Spelling.try_emplace(P, I.P.Spelling);
        if (I.MayBeAbsent && !memSetHas(S.NonNull, P))
          V.add(Atom::null(Cx.nullSite(I.Loc)));
        // The local memory this function stored there: a weak alias of
        // the read is one of that memory, which dies with its holders.
        for (auto [It, End] = heldAt(S, P); It != End; ++It)
          V.add(Atom::mem(It->second));
        // And what it stored at a slot that may be this one: a read of a
        // computed key (`{**d}` copies `d[*]`) may be any constant key's
        // slot, a read of a constant key may be a computed key's.
        if (hasElementStep(P))
          for (const auto &[Q, Y] : S.Held)
            if (Q != P && M.key(Q).Path.size() == M.key(P).Path.size() &&
                within(Q, P))
              V.add(Atom::mem(Y));
        // The raw addresses stored there: the memory they point at; and
        // the places' memory a local container was filled with.
        MemId WP = M.wildcard(P);
        auto Here = [&](MemId Q) { return Q == P || M.wildcard(Q) == WP; };
        for (const State::Address &Ad : S.Addressed)
          if (Here(Ad.Place))
            V.add(Atom::weak(Ad.Memory, Ad.Conv));
        for (const auto &[Q, X] : S.Stored)
          if (Here(Q))
            V.add(Atom::mem(X));
      }
      if (V.empty())
        V.add(Atom::unknown());
      assign(S, I.Dst, std::move(V), I.Loc);
      break;
    }
    case Op::Store: {
      Value V = get(S, I.A);
      for (MemId P : places(S, I.P)) {
        store(S, P, V, I.Loc, I.P.Spelling, S.Cap, memSetHas(S.Empty, P),
              I.P.KeyPerLayer, I.IfAbsent);
        knowEmpty(S, P, false);
        // May hold None now: neither known (a place known to hold a value
        // is not filled).
        if (V.has(Atom::Null) && !I.IfAbsent)
          forget(S.NonNull, P);
      }
      break;
    }
    case Op::Clear:
      for (MemId P : places(S, I.P)) {
        if (Emit)
          clear(P, I.Loc, I.P.Spelling, S.Cap);
        knowEmpty(S, P, true);
        letGo(S, release(S, P, !exactPlace(P)), I.Loc);
      }
      break;
    case Op::Use: {
      Value V = get(S, I.A);
      for (const Atom &A : V) {
        SrcLoc DiedAt;
        if (Emit && Rec && isWeakRef(A) && S.isDead(A.M, &DiedAt))
          Facts.Danglings.push_back(
              DanglingFact{A.W, A.M, DiedAt, I.Loc, S.Cap,
                           memSetHas(S.DeadBeforeCapture, A.M)});
      }
      int32_t R = bindingRegion(S);
      if (Emit)
        use(V, I.Loc, spellingOf(V), S.Cap, S.Stream, false, R);
      if (R >= 0)
        bind(S, V, I.Loc, R);
      else
        useOutsideRegions(S, V, I.Loc);
      break;
    }
    case Op::Test: {
      Truth T;
      Value Subject = get(S, I.A);
      switch (I.Test) {
      case TestKind::CapturePredicate:
        T.Kind = Truth::Capture;
        T.At = I.Loc;
        break;
      case TestKind::SessionPredicate:
        T.Kind = Truth::Session;
        T.At = I.Loc;
        break;
      case TestKind::IsNull:
        T.Kind = Truth::IsNull;
        T.Var = I.A;
        for (const Atom &A : Subject)
          if (A.Kind == Atom::Mem)
            memSetAdd(T.Places, A.M);
        break;
      case TestKind::PlaceEmpty:
        T.Kind = Truth::Empty;
        for (MemId P : places(S, I.P))
          memSetAdd(T.Places, P);
        break;
      case TestKind::SizeCheck:
        for (const Atom &A : Subject)
          if (A.Kind == Atom::Mem)
            memSetAdd(SizeChecked, A.M);
        break;
      case TestKind::IsTensor:
        T.Kind = Truth::IsTensor;
        T.Var = I.A;
        break;
      }
      assign(S, I.Dst, Value(), I.Loc);
      if (I.Dst != NoVar && T.Kind != Truth::None)
        S.setTruth(I.Dst, std::move(T));
      break;
    }
    case Op::Not: {
      const Truth *T = S.truth(I.A);
      std::optional<Truth> N;
      if (T) {
        N = *T;
        N->Positive = !N->Positive;
      }
      assign(S, I.Dst, Value(), I.Loc);
      if (N && I.Dst != NoVar)
        S.setTruth(I.Dst, std::move(*N));
      break;
    }
    case Op::RegionBegin:
      if (I.Region == RegionKind::Capture ||
          I.Region == RegionKind::CaptureSession)
        S.RegionMoved = true;
      if (I.Region == RegionKind::Capture) {
        S.Cap.Mask = CaptureState::Inside;
        S.Cap.Region = Cx.regionOf(F, B, Idx);
        S.DeadBeforeCapture.clear();
        if (S.Cap.inSession())
          for (const auto &D : S.Dead)
            memSetAdd(S.DeadBeforeCapture, D.first);
        // The graph: its own death is watched (a local graph that dies
        // with its inputs leaves nothing to replay).
        Value G = get(S, I.A);
        for (const Atom &A : G)
          if (A.Kind == Atom::Mem && isLocalMemory(A.M))
            memSetAdd(Watched, A.M);
        if (Emit && S.Cap.Region >= 0) {
          Cx.joinRegionGraph(S.Cap.Region, G);
          if (std::find(OwnCaptures.begin(), OwnCaptures.end(),
                        S.Cap.Region) == OwnCaptures.end())
            OwnCaptures.push_back(S.Cap.Region);
        }
      } else if (I.Region == RegionKind::TaskUpdate) {
        S.Update = Cx.regionOf(F, B, Idx);
      } else if (I.Region == RegionKind::CaptureSession) {
        S.Cap.SessionMask = CaptureState::Inside;
        S.Cap.Session = Cx.regionOf(F, B, Idx);
      } else if (I.Region == RegionKind::Stream) {
        S.Stream = int32_t(M.str(I.Key));
      }
      break;
    case Op::RegionEnd:
      if (I.Region == RegionKind::Capture ||
          I.Region == RegionKind::CaptureSession)
        S.RegionMoved = true;
      if (I.Region == RegionKind::Capture) {
        if (Emit && S.Cap.Region < 0 && (S.Cap.Mask & CaptureState::Inherit) &&
            !Sum.EndsCallersCaptureAt.valid())
          Sum.EndsCallersCaptureAt = I.Loc;
        // A stream capture names its graph where it ends.
        if (Emit && I.A != NoVar && S.Cap.Region >= 0)
          Cx.joinRegionGraph(S.Cap.Region, get(S, I.A));
        endRegion(S.Cap.Region, I.Loc);
        S.Cap.Mask = CaptureState::Outside;
        S.Cap.Region = -1;
      } else if (I.Region == RegionKind::TaskUpdate) {
        endRegion(S.Update, I.Loc);
        S.Update = -1;
      } else if (I.Region == RegionKind::CaptureSession) {
        endRegion(S.Cap.Session, I.Loc);
        S.Cap.SessionMask = CaptureState::Outside;
        S.Cap.Session = -1;
      } else if (I.Region == RegionKind::Stream) {
        S.Stream = -1;
      }
      break;
    case Op::Kill: {
      Value Old = get(S, I.A);
      S.set(I.A, Value());
      dropHolder(S, Old, I.Loc);
      break;
    }
    case Op::Escape:
      escape(S, get(S, I.A));
      break;
    case Op::Sync:
      if (Emit && Rec)
        Facts.StreamSync = true;
      break;
    case Op::Free:
      freeRaw(S, I, B, Idx);
      break;
    case Op::GraphDestroy:
      graphDestroyed(S);
      break;
    case Op::GraphLaunch:
      graphLaunched(S);
      break;
    }
  }

  // --- Weak references -------------------------------------------------------

  /// Where region Id (-1: none) ends, for its closing note: the first end
  /// this function reaches of a region it opened itself (a predicate's
  /// region has no end).
  void endRegion(int32_t Id, SrcLoc At) {
    if (Id < 0)
      return;
    RegionInfo &R = Cx.Regions[Id];
    if (R.Fn == F && !R.Predicate && !R.End.valid())
      R.End = At;
  }

  /// The memory behind the raw addresses V holds: its own address atoms,
  /// and those held at places below the objects it is, or below objects
  /// those places hold (a wrapper around a record around the address).
  Value addressesIn(const State &S, const Value &V) const {
    Value Out;
    llvm::SmallVector<MemId, 8> Objects;
    for (const Atom &A : V) {
      if (isAddress(A))
        Out.add(A);
      else if (A.Kind == Atom::Mem)
        Objects.push_back(A.M);
    }
    for (size_t K = 0; K < Objects.size() && K < 16; ++K) {
      MemId Obj = Objects[K];
      for (const State::Address &Ad : S.Addressed)
        if (below(Ad.Place, Obj))
          Out.add(Atom::weak(Ad.Memory, Ad.Conv));
      for (const auto &[Place, Held] : S.Held)
        if (below(Place, Obj) && !llvm::is_contained(Objects, Held))
          Objects.push_back(Held);
    }
    return Out;
  }

  void convert(State &S, const Inst &I) {
    Value V = get(S, I.A);
    if (I.Weak == WeakKind::OverAddress) {
      V = addressesIn(S, V);
      if (V.empty())
        return; // no address in it: the op's own tensor stands
    }
    // A raw address is taken of any memory, weakly held or not, and is no
    // conversion the weak-ref checks judge; converting an address (from_blob
    // over a pointer local) makes a weak reference of the memory behind it.
    const bool Addr = I.Weak == WeakKind::Address;
    ConvSite Site{I.Loc, F, true, -1, SrcLoc(), F};
    Site.Address = Addr;
    uint32_t C = Cx.conv(Site);
    if (Emit && !Addr)
      judgeConversion(S, I, V);
    Value R;
    for (const Atom &A : V) {
      switch (A.Kind) {
      case Atom::Mem:
        R.add(Atom::weak(A.M, C));
        if (isLocalMemory(A.M))
          memSetAdd(Watched, A.M);
        break;
      case Atom::Weak:
        R.add(Addr || isAddress(A) ? Atom::weak(A.M, C) : A);
        if (isLocalMemory(A.M))
          memSetAdd(Watched, A.M);
        break;
      case Atom::Null:
        if (!Addr)
          R.add(A);
        break;
      case Atom::Unknown:
        R.add(A);
        break;
      }
    }
    if (R.empty())
      R.add(Atom::unknown());
    assign(S, I.Dst, std::move(R), I.Loc);
    if (!Addr)
      noteProducer(I);
  }

  /// The conversion or call that computed a temporary, for the edit that
  /// drops an inner conversion.
  void noteProducer(const Inst &I) {
    if (I.Dst == NoVar)
      return;
    if (WeakProducer.size() <= size_t(I.Dst))
      WeakProducer.resize(I.Dst + 1, nullptr);
    WeakProducer[I.Dst] = &I;
  }
  bool nestedTemp(VarId V) const {
    return V != NoVar && size_t(V) < Fn.VarNames.size() &&
           Fn.VarNames[V].empty() && size_t(V) < WeakProducer.size() &&
           WeakProducer[V];
  }

  void judgeConversion(const State &S, const Inst &I, const Value &V) {
    // A weak reference converted again.
    bool Nested = nestedTemp(I.A) && WeakProducer[I.A]->Kind == Op::WeakRef;
    for (const Atom &A : V) {
      if (!isWeakRef(A))
        continue;
      const ConvSite &First = Cx.Convs[A.W];
      // Two primitives written in this function through a local: a visible
      // no-op (vLLM's wrappers weaken an output twice on purpose).
      if (!Nested && First.Direct && First.Fn == F)
        continue;
      if (Rec) {
        DoubleWeakFact D;
        D.At = I.Loc;
        D.First = A.W;
        if (Nested)
          D.Fixes.assign(WeakProducer[I.A]->Fixes.begin(),
                         WeakProducer[I.A]->Fixes.end());
        Facts.Doubles.push_back(std::move(D));
      }
      break;
    }
    // An empty value converted.
    for (const Atom &A : V)
      if (A.Kind == Atom::Null && Rec) {
        Facts.NullConversions.push_back(NullConversionFact{I.Loc, A.W});
        break;
      }
    // A value held at a place, converted without a check: empty when the
    // place may hold nothing (judged once the whole program is known).
    for (const Atom &A : V) {
      if (A.Kind != Atom::Mem || isLocalMemory(A.M) ||
          memSetHas(S.NonNull, A.M))
        continue;
      // Callers are told through the summary; an entry point's parameter
      // closes by its class (close() decides which applies).
      if (M.paramOf(A.M) >= 0)
        addConvert(ConvertEffect{A.M, I.Loc, true});
      if (M.key(A.M).Path.size() || M.key(A.M).Root == RootKind::Global)
        deferredNull(A.M, I.Loc, -1, 0, SrcLoc());
    }
    // Guarded conversions of parameters still matter to double weak refs.
    for (const Atom &A : V) {
      int P = A.Kind == Atom::Mem ? M.paramOf(A.M) : -1;
      if (P >= 0 && memSetHas(S.NonNull, A.M))
        addConvert(ConvertEffect{A.M, I.Loc, false});
    }
  }

  void addConvert(const ConvertEffect &E) {
    if (!Emit)
      return;
    Sum.addConvert(E);
  }

  void deferredNull(MemId Place, SrcLoc At, FnId Helper, uint32_t Param,
                    SrcLoc HelperAt) {
    if (!Emit || !Rec)
      return;
    if (auto C = close(Place))
      Facts.DeferredNulls.push_back(
          DeferredNullFact{*C, At, Helper, Param, HelperAt});
  }

  // --- Calls -----------------------------------------------------------------

  void call(State &S, const Inst &I, uint32_t B, uint32_t Idx) {
    if (I.Targets.empty()) {
      // Unknown code: it may keep its arguments; its result is new memory.
      for (VarId A : I.Args)
        escape(S, get(S, A));
      MemId X = M.root(RootKind::Alloc, uint32_t(Cx.allocSite(F, B, Idx)));
      made(S, Value(Atom::mem(X)));
      assign(S, I.Dst, Value(Atom::mem(X)), I.Loc);
      return;
    }
    Value R;
    bool Predicate = false, SessionPredicate = false, Destroys = false,
         Launches = false;
    for (const CallTarget &T : I.Targets) {
      if (T.Fn < 0 || size_t(T.Fn) >= Cx.Sums.size())
        continue;
      const Summary &Callee = Cx.Sums[T.Fn];
      std::vector<Value> Args(T.Args.size());
      for (size_t K = 0; K < T.Args.size(); ++K)
        Args[K] = get(S, T.Args[K]);
      R.join(subst(Callee.Returns, Args, T.Fn, I.Loc));
      // The returned objects hold what the callee made and left in them.
      insertSortedRun(S.Held, llvm::ArrayRef(Callee.ReturnedHeld));
      Predicate |= Callee.ReturnsCapturePredicate;
      SessionPredicate |= Callee.ReturnsSessionPredicate;
      applyEffects(S, I, T, Callee, Args);
      Destroys |= Callee.DestroysGraph;
      Launches |= Callee.LaunchesGraph;
    }
    if (Launches) // a replay wrapper, or a step that replays then tears down
      graphLaunched(S);
    if (Destroys)
      graphDestroyed(S);
    returnState(S, I);
    made(S, R);
    assign(S, I.Dst, std::move(R), I.Loc);
    noteProducer(I);
    if ((Predicate || SessionPredicate) && I.Dst != NoVar) {
      Truth T;
      T.Kind = Predicate ? Truth::Capture : Truth::Session;
      T.At = I.Loc;
      S.setTruth(I.Dst, std::move(T));
    }
  }

  SrcLoc argLoc(const Inst &I, VarId V) const {
    for (size_t K = 0; K < I.Args.size() && K < I.ArgLocs.size(); ++K)
      if (I.Args[K] == V)
        return I.ArgLocs[K];
    return I.Loc;
  }

  void applyEffects(State &S, const Inst &I, const CallTarget &T,
                    const Summary &Callee, const std::vector<Value> &Args) {
    // The state changes (escapes, pending weak stores) apply on every pass;
    // what is recorded only on the last.
    const bool Record = Emit && Rec;
    if (Record)
      Facts.Calls.push_back(CallFact{T.Fn, I.Loc, S.Cap});
    bool Reported = false;
    // A weak reference handed to a function that returns a weak reference
    // of that parameter: converted twice.
    for (const Atom &A : Callee.Returns) {
      int P = isWeakRef(A) ? M.paramOf(A.M) : -1;
      if (P < 0 || size_t(P) >= Args.size() || !M.key(A.M).Path.empty())
        continue;
      // The same weak-ref function applied twice through a local of this
      // function is as visible a no-op as two primitives.
      VarId ArgVar = T.Args[P];
      bool Named = ArgVar != NoVar && size_t(ArgVar) < Fn.VarNames.size() &&
                   !Fn.VarNames[ArgVar].empty();
      for (const Atom &Arg : Args[P])
        if (isWeakRef(Arg) && !Reported && Record &&
            !(Named && Cx.Convs[Arg.W].Fn == F &&
              Cx.Convs[Arg.W].Helper == T.Fn)) {
          DoubleWeakFact D;
          D.At = I.Loc;
          D.First = Arg.W;
          if (nestedTemp(ArgVar))
            D.Fixes.assign(WeakProducer[ArgVar]->Fixes.begin(),
                           WeakProducer[ArgVar]->Fixes.end());
          Facts.Doubles.push_back(std::move(D));
          Reported = true;
        }
    }
    for (const ConvertEffect &E : Callee.Converts) {
      // E.Of is below the callee's parameter AP: the notes name the callee
      // and that parameter, and point at the conversion itself.
      int AP = M.paramOf(E.Of);
      if (AP < 0 || size_t(AP) >= Args.size())
        continue;
      const MemKey K = M.key(E.Of);
      SrcLoc Passed = argLoc(I, T.Args[AP]);
      // Through a weak-ref function (one that returns the conversion), the
      // conversion the caller sees is the call.
      bool ThroughResult = false;
      for (const Atom &A : Callee.Returns)
        ThroughResult |= isWeakRef(A) && A.M == E.Of;
      SrcLoc ConvAt = ThroughResult ? I.Loc : E.At;
      for (const Atom &Arg : Args[AP]) {
        if (K.Path.empty() && isWeakRef(Arg) && !Reported && Record &&
            !ThroughResult) { // a returned conversion is judged above
          DoubleWeakFact D;
          D.At = I.Loc;
          D.First = Arg.W;
          D.Helper = T.Fn;
          D.Param = uint32_t(AP);
          D.PassedAt = Passed;
          D.HelperAt = ConvAt;
          Facts.Doubles.push_back(std::move(D));
          Reported = true;
        }
        if (K.Path.empty() && Arg.Kind == Atom::Null && E.Unguarded && Record)
          Facts.NullConversions.push_back(
              NullConversionFact{I.Loc, Arg.W, T.Fn, uint32_t(AP), ConvAt});
        if (Arg.Kind != Atom::Mem && Arg.Kind != Atom::Weak)
          continue;
        MemId X = M.rebase(Arg.M, K, 0);
        if (Arg.Kind == Atom::Mem && isLocalMemory(X))
          memSetAdd(Watched, X);
        if (Arg.Kind == Atom::Mem && K.Path.empty() && M.paramOf(X) >= 0 &&
            (!E.Unguarded || memSetHas(S.NonNull, X)))
          addConvert(ConvertEffect{X, ConvAt, false});
        if (!E.Unguarded || Arg.Kind != Atom::Mem || isLocalMemory(X) ||
            memSetHas(S.NonNull, X))
          continue;
        if (M.paramOf(X) >= 0)
          addConvert(ConvertEffect{X, ConvAt, true});
        if (M.key(X).Path.size() || M.key(X).Root == RootKind::Global)
          deferredNull(X, I.Loc, T.Fn, uint32_t(AP), ConvAt);
      }
    }
    for (const StoreEffect &E : Callee.Stores) {
      Value V = subst(E.V, Args, T.Fn, I.Loc);
      // Memory the call itself made (a constructor's buffers) comes from
      // the graph's pool when the call runs inside this function's capture.
      Value Made;
      for (const Atom &A : E.V)
        if (A.Kind == Atom::Mem && M.paramOf(A.M) < 0 && isLocalMemory(A.M))
          Made.add(A);
      madeInCapture(S, Made);
      ApplyingCall = I.Loc;
      for (MemId P : substPlace(E.Place, Args))
        store(S, P, V, E.At, E.Spelling, E.C.through(S.Cap),
              E.FirstFill || memSetHas(S.Empty, P), E.KeyPerLayer,
              E.IfAbsent);
      ApplyingCall = SrcLoc();
    }
    for (const ClearEffect &E : Callee.Clears)
      for (MemId P : substPlace(E.Place, Args))
        if (Emit)
          clear(P, E.At, E.Spelling, E.C.through(S.Cap));
    for (const UseEffect &E : Callee.Uses) {
      Value V = subst(E.V, Args, T.Fn, I.Loc);
      int32_t R = E.BindRegion >= 0 ? E.BindRegion : bindingRegion(S);
      if (Emit)
        use(V, E.At, E.Spelling, E.C.through(S.Cap),
            E.Stream >= 0 ? E.Stream : S.Stream, E.SizeChecked, R);
      if (R >= 0)
        bind(S, V, E.At, R, I.Loc);
      else
        useOutsideRegions(S, V, E.At);
    }
    // The callee's own memory its operations bound: inside this function's
    // task update, the updated task keeps it; outside any region of this
    // function's, this function's caller may be in one. (Inside a capture
    // of this function's, the callee allocated from the graph's pool.)
    int32_t Bind = bindingRegion(S);
    for (const LocalBindEffect &E : Callee.LocalBinds) {
      if (Bind < 0)
        addLocalBind(E);
      else if (Record && Cx.Regions[Bind].Kind == RegionKind::TaskUpdate)
        Facts.CalleeBinds.push_back(CalleeBindFact{I.Loc, Bind, E});
    }
    for (MemId X : Callee.Escapes)
      for (MemId P : substPlace(X, Args))
        escape(S, Value(Atom::mem(P)));
  }

  /// A callee's value in the caller's terms.
  Value subst(const Value &V, const std::vector<Value> &Args, FnId Callee,
              SrcLoc CallAt) {
    Value Out;
    for (const Atom &A : V) {
      if (A.Kind == Atom::Null || A.Kind == Atom::Unknown) {
        Out.add(A);
        continue;
      }
      int P = M.paramOf(A.M);
      uint32_t C = 0;
      if (A.Kind == Atom::Weak) {
        const ConvSite Inner = Cx.Convs[A.W];
        ConvSite Site{CallAt, F, false, Callee,
                      Inner.HelperAt.valid() ? Inner.HelperAt : Inner.At,
                      Inner.MadeIn};
        Site.Address = Inner.Address;
        C = Cx.conv(Site);
      }
      if (P < 0) {
        // A weak alias of memory the callee (or code it calls) made is the
        // callee's doing: it keeps the callee's conversion. Other memory
        // the callee made weak is converted, for this caller, at the call.
        bool Own = A.Kind == Atom::Weak && isLocalMemory(A.M) &&
                   Cx.Allocs[M.key(A.M).A].Fn != F;
        Out.add(A.Kind == Atom::Weak && !Own ? Atom::weak(A.M, C) : A);
        if (A.Kind == Atom::Weak && isLocalMemory(A.M))
          memSetAdd(Watched, A.M);
        continue;
      }
      if (size_t(P) >= Args.size())
        continue;
      const MemKey K = M.key(A.M);
      // The callee's parameter where it is no tensor: what the caller
      // hands there, less its tensors.
      const Value *Arg = &Args[P];
      Value NotTensors;
      if (A.isNotTensor() && K.Path.empty()) {
        NotTensors = typed(Args[P], false);
        Arg = &NotTensors;
      }
      for (const Atom &B : *Arg) {
        switch (B.Kind) {
        case Atom::Null:
          if (K.Path.empty())
            Out.add(B);
          break;
        case Atom::Unknown:
          Out.add(B);
          break;
        case Atom::Mem: {
          MemId X = M.rebase(B.M, K, 0);
          if (A.Kind == Atom::Weak) {
            Out.add(Atom::weak(X, C));
            if (isLocalMemory(X))
              memSetAdd(Watched, X);
          } else {
            Out.add(A.isNotTensor() ? Atom::notTensor(X) : Atom::mem(X));
          }
          break;
        }
        case Atom::Weak: {
          MemId X = M.rebase(B.M, K, 0);
          Out.add(K.Path.empty() ? B : Atom::mem(X));
          break;
        }
        }
      }
    }
    return widen(std::move(Out));
  }

  llvm::SmallVector<MemId, 2> substPlace(MemId Place,
                                         const std::vector<Value> &Args) {
    llvm::SmallVector<MemId, 2> Out;
    int P = M.paramOf(Place);
    if (P < 0) {
      Out.push_back(Place);
      return Out;
    }
    if (size_t(P) >= Args.size())
      return Out;
    const MemKey K = M.key(Place);
    for (const Atom &B : Args[P])
      if (B.Kind == Atom::Mem || B.Kind == Atom::Weak)
        Out.push_back(M.rebase(B.M, K, 0));
    return Out;
  }

  // --- Events ----------------------------------------------------------------

  bool involvesParam(MemId X) const { return M.paramOf(X) >= 0; }
  bool involvesParam(const Value &V) const {
    for (const Atom &A : V)
      if ((A.Kind == Atom::Mem || A.Kind == Atom::Weak) && involvesParam(A.M))
        return true;
    return false;
  }

  /// X in closed terms: a parameter of a function no in-tree code calls is
  /// an object of its stated class, or nothing anyone else names.
  std::optional<MemId> close(MemId X) {
    int P = M.paramOf(X);
    if (P < 0) {
      // A place of an object a constructor built here is, to the rest of
      // the program, that place of every object of its class. (A copy:
      // interning the class's root may move the table.)
      const MemKey K = M.key(X);
      if (K.Root == RootKind::Alloc && Cx.Allocs[K.A].Class >= 0)
        return M.rebase(
            M.root(RootKind::Inst, uint32_t(Cx.Allocs[K.A].Class)), K, 0);
      return X;
    }
    if (Cx.HasCallers[F])
      return std::nullopt;
    const MemKey K = M.key(X);
    if (size_t(P) < Fn.ParamClass.size() && Fn.ParamClass[P] >= 0)
      return M.rebase(M.root(RootKind::Inst, uint32_t(Fn.ParamClass[P])), K,
                      0);
    // An element of a container of a stated class (`runners:
    // list[GraphRunner]`, `for r in runners`) is an object of that class.
    if (size_t(P) < Fn.ParamElemClass.size() && Fn.ParamElemClass[P] >= 0 &&
        !K.Path.empty() && MemTable::isElement(K.Path[0]))
      return M.rebase(M.root(RootKind::Inst, uint32_t(Fn.ParamElemClass[P])),
                      K, 1);
    return std::nullopt;
  }
  Value close(const Value &V) {
    Value Out;
    for (const Atom &A : V) {
      if (A.Kind != Atom::Mem && A.Kind != Atom::Weak) {
        Out.add(A);
        continue;
      }
      if (auto C = close(A.M))
        Out.add(Atom{A.Kind, *C, A.W});
    }
    return Out;
  }

  std::string spellingOf(const Value &V) const {
    for (const Atom &A : V)
      if (A.Kind == Atom::Mem) {
        auto It = Spelling.find(A.M);
        if (It != Spelling.end())
          return It->second;
      }
    return {};
  }

  void store(State &S, MemId Place, const Value &V, SrcLoc At,
             const std::string &Sp, CaptureState C, bool FirstFill,
             bool KeyPerLayer, bool IfAbsent) {
    noteReach(Place, V);
    // A store into an empty place only fills it: what a held place holds
    // stays (and is not replaced).
    FirstFill |= IfAbsent || onlyFills(S, Place, V);
    llvm::erase_if(S.FillFor, [&](const std::pair<MemId, MemId> &P) {
      return P.first == Place;
    });
    // A strong store makes the place a holder of local memory (until the
    // place is overwritten, when an exact one); a weak one leaves the
    // memory to its other holders.
    std::vector<MemId> Old;
    if (exactPlace(Place) && !IfAbsent) {
      Old = release(S, Place, false);
      llvm::erase_if(S.Addressed, [&](const State::Address &Ad) {
        return Ad.Place == Place;
      });
      llvm::erase_if(S.Stored, [&](const std::pair<MemId, MemId> &St) {
        return St.first == Place;
      });
    } else if (!IfAbsent) {
      // A slot of a computed key stands for many, so a store there keeps
      // what the others hold; but a weak alias written where its own
      // memory is held (`d[n] = weak(d[n])`, `d[k] = weak(ws)` after
      // `d[k] = ws`) is the slot giving that memory up: no code keeps a
      // tensor and its weak alias side by side in one container.
      MemId W = M.wildcard(Place);
      for (const Atom &A : V)
        if (isWeakRef(A) && isLocalMemory(A.M))
          llvm::erase_if(S.Held, [&](const std::pair<MemId, MemId> &H) {
            bool Here = H.second == A.M &&
                        (H.first == Place || M.wildcard(H.first) == W);
            if (Here && !llvm::is_contained(Old, A.M))
              Old.push_back(A.M);
            return Here;
          });
    }
    // A slot of a local container (or a field of a local object) remembers
    // the places' memory stored there, which Held (local memory only) does
    // not: `reversed(runners)` holds the parameter's runners.
    bool InHolder = M.key(Place).Root == RootKind::Alloc &&
                    M.key(Place).Path.size() && holderSite(M.key(Place).A);
    // V's atoms are sorted by memory: the pairs of each list come in order.
    std::vector<std::pair<MemId, MemId>> NewStored, NewHeld;
    for (const Atom &A : V) {
      if (A.Kind == Atom::Mem && InHolder && !isLocalMemory(A.M))
        NewStored.push_back({Place, A.M});
      if (A.Kind == Atom::Mem && isLocalMemory(A.M)) {
        NewHeld.push_back({Place, A.M});
      } else if (isAddress(A)) {
        // Of a parameter's memory too: a wrapper the function builds around
        // its argument's address (TensorRT-LLM's TensorWrapper) holds it.
        if (isLocalMemory(A.M) || M.paramOf(A.M) >= 0)
          insertSorted(S.Addressed, State::Address{Place, A.M, A.W});
      } else if (A.Kind == Atom::Weak && isLocalMemory(A.M) &&
                 !memSetHas(S.Escaped, A.M)) {
        memSetAdd(S.Pending, A.M);
      }
    }
    insertSortedRun(S.Stored, llvm::ArrayRef(NewStored));
    insertSortedRun(S.Held, llvm::ArrayRef(NewHeld));
    letGo(S, Old, At);
    if (!Emit)
      return;
    bool Replayed = involvesParam(Place) || involvesParam(V);
    if (Replayed)
      addEffect(Sum.Stores,
                StoreEffect{Place, V, At, Sp, C, FirstFill, KeyPerLayer,
                            IfAbsent},
                hashOf(At, C, Place));
    // A store of what the callers pass is judged where they call, with
    // their values, capture state and what they know to be empty.
    if (!Rec || (Replayed && Cx.HasCallers[F]))
      return;
    auto P = close(Place);
    if (!P)
      return;
    Value CV = close(V);
    // An address held at a place makes no place below it anyone's.
    CV.removeIf([&](const Atom &A) { return isAddress(A); });
    Facts.Contents.push_back({*P, CV});
    int32_t Sized = -1;
    for (const Atom &A : CV) {
      if (isWeakRef(A) && isLocalMemory(A.M))
        Facts.WeakStores.push_back(WeakStoreFact{*P, A.M, A.W, At, Sp, C});
      else if (isWeakRef(A) && M.key(A.M).Root != RootKind::Alloc &&
               M.wildcard(A.M) == M.wildcard(*P))
        Facts.Weakenings.push_back(
            WeakStoreFact{*P, A.M, A.W, At, Sp, C, ApplyingCall});
      if (A.Kind == Atom::Mem && isLocalMemory(A.M) && Sized < 0 &&
          !KeyPerLayer) {
        const AllocSite &Site = Cx.Allocs[M.key(A.M).A];
        if (Site.SizedByCaller)
          Sized = int32_t(M.key(A.M).A);
      }
    }
    // A weak alias written into a slot is the weak-ref check's story; a
    // slot write replaces the workspace held there.
    if (!V.has(Atom::Weak))
      Facts.SlotWrites.push_back(SlotWriteFact{
          FirstFill ? SlotWriteFact::FirstFill : SlotWriteFact::Replace, *P,
          At, Sp, C, Sized});
  }

  /// A summary holds one effect per site (place, position, capture state):
  /// what several paths store or use there is one effect of their values
  /// joined. A recursive call applies the function's own summary again,
  /// with paths one step deeper: kept apart, each round of its component
  /// would add every combination of them (numpy's assert_equal, calling
  /// itself on `actual[k]`, grew its summary threefold per round).
  template <typename E>
  void addEffect(std::vector<E> &Effects, E X, uint64_t Hash) {
    llvm::SmallVector<uint32_t, 1> &Same = EffectIndex[{&Effects, Hash}];
    for (uint32_t I : Same)
      if (Effects[I].sameSite(X)) {
        if constexpr (!std::is_same_v<E, ClearEffect>)
          if (Effects[I].V.join(X.V))
            Effects[I].V = widen(std::move(Effects[I].V));
        return;
      }
    Same.push_back(uint32_t(Effects.size()));
    if constexpr (!std::is_same_v<E, ClearEffect>)
      X.V = widen(std::move(X.V));
    Effects.push_back(std::move(X));
  }
  static uint64_t hashOf(SrcLoc At, const CaptureState &C, uint32_t Extra) {
    return llvm::hash_combine(At.File, At.Line, At.Col, C.Mask, C.Region,
                              C.SessionMask, C.Session, Extra);
  }

  void clear(MemId Place, SrcLoc At, const std::string &Sp, CaptureState C) {
    if (involvesParam(Place))
      addEffect(Sum.Clears, ClearEffect{Place, At, Sp, C},
                hashOf(At, C, Place));
    if (!Rec)
      return;
    if (auto P = close(Place))
      Facts.SlotWrites.push_back(
          SlotWriteFact{SlotWriteFact::Clear, *P, At, Sp, C, -1});
  }

  void use(const Value &V, SrcLoc At, const std::string &Sp, CaptureState C,
           int32_t Stream, bool Checked = false, int32_t BindRegion = -1) {
    noteReach(NoPlace, V);
    if (involvesParam(V)) {
      bool AnyChecked = Checked;
      for (const Atom &A : V)
        AnyChecked |= A.Kind == Atom::Mem && memSetHas(SizeChecked, A.M);
      addEffect(Sum.Uses,
                UseEffect{V, At, Sp, C, Stream, AnyChecked, BindRegion},
                hashOf(At, C, uint32_t(Stream)));
    }
    if (!Rec)
      return;
    for (const Atom &A : V) {
      // An address read through is a use of the memory it points at.
      if (A.Kind != Atom::Mem && !isAddress(A))
        continue;
      auto P = close(A.M);
      if (!P || M.key(*P).Root == RootKind::Alloc)
        continue;
      Facts.Uses.push_back(PlaceUseFact{
          *P, At, Sp, C, Stream, Checked || memSetHas(SizeChecked, A.M),
          BindRegion >= 0 &&
              Cx.Regions[BindRegion].Kind == RegionKind::TaskUpdate});
    }
  }

  /// An operation of a task update, or of this function's own capture,
  /// uses V: local device memory in it is bound into the graph's task,
  /// which the graph uses at every later replay.
  void bind(State &S, const Value &V, SrcLoc At, int32_t Region,
            SrcLoc Via = SrcLoc()) {
    bool Capture = Cx.Regions[Region].Kind == RegionKind::Capture;
    for (auto [X, AddressAt] : handed(S, V)) {
      // A capture binds only memory from outside the graph's pool: what
      // the capture allocated is the pool's.
      if (!ownDeviceMemory(X) || (Capture && memSetHas(S.InPool, X)))
        continue;
      memSetAdd(S.Bound, X);
      memSetAdd(Watched, X);
      if (Emit && Rec)
        Facts.Binds.push_back(BindFact{X, At, Region, Via, AddressAt});
    }
  }

  /// Device memory this function (or a callee) made: what a task keeps the
  /// address of. A list of arguments or an object of the caller's is not.
  bool ownDeviceMemory(MemId X) const {
    return isLocalMemory(X) && Cx.Allocs[M.key(X).A].Device;
  }

  /// An operation outside any task update or capture of this function's
  /// own uses V: the caller may make the call inside a task update, which
  /// binds the device memory this function made (its deaths are watched,
  /// and one before the return is a LocalBindEffect).
  void useOutsideRegions(State &S, const Value &V, SrcLoc At) {
    for (auto [X, AddressAt] : handed(S, V)) {
      if (!ownDeviceMemory(X) || memSetHas(S.InPool, X))
        continue;
      memSetAdd(Watched, X);
      OutsideUse.try_emplace(X, At, AddressAt);
    }
  }

  /// A variable named like a workspace (the catalog's workspace names)
  /// names what it is given as one.
  void noteWorkspaceName(const State &S, const Inst &I) {
    if (I.Dst == NoVar || size_t(I.Dst) >= Fn.VarNames.size() ||
        Fn.VarNames[I.Dst].empty() || !Cx.Opts.IsWorkspaceName)
      return;
    // Asked once per variable, not at every copy into it.
    if (WorkspaceVar.empty())
      WorkspaceVar.assign(Fn.VarNames.size(), -1);
    int8_t &Named = WorkspaceVar[I.Dst];
    if (Named < 0)
      Named = Cx.Opts.IsWorkspaceName(I.Loc.File, Fn.VarNames[I.Dst]);
    if (!Named)
      return;
    for (const Atom &A : get(S, I.Dst))
      if (A.Kind == Atom::Mem)
        if (auto P = close(A.M))
          Facts.WorkspaceNamed.push_back(*P);
  }

  void addLocalBind(const LocalBindEffect &E) {
    if (Emit && !llvm::is_contained(Sum.LocalBinds, E))
      Sum.LocalBinds.push_back(E);
  }

  /// What an operation handed V reads, once each: the memory itself, the
  /// memory a raw address points at (with where the address was taken),
  /// and the memory whose addresses are stored in the objects it is handed
  /// (`launch(args)` after `args.ws = ws.data_ptr()`).
  llvm::SmallVector<std::pair<MemId, SrcLoc>, 4> handed(const State &S,
                                                         const Value &V) {
    llvm::SmallVector<std::pair<MemId, SrcLoc>, 4> Handed;
    llvm::SmallVector<MemId, 4> Objects; // whose places are handed too
    for (const Atom &A : V) {
      if (isAddress(A))
        Handed.push_back({A.M, Cx.Convs[A.W].At});
      if (A.Kind != Atom::Mem)
        continue;
      Handed.push_back({A.M, SrcLoc()});
      Objects.push_back(A.M);
    }
    // And the memory this function stored at the place, or in the fields
    // of the object (`attention(q, seqlen)` reads `seqlen.cu_seqlen_q`),
    // through the objects and containers held there, a few deep (a node's
    // parameters hold the argument array, which holds the addresses).
    for (size_t I = 0; I < Objects.size() && I < 16; ++I) {
      MemId Obj = Objects[I];
      for (const State::Address &Ad : S.Addressed)
        if (within(Ad.Place, Obj))
          Handed.push_back({Ad.Memory, Cx.Convs[Ad.Conv].At});
      for (const auto &[P, Y] : S.Held)
        if (within(P, Obj)) {
          Handed.push_back({Y, SrcLoc()});
          if (isHolder(Y) && std::find(Objects.begin(), Objects.end(), Y) ==
                                 Objects.end())
            Objects.push_back(Y);
        }
    }
    // Handed twice (read here and held here): once, as first handed.
    llvm::SmallVector<std::pair<MemId, SrcLoc>, 4> Once;
    for (const auto &H : Handed)
      if (llvm::none_of(Once, [&](const auto &O) { return O.first == H.first; }))
        Once.push_back(H);
    return Once;
  }

  /// The region whose tasks an operation here records: the open task
  /// update, else this function's own capture (a predicate's region has
  /// no graph of its own), else none.
  int32_t bindingRegion(const State &S) const {
    if (S.Update >= 0)
      return S.Update;
    if (S.Cap.Mask == CaptureState::Inside && S.Cap.Region >= 0) {
      const RegionInfo &R = Cx.Regions[S.Cap.Region];
      if (R.Fn == F && !R.Predicate)
        return S.Cap.Region;
    }
    return -1;
  }

  /// At a return: the local memory that lives on past it (held by a
  /// place, or returned), for keptGraphs() once every block is seen.
  void noteKeptGraphs(const State &S, const Value &Returned) {
    if (!Emit)
      return;
    for (const auto &[P, Y] : S.Held)
      memSetAdd(LivesOn, Y);
    for (const Atom &A : Returned)
      if (A.Kind == Atom::Mem)
        memSetAdd(LivesOn, A.M);
  }
  /// Which graphs of this function's captures live on, after the last
  /// pass: a return may come before a capture in its block order (a loop
  /// whose exit the walk reaches first), so the capture's graph is known
  /// only once every block is seen.
  void keptGraphs() {
    for (int32_t Id : OwnCaptures) {
      RegionInfo &Reg = Cx.Regions[Id];
      for (const Atom &A : Reg.Graph)
        if (A.Kind == Atom::Mem)
          Reg.GraphKept |= !isLocalMemory(A.M) || memSetHas(LivesOn, A.M);
    }
  }

  /// Raw memory freed after it was bound, and not destroyed with a graph
  /// before a return, dies while the graph lives on. Not where a destroy
  /// follows the free on some path: the return came first on an error
  /// path (`CHECK(aclrtFree(ws)); CHECK(aclmdlRIDestroy(model));`, where
  /// each CHECK may return). Nor when the function replays a graph itself
  /// or captured one of its own that it keeps nowhere (a sample's `main`:
  /// capture, replay, update, free; CUDA's jacobi sample: update, replay,
  /// free, the executable leaked): it drives the replays, and one after
  /// the free is reported there (graphLaunched()).
  void freedAtReturns() {
    bool LocalGraph = llvm::any_of(OwnCaptures, [&](int32_t Id) {
      return !Cx.Regions[Id].GraphKept;
    });
    if (!LocalGraph && !Sum.LaunchesGraph)
      for (const DeathFact &D : FreedAtReturn)
        if (!FreedBeforeDestroy.count(D.At))
          Facts.Deaths.push_back(D);
    FreedAtReturn.clear();
  }

  /// After a call: the capture state its callees return in (Summary::Exit),
  /// when one of them begins or ends a capture or a session and leaves it
  /// so: `cap.begin()` leaves the caller inside the capture it opened.
  void returnState(State &S, const Inst &I) {
    CaptureState After{0, -1, 0, -1};
    bool Moves = false;
    for (const CallTarget &T : I.Targets) {
      if (T.Fn < 0 || size_t(T.Fn) >= Cx.Sums.size())
        continue;
      const CaptureState &E = Cx.Sums[T.Fn].Exit;
      if (!E.Mask && !E.SessionMask)
        continue; // no return (yet): says nothing
      Moves |= E.Mask != CaptureState::Inherit ||
               E.SessionMask != CaptureState::Inherit;
      After.joinFrom(E.through(S.Cap));
    }
    if (!Moves)
      return;
    // A capture of this function's (or its caller's) the callee ends.
    if (S.Cap.Region >= 0 && !(After.Mask & CaptureState::Inside))
      for (const CallTarget &T : I.Targets)
        if (T.Fn >= 0 && size_t(T.Fn) < Cx.Sums.size())
          if (SrcLoc At = Cx.Sums[T.Fn].EndsCallersCaptureAt; At.valid()) {
            Cx.endRegionByCall(S.Cap.Region, At);
            break;
          }
    S.Cap = After;
    S.RegionMoved = true;
  }

  /// At most this many places known empty give memory made there a fill.
  static constexpr size_t MaxFillPlaces = 16;
  /// V's local memory is made here (or handed back by a call): from the
  /// graph's pool inside a capture, and a first fill of every place known
  /// to be empty here, until something is stored there.
  void made(State &S, const Value &V) {
    madeInCapture(S, V);
    for (const Atom &A : V) {
      if (A.Kind != Atom::Mem || !isLocalMemory(A.M))
        continue;
      llvm::erase_if(S.FillFor, [&](const std::pair<MemId, MemId> &P) {
        return P.second == A.M;
      });
      // A path that knows many places empty (generated code testing each
      // of many attributes) records none: a pair per place and memory
      // would make the state quadratic, and a missed fill only keeps the
      // store a replacement, as it was.
      if (S.Empty.size() > MaxFillPlaces)
        continue;
      for (MemId P : S.Empty)
        insertSorted(S.FillFor, std::pair<MemId, MemId>{P, A.M});
    }
  }

  /// Storing V at Place only fills it: each of V's memories is what the
  /// place holds already (its own contents read back, memory this function
  /// stored there) or memory made while the place was empty, nothing stored
  /// there since (State::FillFor).
  static bool onlyFills(const State &S, MemId Place, const Value &V) {
    if (V.empty())
      return false;
    for (const Atom &A : V) {
      if (A.Kind != Atom::Mem)
        return false;
      std::pair<MemId, MemId> PA{Place, A.M};
      if (A.M != Place &&
          !std::binary_search(S.Held.begin(), S.Held.end(), PA) &&
          !std::binary_search(S.FillFor.begin(), S.FillFor.end(), PA))
        return false;
    }
    return true;
  }

  /// Memory made while this function captures comes from the graph's pool.
  void madeInCapture(State &S, const Value &V) {
    if (S.Cap.Mask != CaptureState::Inside)
      return;
    for (const Atom &A : V)
      if (A.Kind == Atom::Mem && isLocalMemory(A.M))
        memSetAdd(S.InPool, A.M);
  }

  void escape(State &S, const Value &V) {
    for (const Atom &A : V) {
      if (A.Kind != Atom::Mem)
        continue;
      if (involvesParam(A.M)) {
        // A parameter handed back where it is no tensor (a conversion
        // helper's pass-through) is the caller's result, and only where the
        // caller handed no tensor: Returns says so, an escape cannot.
        if (Emit && !(A.isNotTensor() && M.key(A.M).Path.empty()))
          memSetAdd(Sum.Escapes, A.M);
      } else if (isLocalMemory(A.M)) {
        memSetAdd(S.Escaped, A.M);
        forget(S.Pending, A.M);
      }
    }
  }

  /// What the objects this function made and returns hold of the memory
  /// it made, a few holders deep (a dict of tensors, a record of a list).
  void noteReturnedHeld(const State &S, const Value &R) {
    llvm::SmallVector<MemId, 4> Objects;
    for (const Atom &A : R)
      if (A.Kind == Atom::Mem && isHolder(A.M))
        Objects.push_back(A.M);
    for (size_t I = 0; I < Objects.size() && I < 8; ++I)
      for (const auto &[P, Y] : S.Held)
        if (below(P, Objects[I]) && isLocalMemory(Y)) {
          insertSorted(Sum.ReturnedHeld, std::pair<MemId, MemId>{P, Y});
          if (isHolder(Y) && !llvm::is_contained(Objects, Y))
            Objects.push_back(Y);
        }
  }

  void returns(State &S, const Terminator &T) {
    Value R = get(S, T.Value);
    Sum.Returns.join(R);
    Sum.Exit.joinFrom(S.RegionMoved ? S.Cap : CaptureState());
    noteKeptGraphs(S, R);
    if (const Truth *Tr = S.truth(T.Value))
      if (Tr->Positive) {
        Sum.ReturnsCapturePredicate |= Tr->Kind == Truth::Capture;
        Sum.ReturnsSessionPredicate |= Tr->Kind == Truth::Session;
      }
    escape(S, R);
    noteReturnedHeld(S, R);
    // Raw memory bound into a task and freed, with no graph destroyed
    // since: the graph may be replayed after this return (judged once
    // every block is seen: freedAtReturns()).
    if (Rec)
      for (const auto &[X, At] : S.Freed)
        FreedAtReturn.push_back(freedDeath(S, X, At, true));
    // Every local dies at the return.
    std::vector<MemId> Dying;
    for (const auto &[V, Val] : S.Vals)
      for (const Atom &A : Val)
        if (A.Kind == Atom::Mem && !S.isDead(A.M) && watched(S, A.M) &&
            std::find(Dying.begin(), Dying.end(), A.M) == Dying.end())
          Dying.push_back(A.M);
    // All at once: what a dying local container's slots held is not kept
    // by them (`op(q, [ws])` leaves its list alive to the return), so a
    // memory a holder kept is tried again once the holder is gone.
    for (bool More = true; More;) {
      More = false;
      for (MemId X : Dying)
        if (!S.isDead(X)) {
          die(S, X, T.Loc, true);
          More |= S.isDead(X) && isHolder(X);
        }
    }
    if (Emit && Rec)
      notePlaceHeld(S);
  }

  /// The tensors that outlive this return only through places every
  /// function can name (PlaceHeld): a helper that later weakens such a
  /// place in place (`P[k] = weak(P[k])`) lets them die.
  void notePlaceHeld(const State &S) {
    llvm::SmallVector<std::pair<MemId, MemId>, 4> Found;
    llvm::SmallVector<MemId, 4> Unnamed; // also held where no one else sees
    for (const auto &[P, Y] : S.Held) {
      if (!allocatedAs(Y, true) || S.isDead(Y) || memSetHas(S.Escaped, Y) ||
          llvm::is_contained(Unnamed, Y))
        continue;
      std::optional<MemId> CP = close(P);
      if (!CP || M.key(*CP).Root == RootKind::Alloc) {
        Unnamed.push_back(Y);
        continue;
      }
      Found.push_back({Y, *CP});
    }
    for (const auto &[Y, P] : Found)
      if (!llvm::is_contained(Unnamed, Y) &&
          !llvm::is_contained(Facts.PlaceHeld, std::make_pair(Y, P)))
        Facts.PlaceHeld.push_back({Y, P});
  }

  Context &Cx;
  MemTable &M;
  FnId F;
  const Function &Fn;
  bool Rec;
  FunctionFacts &Facts;
  Summary Sum;
  bool Emit = false;
  static constexpr MemId NoPlace = ~MemId(0);
  /// Filled by noteReach in the emitting pass.
  std::vector<std::pair<uint32_t, uint32_t>> LocalEdges;
  std::vector<uint32_t> VisibleSites;
  std::vector<State> In;
  TemporaryEnds Temps;
  /// Reverse post-order (the last pass's order), and the worklist's order
  /// with each block's position in it.
  std::vector<uint32_t> Rpo, Order, Position;
  MemSet Watched, SizeChecked;
  /// Local device memory an operation outside this function's own regions
  /// used: the first such operation, and where the address it read was
  /// taken (useOutsideRegions).
  llvm::DenseMap<MemId, std::pair<SrcLoc, SrcLoc>> OutsideUse;
  /// Per variable: named like a workspace (1), not (0), not asked yet (-1).
  std::vector<int8_t> WorkspaceVar;
  /// The effects of Sum by hash (addEffect), per effect list.
  llvm::DenseMap<std::pair<const void *, uint64_t>,
                 llvm::SmallVector<uint32_t, 1>>
      EffectIndex;
  /// The capture regions this function opened (their graphs, for returns).
  std::vector<int32_t> OwnCaptures;
  std::vector<DeathFact> FreedAtReturn; ///< freedAtReturns() judges them.
  std::set<SrcLoc> FreedBeforeDestroy;  ///< Frees a destroy follows.
  /// Local memory that lives on past some return (noteKeptGraphs).
  MemSet LivesOn;
  llvm::DenseMap<MemId, std::string> Spelling;
  std::vector<const Inst *> WeakProducer;
  /// The call whose callee's store effects are being applied (store()).
  SrcLoc ApplyingCall;
};

} // namespace

Summary interpret(Context &Cx, FnId F, bool RecordFacts) {
  return Interp(Cx, F, RecordFacts).run();
}

} // namespace tether::engine
