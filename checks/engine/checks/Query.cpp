//===- Query.cpp - Capture context, place identity, uses -------------------===//
#include "engine/checks/Query.h"
#include "common/Messages.h"

#include <deque>

namespace tether::engine {

std::string fill(const char *Fmt, const std::string &A0,
                 const std::string &A1) {
  std::string S = Fmt;
  size_t I;
  while ((I = S.find("%0")) != std::string::npos)
    S.replace(I, 2, A0);
  while ((I = S.find("%1")) != std::string::npos)
    S.replace(I, 2, A1);
  return S;
}

/// Which functions run inside a region of the kind Mask tracks (a capture,
/// a capture session): those called where the caller is inside one, then
/// everything they call (except where the state says they are outside),
/// each with one witness call, the shortest.
static void reachInside(const Context &Cx, uint8_t CaptureState::*Mask,
                        std::vector<Query::Via> &From,
                        std::vector<bool> &Reached) {
  size_t N = Cx.P.Functions.size();
  From.assign(N, Query::Via());
  Reached.assign(N, false);
  std::deque<FnId> Work;
  auto Reach = [&](FnId Caller, const CallFact &C) {
    if (Reached[C.Callee])
      return;
    Reached[C.Callee] = true;
    From[C.Callee] = Query::Via{Caller, &C};
    Work.push_back(C.Callee);
  };
  for (size_t F = 0; F < N; ++F)
    for (const CallFact &C : Cx.Facts[F].Calls)
      if (C.C.*Mask & CaptureState::Inside)
        Reach(FnId(F), C);
  while (!Work.empty()) {
    FnId F = Work.front();
    Work.pop_front();
    for (const CallFact &C : Cx.Facts[F].Calls)
      if (C.C.*Mask & (CaptureState::Inside | CaptureState::Inherit))
        Reach(F, C);
  }
}

Query::Query(Context &Cx) : Cx(Cx) {
  reachInside(Cx, &CaptureState::Mask, InCapture, Reached);
  reachInside(Cx, &CaptureState::SessionMask, InSession, SessionReached);
  for (size_t F = 0; F < Cx.P.Functions.size(); ++F) {
    for (const PlaceUseFact &U : Cx.Facts[F].Uses)
      if (inCapture(FnId(F), U.C))
        Uses.push_back(UseRef{FnId(F), &U});
    for (MemId X : Cx.Facts[F].WorkspaceNamed)
      NamedWorkspaces.insert(Cx.Mem.wildcard(X));
    // The slot itself, read by an update: not a place that holds what the
    // slot held once (a task's captured arguments kept in a list alias the
    // slot, but the update binds those, the old workspace among them).
    for (const PlaceUseFact &U : Cx.Facts[F].Uses)
      if (U.InUpdate)
        ReboundSlots.insert(Cx.Mem.wildcard(U.Place));
  }
}

bool Query::inCapture(FnId F, const CaptureState &C) const {
  if (C.Mask & CaptureState::Inside)
    return true;
  return (C.Mask & CaptureState::Inherit) && Reached[F];
}

bool Query::inSession(FnId F, const CaptureState &C) const {
  if (C.SessionMask & CaptureState::Inside)
    return true;
  return (C.SessionMask & CaptureState::Inherit) && SessionReached[F];
}

int32_t Query::enclosing(FnId F, const CaptureState &C, bool Session,
                         Chain *Calls) const {
  auto Inside = [&](const CaptureState &S) -> int32_t {
    uint8_t M = Session ? S.SessionMask : S.Mask;
    int32_t R = Session ? S.Session : S.Region;
    return (M & CaptureState::Inside) && R >= 0 ? R : -1;
  };
  if (int32_t R = Inside(C); R >= 0)
    return R;
  const std::vector<Via> &From = Session ? InSession : InCapture;
  const std::vector<bool> &Got = Session ? SessionReached : Reached;
  FnId Cur = F;
  for (int Guard = 0; Guard < 10000 && Got[Cur]; ++Guard) {
    const Via &V = From[Cur];
    if (Calls)
      Calls->push_back({Cur, V.Call});
    if (int32_t R = Inside(V.Call->C); R >= 0)
      return R;
    Cur = V.Caller;
  }
  return -1;
}

void Query::opening(FnId F, const CaptureState &C, bool Session,
                    std::vector<Note> &Notes) const {
  Chain Calls;
  int32_t R = enclosing(F, C, Session, &Calls);
  if (R >= 0)
    Notes.push_back(Note{Cx.loc(Cx.Regions[R].Begin),
                         Session ? msg::SessionBeginsHere
                                 : msg::CaptureBeginsHere});
  for (auto It = Calls.rbegin(); It != Calls.rend(); ++It)
    Notes.push_back(Note{Cx.loc(It->second->At),
                         fill(Session ? msg::InSessionThroughCall
                                      : msg::InCaptureThroughCall,
                              Cx.displayName(It->first))});
}

void Query::closing(FnId F, const CaptureState &C, bool Session,
                    std::vector<Note> &Notes) const {
  int32_t R = enclosing(F, C, Session, nullptr);
  if (R >= 0 && Cx.Regions[R].End.valid())
    Notes.push_back(Note{Cx.loc(Cx.Regions[R].End),
                         Session ? msg::SessionEndsHere : msg::CaptureEndsHere});
}

std::vector<MemId> Query::aliases(MemId P) const {
  std::vector<MemId> Out{P};
  // A place below memory some other place holds is also a place below
  // what that place holds: `_graph_params.workspaces` is the `workspaces`
  // of the GraphParams object stored in `_graph_params`.
  for (size_t Done = 0; Done < Out.size() && Out.size() < 16; ++Done) {
    const MemKey K = Cx.Mem.key(Out[Done]);
    MemKey Prefix = K;
    Prefix.Path.clear();
    for (size_t Len = 0; Len < K.Path.size(); ++Len) {
      if (Len)
        Prefix.Path.push_back(K.Path[Len - 1]);
      MemId Pre = Cx.Mem.intern(Prefix);
      llvm::SmallVector<const Value *, 2> Held;
      Cx.contentsOf(Pre, Held);
      for (const Value *V : Held)
        for (const Atom &A : *V) {
          if (A.Kind != Atom::Mem && A.Kind != Atom::Weak)
            continue;
          MemId Alias = Cx.Mem.rebase(A.M, K, Len);
          if (std::find(Out.begin(), Out.end(), Alias) == Out.end())
            Out.push_back(Alias);
        }
    }
  }
  return Out;
}

bool Query::samePlace(MemId A, MemId B) const {
  // Slots are matched whatever their keys: a key is rarely the same
  // expression in the code that stores and the code that reads.
  A = Cx.Mem.wildcard(A);
  B = Cx.Mem.wildcard(B);
  if (A == B)
    return true;
  std::vector<MemId> X = aliases(A), Y = aliases(B);
  for (MemId &I : X)
    I = Cx.Mem.wildcard(I);
  for (MemId &I : Y)
    I = Cx.Mem.wildcard(I);
  for (MemId I : X)
    if (std::find(Y.begin(), Y.end(), I) != Y.end())
      return true;
  return false;
}

std::optional<uint32_t> Query::emptyValueAt(MemId Place) const {
  std::optional<uint32_t> Best;
  for (MemId A : aliases(Place)) {
    // Slots of a container filled with None and module globals set to None
    // are read as they are. An attribute set to None in a constructor is a
    // declaration that later code fills (`self.key_cache = None`): reading
    // it as empty would flag every such field.
    const MemKey &K = Cx.Mem.key(A);
    bool Slot = !K.Path.empty() && MemTable::isElement(K.Path.back());
    bool Global = K.Root == RootKind::Global && K.Path.empty();
    if (!Slot && !Global)
      continue;
    llvm::SmallVector<const Value *, 2> Held;
    Cx.contentsOf(A, Held);
    for (const Value *V : Held)
      for (const Atom &X : *V)
        // By position, not by number: numbers follow the order in which
        // a run met the sites, which a language server's warm run does
        // not share with a cold one.
        if (X.Kind == Atom::Null &&
            (!Best || Cx.NullSites[X.W] < Cx.NullSites[*Best]))
          Best = X.W;
  }
  return Best;
}

bool Query::shared(MemId P) const {
  RootKind R = Cx.Mem.key(P).Root;
  return R == RootKind::Global || R == RootKind::Shared;
}

bool Query::holdsWorkspace(const Value &V) const {
  auto [It, New] = HoldsWorkspace.try_emplace(&V, false);
  if (New)
    It->second = llvm::any_of(V, [&](const Atom &X) {
      if (X.Kind != Atom::Mem)
        return false;
      const MemKey &K = Cx.Mem.key(X.M);
      return K.Root == RootKind::Alloc && K.Path.empty() &&
             (Cx.Allocs[K.A].Kind == AllocKind::Workspace ||
              NamedWorkspaces.count(X.M));
    });
  return It->second;
}

bool Query::workspacePlace(MemId P, uint32_t File) const {
  if (auto It = Workspace.find({P, File}); It != Workspace.end())
    return It->second;
  bool Is = [&] {
    llvm::StringRef Name = Cx.Mem.lastName(P);
    if (!Name.empty() && Cx.Opts.IsWorkspaceName &&
        Cx.Opts.IsWorkspaceName(File, Name))
      return true;
    for (MemId A : aliases(P)) {
      if (NamedWorkspaces.count(Cx.Mem.wildcard(A)))
        return true;
      llvm::SmallVector<const Value *, 2> Held;
      Cx.contentsOf(A, Held);
      for (const Value *V : Held)
        if (holdsWorkspace(*V))
          return true;
    }
    return false;
  }();
  Workspace[{P, File}] = Is;
  return Is;
}

const Query::UseRef *Query::findUse(MemId Place, bool NeedUnchecked, FnId Near,
                                    bool NeedShared) const {
  const UseRef *Any = nullptr;
  for (const UseRef &R : Uses) {
    if ((NeedUnchecked && R.U->SizeChecked) ||
        (NeedShared && !shared(R.U->Place)) || !samePlace(R.U->Place, Place))
      continue;
    if (R.Fn == Near)
      return &R;
    if (!Any)
      Any = &R;
  }
  return Any;
}

bool Query::reboundByUpdate(MemId Place) const {
  return ReboundSlots.count(Cx.Mem.wildcard(Place));
}

const Query::UseRef *Query::findSessionUse(MemId Place, int32_t Session,
                                           FnId Near) const {
  const UseRef *Any = nullptr;
  for (const UseRef &R : Uses) {
    if (!inSession(R.Fn, R.U->C) || !samePlace(R.U->Place, Place))
      continue;
    // Two sessions are told apart only by their begin calls: a session
    // predicate tested in two places may be one session.
    int32_t Of = sessionOf(R.Fn, R.U->C);
    if (Session >= 0 && Of >= 0 && Of != Session &&
        !Cx.Regions[Session].Predicate && !Cx.Regions[Of].Predicate)
      continue;
    if (R.Fn == Near)
      return &R;
    if (!Any)
      Any = &R;
  }
  return Any;
}

void Query::makerNote(uint32_t Conv, std::vector<Note> &Notes) const {
  if (Conv >= Cx.Convs.size())
    return;
  const ConvSite &C = Cx.Convs[Conv];
  if (!C.viaHelper() || !Cx.P.Functions[C.Helper].Foreign)
    return;
  Location At = Cx.loc(C.HelperAt);
  if (llvm::any_of(Notes, [&](const Note &N) {
        return N.Loc.File == At.File && N.Loc.Line == At.Line &&
               N.Loc.Column == At.Column;
      }))
    return;
  // Named after the function whose body holds it: the helper called here
  // may reach it through further calls (a lambda calling the kernel).
  FnId Maker = C.MadeIn >= 0 ? C.MadeIn : C.Helper;
  Notes.push_back(
      Note{std::move(At), fill(msg::WeakRefMadeInside, Cx.displayName(Maker))});
}

} // namespace tether::engine
