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

#include <set>

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

} // namespace

void checkWeakRefBeforeCaptureEnd(const Query &Q, std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  std::set<SrcLoc> Seen; // one finding of this check per position
  auto Report = [&](uint32_t Conv, FnId F, const CaptureState &C,
                    std::vector<Note> Middle) {
    SrcLoc At = Cx.Convs[Conv].At;
    if (!Seen.insert(At).second)
      return;
    Finding Fi;
    Fi.Check = msg::WeakRefBeforeCaptureEnd;
    Fi.Loc = Cx.loc(At);
    Fi.Message = msg::WeakRefBeforeCaptureEndWarning;
    Q.openingNotes(F, C, Fi.Notes);
    Q.makerNote(Conv, Fi.Notes);
    Fi.Notes.insert(Fi.Notes.end(), Middle.begin(), Middle.end());
    Q.closingNote(F, C, Fi.Notes);
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
    SrcLoc At = Cx.Convs[W.Conv].At;
    if (!Seen.insert(At).second)
      return;
    FnId Story = G;
    const CaptureState &C = G == F ? W.C : Dies->C;
    Finding Fi;
    Fi.Check = msg::WeakRefBeforeCaptureEnd;
    Fi.Loc = Cx.loc(At);
    Fi.Message = msg::WeakRefBeforeSessionEndWarning;
    Q.sessionOpeningNotes(Story, C, Fi.Notes);
    Q.makerNote(W.Conv, Fi.Notes);
    Fi.Notes.push_back(
        Note{Cx.loc(W.StoreAt), fill(msg::StoredForLaterCapture, W.Spelling)});
    Fi.Notes.push_back(Note{Cx.loc(Dies->At), msg::LastStrongRefDies});
    Fi.Notes.push_back(Note{Cx.loc(Use->U->At), msg::LaterCaptureOfSession});
    Q.sessionClosingNote(Story, C, Fi.Notes);
    Out.push_back(std::move(Fi));
  };
  for (size_t I = 0; I < Cx.Facts.size(); ++I) {
    FnId F = FnId(I);
    const FunctionFacts &Fa = Cx.Facts[F];
    for (const WeakStoreFact &W : Fa.WeakStores) {
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
                  Note{Cx.loc(Use->U->At), msg::LaterUseInCapture}});
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
        SrcLoc At = Cx.Convs[D.Conv].At;
        if (!Seen.insert(At).second)
          continue;
        Finding Fi;
        Fi.Check = msg::WeakRefBeforeCaptureEnd;
        Fi.Loc = Cx.loc(At);
        Fi.Message = msg::WeakRefBeforeSessionEndWarning;
        Q.sessionOpeningNotes(F, D.C, Fi.Notes);
        Q.makerNote(D.Conv, Fi.Notes);
        Fi.Notes.push_back(Note{Cx.loc(D.DiesAt), msg::LastStrongRefDies});
        Fi.Notes.push_back(Note{Cx.loc(D.UseAt), msg::LaterCaptureOfSession});
        Q.sessionClosingNote(F, D.C, Fi.Notes);
        Out.push_back(std::move(Fi));
        continue;
      }
      Report(D.Conv, F, D.C,
             {Note{Cx.loc(D.DiesAt), msg::LastStrongRefDies},
              Note{Cx.loc(D.UseAt), msg::LaterUseInCapture}});
    }
  }
}

} // namespace tether::engine
