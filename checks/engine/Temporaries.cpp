//===- Temporaries.cpp - Where a function's temporaries stop being read ---===//
#include "engine/Temporaries.h"

#include <algorithm>

namespace tether::engine {
namespace {

constexpr int32_t kUnseen = -1, kManyBlocks = -2;

struct Scan {
  const Function &Fn;
  /// Per variable: the one block it occurs in (kUnseen, kManyBlocks).
  std::vector<int32_t> Home;
  std::vector<uint32_t> Last; ///< Its last instruction there.
  std::vector<uint8_t> ReadFirst, ReadByTerm;

  explicit Scan(const Function &Fn)
      : Fn(Fn), Home(Fn.VarNames.size(), kUnseen), Last(Fn.VarNames.size()),
        ReadFirst(Fn.VarNames.size()), ReadByTerm(Fn.VarNames.size()) {}

  bool temporary(VarId V) const {
    return V >= 0 && size_t(V) < Fn.VarNames.size() &&
           uint32_t(V) >= Fn.NumParams && Fn.VarNames[V].empty();
  }
  void occurs(VarId V, int32_t B, uint32_t Idx, bool Read) {
    if (!temporary(V))
      return;
    if (Home[V] == kUnseen) {
      Home[V] = B;
      ReadFirst[V] = Read; // read before any definition: a loop carries it
    } else if (Home[V] != B) {
      Home[V] = kManyBlocks;
    }
    Last[V] = std::max(Last[V], Idx);
  }
};

} // namespace

TemporaryEnds temporaryEnds(const Function &Fn) {
  Scan S(Fn);
  for (uint32_t B = 0; B < Fn.Blocks.size(); ++B) {
    const Block &Bl = Fn.Blocks[B];
    for (uint32_t Idx = 0; Idx < Bl.Insts.size(); ++Idx) {
      const Inst &I = Bl.Insts[Idx];
      // Reads before the definition: `t = f(t)` reads t first.
      S.occurs(I.A, B, Idx, true);
      S.occurs(I.P.Base, B, Idx, true);
      for (VarId V : I.Args)
        S.occurs(V, B, Idx, true);
      for (const CallTarget &T : I.Targets)
        for (VarId V : T.Args)
          S.occurs(V, B, Idx, true);
      S.occurs(I.Dst, B, Idx, false);
    }
    for (VarId V : {Bl.Term.Cond, Bl.Term.Value})
      if (S.temporary(V)) {
        S.occurs(V, B, uint32_t(Bl.Insts.size()), true);
        S.ReadByTerm[V] = 1;
      }
  }
  TemporaryEnds E;
  E.AfterInst.resize(Fn.Blocks.size());
  E.AfterTerm.resize(Fn.Blocks.size());
  for (VarId V = 0; size_t(V) < S.Home.size(); ++V) {
    int32_t B = S.Home[V];
    if (B < 0 || S.ReadFirst[V])
      continue;
    if (S.ReadByTerm[V])
      E.AfterTerm[B].push_back(V);
    else
      E.AfterInst[B].push_back({S.Last[V], V});
  }
  for (auto &L : E.AfterInst)
    std::sort(L.begin(), L.end());
  return E;
}

} // namespace tether::engine
