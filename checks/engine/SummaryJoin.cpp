//===- SummaryJoin.cpp - The join of two summaries of one function -------===//
#include "engine/SummaryJoin.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>

namespace tether::engine {
namespace {

uint64_t siteHash(SrcLoc At, const CaptureState &C) {
  return llvm::hash_combine(At.File, At.Line, At.Col, C.Mask, C.Region,
                            C.SessionMask, C.Session);
}

/// One effect per site: a site both summaries have keeps one effect whose
/// value is the union of both.
template <typename E>
bool joinEffects(std::vector<E> &Into, std::vector<E> &&New,
                 const MemTable &M, bool Shallow) {
  constexpr bool HasValue = !std::is_same_v<E, ClearEffect>;
  bool Grew = false;
  llvm::DenseMap<uint64_t, llvm::SmallVector<uint32_t, 1>> Index;
  for (uint32_t I = 0; I < Into.size(); ++I) {
    Index[siteHash(Into[I].At, Into[I].C)].push_back(I);
    if constexpr (HasValue)
      if (Shallow)
        dropDeepPlaces(Into[I].V, M); // only ever drops: not growth
  }
  for (E &X : New) {
    if constexpr (HasValue)
      if (Shallow)
        dropDeepPlaces(X.V, M);
    llvm::SmallVector<uint32_t, 1> &Same = Index[siteHash(X.At, X.C)];
    auto It = llvm::find_if(Same, [&](uint32_t I) {
      return Into[I].sameSite(X);
    });
    if (It == Same.end()) {
      Same.push_back(uint32_t(Into.size()));
      Into.push_back(std::move(X));
      Grew = true;
      continue;
    }
    if constexpr (HasValue)
      Grew |= Into[*It].V.join(X.V);
  }
  return Grew;
}

} // namespace

bool dropDeepPlaces(Value &V, const MemTable &M) {
  bool Dropped = false;
  V.removeIf([&](const Atom &A) {
    bool Deep = A.Kind == Atom::Mem && M.key(A.M).Path.size() > 1;
    Dropped |= Deep;
    return Deep;
  });
  if (Dropped)
    V.add(Atom::unknown());
  return Dropped;
}

bool Summary::addConvert(const ConvertEffect &E) {
  if (llvm::any_of(Converts, [&](const ConvertEffect &O) {
        return O.Of == E.Of && O.At == E.At;
      }))
    return false;
  Converts.push_back(E);
  return true;
}

bool Summary::operator==(const Summary &O) const {
  // Stores and uses: the same site, value and spelling.
  auto SameValued = [](const auto &A, const auto &B) {
    return A.sameSite(B) && A.V == B.V && A.Spelling == B.Spelling;
  };
  auto SameClears = [](const ClearEffect &A, const ClearEffect &B) {
    return A.sameSite(B) && A.Spelling == B.Spelling;
  };
  auto SameConverts = [](const ConvertEffect &A, const ConvertEffect &B) {
    return A.Of == B.Of && A.At == B.At && A.Unguarded == B.Unguarded;
  };
  return Returns == O.Returns && Exit == O.Exit &&
         EndsCallersCaptureAt == O.EndsCallersCaptureAt &&
         DestroysGraph == O.DestroysGraph &&
         LaunchesGraph == O.LaunchesGraph &&
         ReturnsCapturePredicate == O.ReturnsCapturePredicate &&
         ReturnsSessionPredicate == O.ReturnsSessionPredicate &&
         Escapes == O.Escapes &&
         std::equal(Stores.begin(), Stores.end(), O.Stores.begin(),
                    O.Stores.end(), SameValued) &&
         std::equal(Clears.begin(), Clears.end(), O.Clears.begin(),
                    O.Clears.end(), SameClears) &&
         std::equal(Uses.begin(), Uses.end(), O.Uses.begin(), O.Uses.end(),
                    SameValued) &&
         std::equal(Converts.begin(), Converts.end(), O.Converts.begin(),
                    O.Converts.end(), SameConverts) &&
         LocalBinds == O.LocalBinds && ReturnedHeld == O.ReturnedHeld;
}

bool joinSummary(Summary &Into, Summary &&New, const MemTable &M,
                 bool Shallow) {
  bool Grew = false;
  if (Shallow) {
    dropDeepPlaces(Into.Returns, M);
    dropDeepPlaces(New.Returns, M);
  }
  Grew |= Into.Returns.join(New.Returns);
  Grew |= Into.Exit.joinFrom(New.Exit);
  if (!Into.EndsCallersCaptureAt.valid() && New.EndsCallersCaptureAt.valid()) {
    Into.EndsCallersCaptureAt = New.EndsCallersCaptureAt;
    Grew = true;
  }
  Grew |= New.DestroysGraph > Into.DestroysGraph;
  Into.DestroysGraph |= New.DestroysGraph;
  Grew |= New.LaunchesGraph > Into.LaunchesGraph;
  Into.LaunchesGraph |= New.LaunchesGraph;
  Grew |= New.ReturnsCapturePredicate > Into.ReturnsCapturePredicate;
  Grew |= New.ReturnsSessionPredicate > Into.ReturnsSessionPredicate;
  Into.ReturnsCapturePredicate |= New.ReturnsCapturePredicate;
  Into.ReturnsSessionPredicate |= New.ReturnsSessionPredicate;
  Grew |= joinEffects(Into.Stores, std::move(New.Stores), M, Shallow);
  Grew |= joinEffects(Into.Clears, std::move(New.Clears), M, Shallow);
  Grew |= joinEffects(Into.Uses, std::move(New.Uses), M, Shallow);
  for (const ConvertEffect &E : New.Converts)
    Grew |= Into.addConvert(E);
  for (const LocalBindEffect &E : New.LocalBinds)
    if (!llvm::is_contained(Into.LocalBinds, E)) {
      Into.LocalBinds.push_back(E);
      Grew = true;
    }
  for (MemId Esc : New.Escapes)
    Grew |= insertSorted(Into.Escapes, Esc);
  for (const auto &H : New.ReturnedHeld)
    Grew |= insertSorted(Into.ReturnedHeld, H);
  return Grew;
}

} // namespace tether::engine
