//===- WeakRefBeforeCaptureEnd.cpp - tether-weak-ref-before-capture-end ---===//
//
// In capture, a weak alias of memory whose strong holders are all locals
// of the function is stored into a place that in-capture code reads and
// hands to an operation (the next layer, or this code on its next call);
// or the weak alias itself is used after its last holder died.
//
//===----------------------------------------------------------------------===//
#include "engine/checks/Checks.h"
#include "common/Messages.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace tether::engine {
namespace {

/// Where the last strong reference to Memory dies inside the capture (or,
/// Session, the capture session), if it does: a rebinding or `del` there,
/// else the function's return when the region outlives the call.
const DeathFact *deathOf(const Query &Q, FnId F, MemId Memory,
                         const CaptureState &C, bool Session = false) {
  const FunctionFacts &Fa = Q.Cx.Facts[F];
  // Only deaths on a path that stored the weak alias and gave the memory
  // no strong holder outside the function count.
  for (const DeathFact &D : Fa.Deaths)
    if (D.Memory == Memory && D.AfterWeakStore && !D.AtReturn &&
        (Session ? Q.inSession(F, D.C) : Q.inCapture(F, D.C)))
      return &D;
  const Function &Fn = Q.Cx.P.Functions[F];
  // Inside a region of its own function the local outlives the region; a
  // module's names live as long as the module.
  uint8_t Mask = Session ? C.SessionMask : C.Mask;
  int32_t Region = Session ? C.Session : C.Region;
  bool OwnRegion = (Mask & CaptureState::Inside) && Region >= 0 &&
                   !Q.Cx.Regions[Region].Predicate &&
                   Q.Cx.Regions[Region].Fn == F;
  if (OwnRegion || Fn.ModuleBody)
    return nullptr;
  for (const DeathFact &D : Fa.Deaths)
    if (D.Memory == Memory && D.AfterWeakStore && D.AtReturn)
      return &D;
  return nullptr;
}

/// The function that made Memory, when it is not F: a callee's local
/// stored weakly into a place of the caller's (the store is recorded
/// where the caller's place is known, the deaths where the memory lives).
FnId makerOf(const Query &Q, FnId F, MemId Memory) {
  const MemKey &K = Q.Cx.Mem.key(Memory);
  if (K.Root != RootKind::Alloc || !K.Path.empty())
    return F;
  FnId Maker = Q.Cx.Allocs[K.A].Fn;
  return Maker >= 0 ? Maker : F;
}

/// One finding per root cause. A store helper that converts what its
/// callers hand it and stores the weak alias is reported at each call that
/// hands it memory that dies (the helper is right for callers that keep the
/// memory alive). When every call that reaches the store does so, the store
/// helper is the bug: it is reported once, at its store, with a note per
/// call path.
class RootCauses {
public:
  void considered(const WeakStoreFact &W, const ConvSite &C) {
    Groups[W.StoreAt].Sites.insert(C.At);
  }
  void reported(const WeakStoreFact &W, const ConvSite &C, size_t Index) {
    Group &G = Groups[W.StoreAt];
    G.Reported.insert(C.At);
    // A caller that made the weak reference itself has a bug of its own.
    if (C.viaHelper())
      G.Found.push_back({C.At, C.Fn, Index});
  }
  void merge(const Context &Cx, std::vector<Finding> &Out) const {
    std::vector<bool> Drop(Out.size(), false);
    std::vector<Finding> Merged;
    for (const auto &[Root, G] : Groups) {
      if (G.Found.size() < 2 || G.Reported.size() != G.Sites.size())
        continue;
      std::vector<Member> Ms = G.Found;
      // In source order by path: file ids follow the order a frontend
      // read the files in, which differs between the CLI and the editor.
      llvm::sort(Ms, [&](const Member &A, const Member &B) {
        Location LA = Cx.loc(A.At), LB = Cx.loc(B.At);
        return std::tie(LA.File, LA.Line, LA.Column) <
               std::tie(LB.File, LB.Line, LB.Column);
      });
      Finding Fi = Out[Ms[0].Index];
      Fi.Loc = Cx.loc(Root); // the store
      Fi.Notes.insert(Fi.Notes.begin(),
                      Note{Cx.loc(Ms[0].At),
                           fill(msg::HelperCallPath, Cx.displayName(Ms[0].Fn))});
      for (size_t K = 1; K < Ms.size(); ++K)
        Fi.Notes.push_back(
            Note{Cx.loc(Ms[K].At),
                 fill(msg::HelperCallPath, Cx.displayName(Ms[K].Fn))});
      for (const Member &M : Ms)
        Drop[M.Index] = true;
      Merged.push_back(std::move(Fi));
    }
    size_t Kept = 0;
    for (size_t I = 0; I < Out.size(); ++I)
      if (!Drop[I]) {
        if (Kept != I)
          Out[Kept] = std::move(Out[I]);
        ++Kept;
      }
    Out.resize(Kept);
    for (Finding &F : Merged)
      Out.push_back(std::move(F));
  }

private:
  struct Member {
    SrcLoc At;
    FnId Fn;
    size_t Index;
  };
  struct Group {
    /// Every conversion (a caller's call of the helper, or its own) whose
    /// alias reaches the store, and those reported.
    std::set<SrcLoc> Sites, Reported;
    std::vector<Member> Found; ///< The reported calls of the helper.
  };
  std::map<SrcLoc, Group> Groups;
};

/// A tensor that only Place keeps once the function that made it returns
/// (its allocation site's position), when no code copies what Place
/// holds into another place: weakening Place in place lets it die.
std::optional<SrcLoc> keptOnlyBy(const Query &Q, MemId Place) {
  const Context &Cx = Q.Cx;
  for (const FunctionFacts &Fa : Cx.Facts)
    for (const auto &[Place2, V] : Fa.Contents) {
      if (Q.samePlace(Place2, Place))
        continue;
      for (const Atom &A : V)
        if (A.Kind == Atom::Mem && Cx.Mem.key(A.M).Root != RootKind::Alloc &&
            Q.samePlace(A.M, Place))
          return std::nullopt; // another place may keep it too
    }
  for (const FunctionFacts &Fa : Cx.Facts)
    for (const auto &[Y, P] : Fa.PlaceHeld) {
      if (!Q.samePlace(P, Place))
        continue;
      MemId Held = Y; // a binding is no lambda capture before C++20
      bool Elsewhere = llvm::any_of(Fa.PlaceHeld, [&](const auto &H) {
        return H.first == Held && !Q.samePlace(H.second, Place);
      });
      if (!Elsewhere)
        return Cx.Allocs[Cx.Mem.key(Y).A].At;
    }
  return std::nullopt;
}

/// The points of function F that a path from position At runs (At itself
/// included: code every layer runs, called once per layer). Computed once
/// per weakening, asked for each call and use of the capture's function.
class RunsAfter {
public:
  RunsAfter(const Function &F, SrcLoc At) : F(F), Reached(F.Blocks.size()) {
    for (uint32_t B = 0; B < F.Blocks.size(); ++B)
      for (uint32_t I = 0; I < F.Blocks[B].Insts.size(); ++I)
        if (F.Blocks[B].Insts[I].Loc == At) {
          From.push_back({B, I});
          successors(B);
        }
    while (!Work.empty()) {
      uint32_t B = Work.back();
      Work.pop_back();
      successors(B);
    }
  }
  /// Whether an instruction at position Later runs after At.
  bool operator()(SrcLoc Later) const {
    for (uint32_t B = 0; B < F.Blocks.size(); ++B)
      for (uint32_t I = 0; I < F.Blocks[B].Insts.size(); ++I) {
        if (!(F.Blocks[B].Insts[I].Loc == Later))
          continue;
        if (Reached[B])
          return true;
        for (auto [FB, FI] : From)
          if (FB == B && I >= FI)
            return true;
      }
    return false;
  }

private:
  void successors(uint32_t B) {
    const Terminator &T = F.Blocks[B].Term;
    for (unsigned K = 0; K < T.numSuccs(); ++K)
      if (T.Succ[K] < F.Blocks.size() && !Reached[T.Succ[K]]) {
        Reached[T.Succ[K]] = true;
        Work.push_back(T.Succ[K]);
      }
  }
  const Function &F;
  std::vector<bool> Reached; ///< Blocks entered from a block of At.
  std::vector<std::pair<uint32_t, uint32_t>> From; ///< At's (block, index).
  std::vector<uint32_t> Work;
};

/// An in-capture use of Place that runs after position At of capture
/// Region's own function: there, or in a function that a call made there
/// (inside the region, on a path from At: a later layer, or the next
/// turn of a loop over the layers) reaches.
const Query::UseRef *useFrom(const Query &Q, MemId Place, int32_t Region,
                             SrcLoc At) {
  const Context &Cx = Q.Cx;
  FnId Owner = Cx.Regions[Region].Fn;
  RunsAfter After(Cx.P.Functions[Owner], At);
  auto InRegion = [&](const CaptureState &C) {
    return (C.Mask & CaptureState::Inside) && C.Region == Region;
  };
  std::vector<bool> Reached(Cx.Facts.size(), false);
  std::vector<FnId> Work;
  for (const CallFact &Call : Cx.Facts[Owner].Calls)
    if (InRegion(Call.C) && Call.Callee >= 0 && !Reached[Call.Callee] &&
        After(Call.At)) {
      Reached[Call.Callee] = true;
      Work.push_back(Call.Callee);
    }
  while (!Work.empty()) {
    FnId G = Work.back();
    Work.pop_back();
    for (const CallFact &Call : Cx.Facts[G].Calls)
      if (Call.Callee >= 0 && !Reached[Call.Callee]) {
        Reached[Call.Callee] = true;
        Work.push_back(Call.Callee);
      }
  }
  for (const Query::UseRef &R : Q.captureUses()) {
    if (!Q.samePlace(R.U->Place, Place))
      continue;
    if (R.Fn == Owner ? InRegion(R.U->C) && After(R.U->At)
                      : Reached[R.Fn])
      return &R;
  }
  return nullptr;
}

} // namespace

void checkWeakRefBeforeCaptureEnd(const Query &Q, std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  std::set<SrcLoc> Seen; // one finding of this check per position
  RootCauses Roots;
  // Session: the capture-session form, told from the session's ends.
  auto Report = [&](uint32_t Conv, FnId F, const CaptureState &C,
                    std::vector<Note> Middle,
                    const WeakStoreFact *Store = nullptr, bool Session = false) {
    SrcLoc At = Cx.Convs[Conv].At;
    if (!Seen.insert(At).second)
      return;
    Finding Fi;
    Fi.Check = msg::WeakRefBeforeCaptureEnd;
    Fi.Loc = Cx.loc(At);
    Fi.Message = Session ? msg::WeakRefBeforeSessionEndWarning
                         : msg::WeakRefBeforeCaptureEndWarning;
    if (Session)
      Q.sessionOpeningNotes(F, C, Fi.Notes);
    else
      Q.openingNotes(F, C, Fi.Notes);
    Q.makerNote(Conv, Fi.Notes);
    Fi.Notes.insert(Fi.Notes.end(), Middle.begin(), Middle.end());
    if (Session)
      Q.sessionClosingNote(F, C, Fi.Notes);
    else
      Q.closingNote(F, C, Fi.Notes);
    if (Store)
      Roots.reported(*Store, Cx.Convs[Conv], Out.size());
    Out.push_back(std::move(Fi));
  };
  // The session form: made between two captures of a session (or in one),
  // the memory dies, and a later capture of the session reads the alias.
  // The pool the captures share hands the memory to the later capture's
  // own allocations, so what it reads is no longer what was stored.
  auto ReportSession = [&](const WeakStoreFact &W, FnId F) {
    FnId G = makerOf(Q, F, W.Memory);
    CaptureState Inherited;
    const DeathFact *Dies =
        deathOf(Q, G, W.Memory, G == F ? W.C : Inherited, true);
    if (!Dies)
      return;
    const Query::UseRef *Use = Q.findSessionUse(W.Place, Q.sessionOf(F, W.C), F);
    // The capture the alias was made in reading it is the capture form's.
    if (!Use || (Q.inCapture(F, W.C) && W.C.Region >= 0 &&
                 Use->U->C.Region == W.C.Region))
      return;
    Report(W.Conv, G, G == F ? W.C : Dies->C,
           {Note{Cx.loc(W.StoreAt), fill(msg::StoredForLaterCapture, W.Spelling)},
            Note{Cx.loc(Dies->At), msg::LastStrongRefDies},
            Note{Cx.loc(Use->U->At), msg::LaterCaptureOfSession}},
           nullptr, true);
  };
  for (size_t I = 0; I < Cx.Facts.size(); ++I) {
    FnId F = FnId(I);
    const FunctionFacts &Fa = Cx.Facts[F];
    for (const WeakStoreFact &W : Fa.WeakStores) {
      Roots.considered(W, Cx.Convs[W.Conv]);
      bool Reported = false;
      if (Q.inCapture(F, W.C)) {
        // Told from the function that made the memory: its deaths, and
        // the capture context that reaches it.
        FnId G = makerOf(Q, F, W.Memory);
        CaptureState Inherited;
        const DeathFact *Dies =
            deathOf(Q, G, W.Memory, G == F ? W.C : Inherited);
        const Query::UseRef *Use =
            Dies ? Q.findUse(W.Place, false, F) : nullptr;
        if (Use) {
          Report(W.Conv, G, G == F ? W.C : Dies->C,
                 {Note{Cx.loc(W.StoreAt),
                       fill(msg::StoredInSharedPlace, W.Spelling)},
                  Note{Cx.loc(Dies->At), msg::LastStrongRefDies},
                  Note{Cx.loc(Use->U->At), msg::LaterUseInCapture}},
                 &W);
          Reported = true;
        }
      }
      if (!Reported && Q.inSession(F, W.C))
        ReportSession(W, F);
    }
    for (const DanglingFact &D : Fa.Danglings) {
      if (!Q.inCapture(F, D.C))
        continue;
      if (D.BeforeCapture && Q.inSession(F, D.C)) {
        Report(D.Conv, F, D.C,
               {Note{Cx.loc(D.DiesAt), msg::LastStrongRefDies},
                Note{Cx.loc(D.UseAt), msg::LaterCaptureOfSession}},
               nullptr, true);
        continue;
      }
      Report(D.Conv, F, D.C,
             {Note{Cx.loc(D.DiesAt), msg::LastStrongRefDies},
              Note{Cx.loc(D.UseAt), msg::LaterUseInCapture}});
    }
  }
  // A place weakened in place inside the capture (`P[k] = weak(P[k])`,
  // often by a helper between layers): the tensors only it kept die at
  // that store, and the next layer reads the slot and hands the dead
  // memory's address to its operation.
  for (size_t I = 0; I < Cx.Facts.size(); ++I) {
    FnId F = FnId(I);
    for (const WeakStoreFact &W : Cx.Facts[F].Weakenings) {
      if (!Q.inCapture(F, W.C))
        continue;
      std::optional<SrcLoc> Made = keptOnlyBy(Q, W.Place);
      if (!Made)
        continue;
      // A use after the weakening, in the same capture: through a later
      // call of the capture's function, or through the same call (the
      // weakening is in code every layer runs). Weakening at the end of the
      // capture, after the last layer, leaves the pool's memory to later
      // captures, which the design allows.
      auto [Region, At] =
          Q.capturePoint(F, W.C, W.Via.valid() ? W.Via : W.StoreAt);
      const Query::UseRef *Use =
          Region >= 0 ? useFrom(Q, W.Place, Region, At) : nullptr;
      if (!Use)
        continue;
      Report(W.Conv, F, W.C,
             {Note{Cx.loc(*Made), fill(msg::HeldOnlyInPlace, W.Spelling)},
              Note{Cx.loc(W.StoreAt),
                   fill(msg::WeakRefReplacesHolder, W.Spelling)},
              Note{Cx.loc(Use->U->At), msg::LaterUseInCapture}});
    }
  }
  Roots.merge(Cx, Out);
}

} // namespace tether::engine
