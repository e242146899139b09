//===- GraphMemoryDiesBeforeReplay.cpp - tether-graph-memory-dies-before-replay
//
// A task update records a captured task again with new arguments; the
// graph uses them at every later replay. A capture records tasks that read
// memory allocated before it, outside the graph's pool, at every replay. Local memory an operation of the
// update uses (a workspace allocated for the update) whose last strong
// reference dies afterwards (the next loop iteration, the function's
// return) is freed while the graph still points at it: the caching
// allocator hands it out again before the next replay. Memory kept in a
// place that outlives the function (a structure held beside the graph), or
// read from one (the workspace captured with the graph), is not reported;
// nor is memory the capture allocated (the pool's), or memory of a graph
// that dies with it. Raw memory (`aclrtMalloc`) dies where it is freed
// instead, and matters when a replay follows the free or the function
// returns with the graph alive (Interpreter.cpp, freedAtReturns()).
//
//===----------------------------------------------------------------------===//
#include "engine/checks/Checks.h"
#include "common/Messages.h"

#include <set>

namespace tether::engine {
/// The note at the memory's death: a free of raw memory, or the last
/// strong reference going.
static const char *deathNote(bool Freed) {
  return Freed ? msg::FreedWhileGraphLives : msg::LastStrongRefDies;
}

void checkGraphMemoryDiesBeforeReplay(const Query &Q,
                                      std::vector<Finding> &Out) {
  const Context &Cx = Q.Cx;
  std::set<SrcLoc> Seen; // one finding per binding operation
  for (size_t I = 0; I < Cx.Facts.size(); ++I) {
    const FunctionFacts &Fa = Cx.Facts[I];
    for (const DeathFact &D : Fa.Deaths) {
      if (!D.AfterBind)
        continue;
      const BindFact *Bind = nullptr;
      for (const BindFact &B : Fa.Binds)
        if (B.Memory == D.Memory && (!Bind || B.At < Bind->At))
          Bind = &B;
      if (!Bind || Bind->Region < 0 ||
          size_t(Bind->Region) >= Cx.Regions.size())
        continue;
      const RegionInfo &R = Cx.Regions[Bind->Region];
      bool Capture = R.Kind == RegionKind::Capture;
      // Out-of-pool memory matters while the graph lives on, or when the
      // function replays it after the memory is freed.
      if (Capture && !R.GraphKept && !D.Replayed)
        continue;
      // Memory a caller handed to a helper that runs the region is the
      // caller's story: reported at its call, with a note at the use.
      SrcLoc At = Bind->Via.valid() ? Bind->Via : Bind->At;
      if (!Seen.insert(At).second)
        continue;
      Finding Fi;
      Fi.Check = msg::GraphMemoryDiesBeforeReplay;
      Fi.Loc = Cx.loc(At);
      Fi.Message = Capture ? msg::OutOfPoolDiesWarning
                           : msg::GraphMemoryDiesBeforeReplayWarning;
      // The address is usually taken before the region, where the task's
      // arguments are filled in.
      if (Bind->Address.valid())
        Fi.Notes.push_back(
            Note{Cx.loc(Bind->Address), msg::RawAddressTakenHere});
      // An update of one call (cudaGraphExecKernelNodeSetParams) begins
      // and ends at the call: one note says so.
      bool OneCall = !Capture && R.End == R.Begin;
      Fi.Notes.push_back(Note{Cx.loc(R.Begin), Capture ? msg::CaptureBeginsHere
                                               : OneCall ? msg::TaskUpdatedByCall
                                                 : msg::TaskUpdateBeginsHere});
      if (Bind->Via.valid())
        Fi.Notes.push_back(Note{Cx.loc(Bind->At), Capture
                                                      ? msg::BoundIntoCapturedTask
                                                      : msg::BoundIntoUpdatedTask});
      if (R.End.valid() && !OneCall)
        Fi.Notes.push_back(Note{Cx.loc(R.End), Capture ? msg::CaptureEndsHere
                                                       : msg::TaskUpdateEndsHere});
      if (D.HeldBy.valid())
        Fi.Notes.push_back(Note{Cx.loc(D.HeldBy), msg::HeldOnlyByObject});
      Fi.Notes.push_back(Note{Cx.loc(D.At), deathNote(D.Freed)});
      Out.push_back(std::move(Fi));
    }
    // A helper called inside the update made the memory, bound it and let
    // it die before returning (an op that allocates its own workspace).
    for (const CalleeBindFact &C : Fa.CalleeBinds) {
      if (C.Region < 0 || size_t(C.Region) >= Cx.Regions.size() ||
          !Seen.insert(C.Via).second)
        continue;
      const RegionInfo &R = Cx.Regions[C.Region];
      Finding Fi;
      Fi.Check = msg::GraphMemoryDiesBeforeReplay;
      Fi.Loc = Cx.loc(C.Via);
      Fi.Message = msg::GraphMemoryDiesBeforeReplayWarning;
      Fi.Notes.push_back(Note{Cx.loc(R.Begin), msg::TaskUpdateBeginsHere});
      if (C.Bind.Address.valid())
        Fi.Notes.push_back(
            Note{Cx.loc(C.Bind.Address), msg::RawAddressTakenHere});
      Fi.Notes.push_back(Note{Cx.loc(C.Bind.At), msg::BoundIntoUpdatedTask});
      if (R.End.valid())
        Fi.Notes.push_back(Note{Cx.loc(R.End), msg::TaskUpdateEndsHere});
      Fi.Notes.push_back(Note{Cx.loc(C.Bind.DiesAt), deathNote(C.Bind.Freed)});
      Out.push_back(std::move(Fi));
    }
  }
}

} // namespace tether::engine
