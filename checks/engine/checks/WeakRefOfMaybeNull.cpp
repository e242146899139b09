//===- WeakRefOfMaybeNull.cpp - tether-weak-ref-of-maybe-null -------------===//
//
// A weak-ref conversion, not guarded by a None/defined/has_value check, of
// a value that may be empty: one the function sees may be empty, one a
// helper converts without a check, or one held at a place that somewhere in
// the program is given an empty value (a dict of None values, an Optional
// global).
//
//===----------------------------------------------------------------------===//
#include "engine/checks/Checks.h"
#include "common/Messages.h"

#include <set>

namespace tether::engine {
void checkWeakRefOfMaybeNull(const Query &Q, std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  std::set<SrcLoc> Seen; // one finding of this check per position
  auto Report = [&](SrcLoc At, uint32_t Source, FnId Helper, uint32_t Param,
                    SrcLoc HelperAt) {
    if (!Seen.insert(At).second)
      return;
    Finding Fi;
    Fi.Check = msg::WeakRefOfMaybeNull;
    Fi.Loc = Cx.loc(At);
    Fi.Message = msg::WeakRefOfMaybeNullWarning;
    Fi.Notes.push_back(Note{Cx.loc(Cx.NullSites[Source]), msg::MaybeNullSource});
    if (Helper >= 0) {
      const Function &H = Cx.P.Functions[Helper];
      std::string Name =
          Param < H.VarNames.size() ? H.VarNames[Param].str() : "";
      Fi.Notes.push_back(Note{Cx.loc(HelperAt),
                              fill(msg::WeakRefHelperConverts,
                                   Cx.displayName(Helper), Name)});
    }
    Out.push_back(std::move(Fi));
  };
  for (const FunctionFacts &Fa : Cx.Facts) {
    for (const NullConversionFact &N : Fa.NullConversions)
      Report(N.At, N.Source, N.Helper, N.Param, N.HelperAt);
    for (const DeferredNullFact &D : Fa.DeferredNulls) {
      // A slot of a function's own tuple or list (`a, b = f()`) is empty
      // only on the paths of f that set it so; which of those the caller
      // takes is not known. Places of globals and objects are judged.
      if (Cx.Mem.key(D.Place).Root == RootKind::Alloc)
        continue;
      if (auto Source = Q.emptyValueAt(D.Place))
        Report(D.At, *Source, D.Helper, D.HelperParam, D.HelperAt);
    }
  }
}

} // namespace tether::engine
