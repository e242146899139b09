//===- WorkspaceSharedAcrossLayers.cpp - tether-workspace-shared-across-layers
//
// A workspace place every layer reads during capture (a global, or below
// one) is unsafe when, during the capture,
//  - it is replaced or cleared while an earlier layer's task points at the
//    old workspace (unless a task update binds the tasks again to what the
//    slot holds before each replay);
//  - it is first filled with a size computed from one layer's arguments
//    and read by others without a size check;
//  - layers use it on different streams with nothing ordering them.
//
//===----------------------------------------------------------------------===//
#include "engine/checks/Checks.h"
#include "common/Messages.h"

#include <algorithm>
#include <map>

namespace tether::engine {
namespace {

void slotWrites(const Query &Q, std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  // One finding per store: a store helper reached from several layers is
  // one root cause, told once with a note per further call path.
  std::map<std::pair<SrcLoc, int>, std::pair<size_t, std::vector<FnId>>> ByStore;
  for (size_t I = 0; I < Cx.Facts.size(); ++I) {
    FnId F = FnId(I);
    for (const SlotWriteFact &S : Cx.Facts[F].SlotWrites) {
      if (!Q.shared(S.Place) || !Q.inCapture(F, S.C) ||
          !Q.workspacePlace(S.Place, S.At.File))
        continue;
      auto Key = std::make_pair(S.At, int(S.Kind));
      if (auto It = ByStore.find(Key); It != ByStore.end()) {
        std::vector<FnId> &Fns = It->second.second;
        const Query::Via *V = Q.captureCall(F);
        if (V && std::find(Fns.begin(), Fns.end(), F) == Fns.end()) {
          Fns.push_back(F);
          Out[It->second.first].Notes.push_back(
              Note{Cx.loc(V->Call->At),
                   fill(msg::WorkspaceStoreAlsoReached, Cx.displayName(F))});
        }
        continue;
      }
      Finding Fi;
      Fi.Check = msg::WorkspaceSharedAcrossLayers;
      Fi.Loc = Cx.loc(S.At);
      if (S.Kind == SlotWriteFact::Replace || S.Kind == SlotWriteFact::Clear) {
        const Query::UseRef *Use = Q.findUse(S.Place, false, F, true);
        // Tasks that a task update binds again to the slot's current value
        // before every replay (vLLM Ascend's keep-the-largest workspace,
        // re-bound by update_graph_params) no longer hold the old one.
        if (!Use || Q.reboundByUpdate(S.Place))
          continue;
        Fi.Message = fill(msg::WorkspaceReplacedWarning, S.Spelling);
        Q.openingNotes(F, S.C, Fi.Notes);
        Fi.Notes.push_back(Note{Cx.loc(Use->U->At), msg::WorkspaceEarlierRead});
      } else if (S.SizedSite >= 0) {
        const Query::UseRef *Use = Q.findUse(S.Place, true, F, true);
        if (!Use)
          continue;
        Fi.Message = fill(msg::WorkspaceUnsizedWarning, S.Spelling);
        Q.openingNotes(F, S.C, Fi.Notes);
        Fi.Notes.push_back(
            Note{Cx.loc(Cx.Allocs[S.SizedSite].At), msg::WorkspaceSizedHere});
        Fi.Notes.push_back(
            Note{Cx.loc(Use->U->At), msg::WorkspaceReusedUnchecked});
      } else {
        continue;
      }
      Q.closingNote(F, S.C, Fi.Notes);
      ByStore[Key] = {Out.size(), {F}};
      Out.push_back(std::move(Fi));
    }
  }
}

void streams(const Query &Q, std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  // In-capture uses of shared workspace places, grouped by place.
  std::map<MemId, std::vector<const Query::UseRef *>> ByPlace;
  for (const Query::UseRef &R : Q.captureUses())
    if (Q.shared(R.U->Place) && Q.workspacePlace(R.U->Place, R.U->At.File))
      ByPlace[R.U->Place].push_back(&R);
  for (auto &[Place, Refs] : ByPlace) {
    const Query::UseRef *First = Refs.front(), *Other = nullptr;
    for (const Query::UseRef *R : Refs)
      if (R->U->Stream != First->U->Stream && R->U->Stream != -2 &&
          First->U->Stream != -2) {
        Other = R;
        break;
      }
    if (!Other || Cx.Facts[First->Fn].StreamSync ||
        Cx.Facts[Other->Fn].StreamSync)
      continue;
    // Reported at the use on the side stream.
    bool OtherSide = Other->U->Stream >= 0;
    const Query::UseRef *At = OtherSide ? Other : First;
    const Query::UseRef *Else = OtherSide ? First : Other;
    Finding Fi;
    Fi.Check = msg::WorkspaceSharedAcrossLayers;
    Fi.Loc = Cx.loc(At->U->At);
    Fi.Message = fill(msg::WorkspaceStreamsWarning, At->U->Spelling);
    Q.openingNotes(At->Fn, At->U->C, Fi.Notes);
    Fi.Notes.push_back(Note{Cx.loc(Else->U->At), msg::WorkspaceOtherStream});
    Q.closingNote(At->Fn, At->U->C, Fi.Notes);
    Out.push_back(std::move(Fi));
  }
}

} // namespace

void checkWorkspaceSharedAcrossLayers(const Query &Q,
                                      std::vector<Finding> &Out) {
  slotWrites(Q, Out);
  streams(Q, Out);
}

} // namespace tether::engine
