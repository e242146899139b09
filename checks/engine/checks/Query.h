//===- Query.h - What every check asks of the program's facts ------------===//
//
//  - the capture context: which functions run inside a capture, through
//    which chain of calls (one witness each, the shortest);
//  - which places are the same memory (a place of an object held in a
//    global is also that object's class's place);
//  - the in-capture uses of a place, and the notes that open and close a
//    finding's story.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_CHECKS_QUERY_H
#define TETHER_ENGINE_CHECKS_QUERY_H

#include "engine/Context.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>
#include <vector>

namespace tether::engine {

std::string fill(const char *Fmt, const std::string &A0,
                 const std::string &A1 = {});

class Query {
public:
  /// The call through which a function is reached inside a region.
  struct Via {
    FnId Caller = -1;
    const CallFact *Call = nullptr;
  };

  explicit Query(Context &Cx);
  Context &Cx;

  /// Whether a point of F in state C runs inside a capture.
  bool inCapture(FnId F, const CaptureState &C) const;
  /// "capture begins here" and the chain of calls that puts F inside it.
  void openingNotes(FnId F, const CaptureState &C,
                    std::vector<Note> &Notes) const {
    opening(F, C, false, Notes);
  }
  /// "capture ends here", when the capture has a visible end.
  void closingNote(FnId F, const CaptureState &C,
                   std::vector<Note> &Notes) const {
    closing(F, C, false, Notes);
  }

  /// Where a point of F (At, in state C) runs in its capture: the region
  /// (-1: none), and the position in the region's own function through
  /// which it runs (At itself there, else the outermost call of the chain
  /// that reaches F): whether one point runs after another is a question
  /// of paths between these positions in that function.
  std::pair<int32_t, SrcLoc> capturePoint(FnId F, const CaptureState &C,
                                          SrcLoc At) const {
    Chain Calls;
    int32_t R = enclosing(F, C, false, &Calls);
    return {R, Calls.empty() ? At : Calls.back().second->At};
  }

  /// The call that puts F inside a capture (the shortest chain's last), or
  /// null when F is not reached from inside one.
  const Via *captureCall(FnId F) const {
    return Reached[F] ? &InCapture[F] : nullptr;
  }

  /// Whether a point of F in state C runs inside a capture session (its
  /// own function's, or one a caller opened).
  bool inSession(FnId F, const CaptureState &C) const;
  /// The session region that point is in (-1: none known).
  int32_t sessionOf(FnId F, const CaptureState &C) const {
    return enclosing(F, C, true, nullptr);
  }
  /// "capture session begins here" and the chain of calls into it.
  void sessionOpeningNotes(FnId F, const CaptureState &C,
                           std::vector<Note> &Notes) const {
    opening(F, C, true, Notes);
  }
  /// "capture session ends here", when the session has a visible end.
  void sessionClosingNote(FnId F, const CaptureState &C,
                          std::vector<Note> &Notes) const {
    closing(F, C, true, Notes);
  }

  /// "'f' makes the weak reference here", when conversion Conv (Convs) was
  /// made inside a foreign function called where it is reported (a C++ op
  /// bound into Python): the note points into its body.
  void makerNote(uint32_t Conv, std::vector<Note> &Notes) const;

  /// Whether A and B may be the same place.
  bool samePlace(MemId A, MemId B) const;
  /// Whether a place is shared by every layer (not one object's own).
  bool shared(MemId P) const;
  /// A source of an empty value some code stores at Place (under any of
  /// its names), if any: the first in program order.
  std::optional<uint32_t> emptyValueAt(MemId Place) const;
  /// Whether a place holds workspaces (by name, or by what is stored).
  bool workspacePlace(MemId P, uint32_t File) const;

  struct UseRef {
    FnId Fn;
    const PlaceUseFact *U;
  };
  /// The in-capture uses, in function order.
  const std::vector<UseRef> &captureUses() const { return Uses; }
  /// An in-capture use of Place (unchecked in size when asked), preferring
  /// one in function Near: the same layer's code reads it again on the
  /// next layer's call.
  const UseRef *findUse(MemId Place, bool NeedUnchecked, FnId Near,
                        bool NeedShared = false) const;
  /// Whether an operation of a task update reads Place: the program binds
  /// its updated tasks to what the slot holds at each update.
  bool reboundByUpdate(MemId Place) const;
  /// An in-capture use of Place by a capture of session Session (-1:
  /// any session), preferring one in function Near.
  const UseRef *findSessionUse(MemId Place, int32_t Session, FnId Near) const;

private:
  /// Functions reached through calls, each with the call into it.
  using Chain = std::vector<std::pair<FnId, const CallFact *>>;
  /// The region (a capture, or Session: a capture session) a point of F in
  /// state C is inside: its own function's, else the one the shortest chain
  /// of calls into F starts in (-1: none). When asked, Calls gets that
  /// chain, innermost first.
  int32_t enclosing(FnId F, const CaptureState &C, bool Session,
                    Chain *Calls) const;
  void opening(FnId F, const CaptureState &C, bool Session,
               std::vector<Note> &Notes) const;
  void closing(FnId F, const CaptureState &C, bool Session,
               std::vector<Note> &Notes) const;
  /// The places P may also be named by (P itself first).
  std::vector<MemId> aliases(MemId P) const;

  /// How F is reached from a call made inside a capture (InCapture,
  /// Reached) and inside a capture session (InSession, SessionReached).
  std::vector<Via> InCapture, InSession;
  std::vector<bool> Reached, SessionReached;
  std::vector<UseRef> Uses;
  /// workspacePlace's answers: the checks ask for a place at each of its
  /// uses, and the facts do not change while they run.
  mutable llvm::DenseMap<std::pair<MemId, uint32_t>, bool> Workspace;
  /// Whether a place's contents hold a workspace allocation, per contents:
  /// a cache every layer stores into holds thousands of values, and each
  /// of its slots asks.
  bool holdsWorkspace(const Value &V) const;
  mutable llvm::DenseMap<const Value *, bool> HoldsWorkspace;
  /// Memory and places some function names as a workspace (wildcards).
  llvm::DenseSet<MemId> NamedWorkspaces;
  /// Slots an operation of a task update reads (wildcards).
  llvm::DenseSet<MemId> ReboundSlots;
};

} // namespace tether::engine

#endif
