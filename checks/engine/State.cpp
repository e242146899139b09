//===- State.cpp - Abstract states and their join --------------------------===//
#include "engine/State.h"

#include "llvm/ADT/SmallVector.h"
#include <algorithm>

namespace tether::engine {
namespace {

template <typename T>
auto findVar(std::vector<std::pair<VarId, T>> &Vec, VarId V) {
  return std::lower_bound(
      Vec.begin(), Vec.end(), V,
      [](const std::pair<VarId, T> &P, VarId K) { return P.first < K; });
}
template <typename T>
auto findVar(const std::vector<std::pair<VarId, T>> &Vec, VarId V) {
  return std::lower_bound(
      Vec.begin(), Vec.end(), V,
      [](const std::pair<VarId, T> &P, VarId K) { return P.first < K; });
}

/// Where M's entry is, or would go, in a state's sorted Dead list.
template <typename Vec> auto findDead(Vec &Dead, MemId M) {
  return std::lower_bound(
      Dead.begin(), Dead.end(), M,
      [](const std::pair<MemId, SrcLoc> &P, MemId K) { return P.first < K; });
}

/// Into := Into union From, for sorted sets without repeats (memory ids,
/// stored addresses). Returns whether Into grew.
template <typename SortedSet>
bool unionInto(SortedSet &Into, const SortedSet &From) {
  if (Into == From)
    return false;
  SortedSet U;
  std::set_union(Into.begin(), Into.end(), From.begin(), From.end(),
                 std::back_inserter(U));
  if (U.size() == Into.size())
    return false;
  Into = std::move(U);
  return true;
}

/// Whether S has any trace of memory X: a path that never made it.
bool mentions(const State &S, MemId X) {
  for (const auto &[V, Val] : S.Vals)
    for (const Atom &A : Val)
      if ((A.Kind == Atom::Mem || A.Kind == Atom::Weak) && A.M == X)
        return true;
  for (const auto &H : S.Held)
    if (H.second == X)
      return true;
  return memSetHas(S.Escaped, X) || memSetHas(S.Pending, X) || S.isDead(X);
}

} // namespace

const Value *State::get(VarId V) const {
  auto It = findVar(Vals, V);
  return It != Vals.end() && It->first == V ? &It->second : nullptr;
}

void State::set(VarId V, Value X) {
  auto It = findVar(Vals, V);
  bool Here = It != Vals.end() && It->first == V;
  if (X.empty()) {
    if (Here)
      Vals.erase(It);
  } else if (Here) {
    It->second = std::move(X);
  } else {
    Vals.insert(It, {V, std::move(X)});
  }
  auto T = findVar(Truths, V);
  if (T != Truths.end() && T->first == V)
    Truths.erase(T);
}

const Truth *State::truth(VarId V) const {
  auto It = findVar(Truths, V);
  return It != Truths.end() && It->first == V ? &It->second : nullptr;
}

void State::setTruth(VarId V, Truth T) {
  auto It = findVar(Truths, V);
  if (It != Truths.end() && It->first == V)
    It->second = std::move(T);
  else
    Truths.insert(It, {V, std::move(T)});
}

bool State::isDead(MemId M, SrcLoc *At) const {
  auto It = findDead(Dead, M);
  if (It == Dead.end() || It->first != M)
    return false;
  if (At)
    *At = It->second;
  return true;
}

void State::markDead(MemId M, SrcLoc At) {
  auto It = findDead(Dead, M);
  if (It == Dead.end() || It->first != M)
    Dead.insert(It, {M, At});
}

void State::revive(MemId M) {
  auto It = findDead(Dead, M);
  if (It != Dead.end() && It->first == M) {
    Dead.erase(It);
    memSetRemove(DeadBeforeCapture, M);
  }
}

bool State::operator==(const State &O) const {
  if (Reached != O.Reached || !(Cap == O.Cap) ||
      RegionMoved != O.RegionMoved || Stream != O.Stream ||
      Empty != O.Empty || NonNull != O.NonNull || Escaped != O.Escaped ||
      Pending != O.Pending || Held != O.Held || FillFor != O.FillFor ||
      Update != O.Update ||
      Bound != O.Bound || Freed != O.Freed || InPool != O.InPool ||
      Addressed != O.Addressed ||
      Stored != O.Stored ||
      DeadBeforeCapture != O.DeadBeforeCapture || Vals.size() != O.Vals.size() ||
      Truths.size() != O.Truths.size() || Dead.size() != O.Dead.size())
    return false;
  for (size_t I = 0; I < Vals.size(); ++I)
    if (Vals[I].first != O.Vals[I].first || Vals[I].second != O.Vals[I].second)
      return false;
  for (size_t I = 0; I < Truths.size(); ++I)
    if (Truths[I].first != O.Truths[I].first ||
        !(Truths[I].second == O.Truths[I].second))
      return false;
  for (size_t I = 0; I < Dead.size(); ++I)
    if (Dead[I].first != O.Dead[I].first)
      return false;
  return true;
}

namespace {

/// Into := Into meet From, in place: the intersection of two sorted sets.
/// Returns whether Into lost anything. Most joins meet equal sets, which
/// cost one comparison and no allocation.
bool meetInto(MemSet &Into, const MemSet &From) {
  if (Into == From)
    return false;
  size_t N = Into.size();
  Into.erase(std::remove_if(Into.begin(), Into.end(),
                            [&](MemId M) { return !memSetHas(From, M); }),
             Into.end());
  return Into.size() != N;
}

} // namespace

/// The join proper, with Into already reached: it only reads From.
static bool joinReached(State &Into, const State &From,
                        ObjectOfPlace ObjectOf) {
  bool Changed = false;
  // Place holders: on every path where the memory exists (memory some path
  // made and left unheld can die on that path; a path that never made it
  // says nothing), and where the holder exists: a field of a local object
  // holds nothing on a path that never made the object (a loop's entry,
  // where the runner each iteration builds, keeps in a map and hands the
  // inputs to, is not made yet). Judged on both states as they come in,
  // before anything below changes Into.
  auto Absent = [&](const State &Other, const std::pair<MemId, MemId> &H) {
    if (!mentions(Other, H.second))
      return true;
    if (!ObjectOf)
      return false;
    MemId Obj = ObjectOf(H.first);
    return Obj != H.first && !mentions(Other, Obj);
  };
  auto OnEveryMakingPath = [&](const std::vector<std::pair<MemId, MemId>> &A,
                               const std::vector<std::pair<MemId, MemId>> &B) {
    std::vector<std::pair<MemId, MemId>> Out;
    std::set_intersection(A.begin(), A.end(), B.begin(), B.end(),
                          std::back_inserter(Out));
    for (const auto &H : A)
      if (!std::binary_search(B.begin(), B.end(), H) && Absent(From, H))
        Out.push_back(H);
    for (const auto &H : B)
      if (!std::binary_search(A.begin(), A.end(), H) && Absent(Into, H))
        Out.push_back(H);
    std::sort(Out.begin(), Out.end());
    Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
    return Out;
  };
  std::vector<std::pair<MemId, MemId>> Hd, Ff;
  bool SameHeld = Into.Held == From.Held;
  if (!SameHeld)
    Hd = OnEveryMakingPath(Into.Held, From.Held);
  bool SameFill = Into.FillFor == From.FillFor;
  if (!SameFill)
    Ff = OnEveryMakingPath(Into.FillFor, From.FillFor);
  // Values: a union per variable, joined where Into has the variable; the
  // vector is rebuilt only when From brings variables Into lacks (at a
  // loop's head the same variables meet again and again).
  llvm::SmallVector<size_t, 8> Missing;
  for (size_t I = 0, J = 0; J < From.Vals.size();) {
    if (I == Into.Vals.size() || From.Vals[J].first < Into.Vals[I].first) {
      Missing.push_back(J++);
    } else if (Into.Vals[I].first < From.Vals[J].first) {
      ++I;
    } else {
      Changed |= Into.Vals[I].second.join(From.Vals[J].second);
      ++I;
      ++J;
    }
  }
  if (!Missing.empty()) {
    Changed = true;
    std::vector<std::pair<VarId, Value>> Vals;
    Vals.reserve(Into.Vals.size() + Missing.size());
    size_t I = 0;
    for (size_t J : Missing) {
      while (I < Into.Vals.size() && Into.Vals[I].first < From.Vals[J].first)
        Vals.push_back(std::move(Into.Vals[I++]));
      Vals.push_back(From.Vals[J]);
    }
    while (I < Into.Vals.size())
      Vals.push_back(std::move(Into.Vals[I++]));
    Into.Vals = std::move(Vals);
  }
  // Truths: only what both paths agree on.
  size_t NT = Into.Truths.size();
  Into.Truths.erase(std::remove_if(Into.Truths.begin(), Into.Truths.end(),
                                   [&](const std::pair<VarId, Truth> &P) {
                                     const Truth *O = From.truth(P.first);
                                     return !O || !(*O == P.second);
                                   }),
                    Into.Truths.end());
  Changed |= Into.Truths.size() != NT;
  // Capture and session: every state some path may be in.
  Changed |= Into.Cap.joinFrom(From.Cap);
  if (From.RegionMoved && !Into.RegionMoved) {
    Into.RegionMoved = true;
    Changed = true;
  }
  if (Into.Stream != From.Stream && Into.Stream != -2) {
    Into.Stream = -2;
    Changed = true;
  }
  // Known emptiness: only what holds on both paths.
  Changed |= meetInto(Into.Empty, From.Empty);
  Changed |= meetInto(Into.NonNull, From.NonNull);
  // Escapes: on every path; pending weak stores: on some path.
  Changed |= meetInto(Into.Escaped, From.Escaped);
  Changed |= unionInto(Into.Pending, From.Pending);
  if (!SameHeld && Hd != Into.Held) {
    Into.Held = std::move(Hd);
    Changed = true;
  }
  if (!SameFill && Ff != Into.FillFor) {
    Into.FillFor = std::move(Ff);
    Changed = true;
  }
  // Task updates: inside on some path; bound and pool memory: on some path.
  if (Into.Update < 0 && From.Update >= 0) {
    Into.Update = From.Update;
    Changed = true;
  }
  Changed |= unionInto(Into.Bound, From.Bound);
  Changed |= unionInto(Into.Freed, From.Freed);
  // Raw addresses stored at places: on some path.
  Changed |= unionInto(Into.Addressed, From.Addressed);
  Changed |= unionInto(Into.Stored, From.Stored);
  Changed |= unionInto(Into.InPool, From.InPool);
  Changed |= unionInto(Into.DeadBeforeCapture, From.DeadBeforeCapture);
  // Deaths: on some path.
  for (const auto &[M, At] : From.Dead)
    if (!Into.isDead(M)) {
      Into.markDead(M, At);
      Changed = true;
    }
  return Changed;
}

bool joinInto(State &Into, const State &From, ObjectOfPlace ObjectOf) {
  if (!From.Reached)
    return false;
  if (!Into.Reached) {
    Into = From;
    return true;
  }
  return joinReached(Into, From, ObjectOf);
}

bool joinInto(State &Into, State &&From, ObjectOfPlace ObjectOf) {
  if (!From.Reached)
    return false;
  if (!Into.Reached) {
    Into = std::move(From);
    return true;
  }
  return joinReached(Into, From, ObjectOf);
}

} // namespace tether::engine
