//===- DoubleWeakRef.cpp - tether-double-weak-ref --------------------------===//
//
// A weak-ref conversion of a value that already is a weak reference:
// nested, through a local holding a helper's result, or inside a helper the
// weak reference is passed to. Two primitives written in one function
// through a local are a visible no-op and are left alone.
//
//===----------------------------------------------------------------------===//
#include "engine/checks/Checks.h"
#include "common/Messages.h"

#include <set>

namespace tether::engine {

void checkDoubleWeakRef(const Query &Q, std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  std::set<SrcLoc> Seen; // one finding of this check per position
  for (const FunctionFacts &Fa : Cx.Facts)
    for (const DoubleWeakFact &D : Fa.Doubles) {
      if (!Seen.insert(D.At).second)
        continue;
      Finding Fi;
      Fi.Check = msg::DoubleWeakRef;
      Fi.Loc = Cx.loc(D.At);
      Fi.Message = msg::DoubleWeakRefWarning;
      Fi.Notes.push_back(Note{Cx.loc(Cx.Convs[D.First].At), msg::DoubleWeakRefFirst});
      if (D.Helper >= 0) {
        const Function &H = Cx.P.Functions[D.Helper];
        std::string Name = Cx.displayName(D.Helper);
        std::string Param =
            D.Param < H.VarNames.size() ? H.VarNames[D.Param].str() : "";
        Fi.Notes.push_back(
            Note{Cx.loc(D.PassedAt), fill(msg::DoubleWeakRefPassed, Name)});
        Fi.Notes.push_back(Note{Cx.loc(D.HelperAt),
                                fill(msg::DoubleWeakRefHelperParam, Name, Param)});
      }
      // Made by a function called there: point into it (a C++ op bound
      // into Python is read in its own body, not from a catalog entry).
      Q.makerNote(D.First, Fi.Notes);
      Fi.Fixes = D.Fixes;
      Out.push_back(std::move(Fi));
    }
}

} // namespace tether::engine
