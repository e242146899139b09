//===- Facts.h - Summaries and facts the engine computes -----------------===//
//
// A function's Summary says what it does in terms of its parameters: what
// it returns, which places it stores to, reads for an operation or clears,
// which parameters it converts to weak references. It is a value computed
// from the function's body and its callees' summaries only, so it can be
// cached and reused across runs and edits.
//
// Facts are what a function does to memory nobody else will tell it about
// (its own allocations, globals, objects of known classes), with the
// capture state where it happens. The checks (checks/engine/checks/) are
// queries over the facts of the whole program.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_FACTS_H
#define TETHER_ENGINE_FACTS_H

#include "common/Finding.h"
#include "engine/Ir.h"
#include "engine/Memory.h"
#include <memory>
#include <string>
#include <vector>

namespace tether::engine {

/// Where a point stands with respect to capture, as far as its own
/// function knows. Several bits when paths with different states join.
struct CaptureState {
  enum : uint8_t { Inherit = 1, Inside = 2, Outside = 4 };
  uint8_t Mask = Inherit;
  int32_t Region = -1; ///< The capture region when Inside (Context::Regions).
  /// The same three states for a capture session (several graphs captured
  /// into one pool in turn), which outlasts the captures inside it.
  uint8_t SessionMask = Inherit;
  int32_t Session = -1; ///< The session region when inside one.
  bool operator==(const CaptureState &O) const {
    return Mask == O.Mask && Region == O.Region &&
           SessionMask == O.SessionMask && Session == O.Session;
  }
  bool inSession() const { return SessionMask & Inside; }
  /// Join: every state some path may be in; the first region known.
  bool joinFrom(const CaptureState &O) {
    CaptureState Old = *this;
    Mask |= O.Mask;
    SessionMask |= O.SessionMask;
    if (Region < 0)
      Region = O.Region;
    if (Session < 0)
      Session = O.Session;
    return !(*this == Old);
  }
  /// The state of a callee's point reached through a call made in Caller.
  CaptureState through(const CaptureState &Caller) const {
    CaptureState Out = *this;
    if (Mask & Inherit) {
      Out.Mask = uint8_t((Mask & ~Inherit) | Caller.Mask);
      Out.Region = Region >= 0 ? Region : Caller.Region;
    }
    if (SessionMask & Inherit) {
      Out.SessionMask = uint8_t((SessionMask & ~Inherit) | Caller.SessionMask);
      Out.Session = Session >= 0 ? Session : Caller.Session;
    }
    return Out;
  }
};

struct RegionInfo {
  FnId Fn = -1;
  bool Predicate = false; ///< Opened by a capture predicate (no end).
  SrcLoc Begin, End;
  /// Capture, TaskUpdate or CaptureSession.
  RegionKind Kind = RegionKind::Capture;
  /// Capture: the graph object the region captures into, as the opening
  /// instruction names it (empty when it names none, as ACL's stream does).
  Value Graph;
  /// Capture: the graph outlives the function on some path: it is the
  /// caller's (a parameter, a field, a global), or the function stores it
  /// in a place or returns it.
  bool GraphKept = false;
};

/// Where a weak reference was made, as the function holding it sees it.
struct ConvSite {
  SrcLoc At;      ///< The conversion, or the call that made it.
  FnId Fn = -1;   ///< The function At is in.
  bool Direct = false; ///< A primitive written in Fn (not a helper).
  FnId Helper = -1;    ///< A helper that converted its parameter.
  SrcLoc HelperAt;     ///< ... at this conversion inside it,
  FnId MadeIn = -1;    ///< ... which is in this function (HelperAt's or,
                       ///< direct, At's: it follows from the position).
  /// A raw address (WeakKind::Address), not a weak reference.
  bool Address = false;
  /// Made by a helper the alias was handed to, inside its body.
  bool viaHelper() const {
    return Helper >= 0 && HelperAt.valid() && !(HelperAt == At);
  }
  bool operator==(const ConvSite &O) const {
    return At == O.At && Fn == O.Fn && Direct == O.Direct &&
           Helper == O.Helper && HelperAt == O.HelperAt &&
           Address == O.Address;
  }
};

struct AllocSite {
  FnId Fn = -1;
  SrcLoc At;
  AllocKind Kind = AllocKind::Tensor;
  bool SizedByCaller = false;
  bool Device = false; ///< Known device memory (Inst::Device).
  /// An object built by a constructor of this in-tree class: each run of
  /// the site makes one object whose fields hold what it was given (and
  /// die with it), which the program-wide facts name as the class's place.
  ClassId Class = -1;
  /// The result of a call of unknown code: fresh memory of unknown type.
  bool Unknown = false;
  /// Raw memory (Inst::Manual): freed by a Free, never by its holders.
  bool Manual = false;
};

// --- Summary effects (in the callee's terms) ------------------------------

struct StoreEffect {
  MemId Place;
  Value V;
  SrcLoc At;
  std::string Spelling;
  CaptureState C;
  bool FirstFill = false;
  bool KeyPerLayer = false;
  bool IfAbsent = false; ///< Inst::IfAbsent: what the place held stays.
  /// The same store but for what it stores (the spelling only names it):
  /// one effect, its values joined.
  bool sameSite(const StoreEffect &O) const {
    return Place == O.Place && At == O.At && C == O.C &&
           FirstFill == O.FirstFill && KeyPerLayer == O.KeyPerLayer &&
           IfAbsent == O.IfAbsent;
  }
};
struct ClearEffect {
  MemId Place;
  SrcLoc At;
  std::string Spelling;
  CaptureState C;
  bool sameSite(const ClearEffect &O) const {
    return Place == O.Place && At == O.At && C == O.C;
  }
};
struct UseEffect {
  Value V;
  SrcLoc At;
  std::string Spelling;
  CaptureState C;
  int32_t Stream = -1;
  bool SizeChecked = false;
  /// The region that binds what the use reads, inside the callee: a task
  /// update, or the callee's own capture (-1: none there).
  int32_t BindRegion = -1;
  bool sameSite(const UseEffect &O) const {
    return At == O.At && C == O.C && Stream == O.Stream &&
           SizeChecked == O.SizeChecked && BindRegion == O.BindRegion;
  }
};
/// Memory the function (or a callee) made that an operation used outside
/// any task update or capture of the function's own, and that dies before
/// the function returns (the workspace an op allocates for itself). A
/// caller that makes the call inside a task update binds it into the
/// updated task, which keeps its address after it died.
struct LocalBindEffect {
  SrcLoc At;      ///< The operation (the innermost, through callees).
  SrcLoc Address; ///< Where its raw address was taken, when read so.
  SrcLoc DiesAt;  ///< Where its last strong reference dies.
  bool Freed = false; ///< DiesAt frees raw memory (Op::Free).
  bool operator==(const LocalBindEffect &O) const {
    return At == O.At && Address == O.Address && DiesAt == O.DiesAt &&
           Freed == O.Freed;
  }
};
/// A weak-ref conversion of (a path below) a parameter, here or in a
/// callee it is passed to.
struct ConvertEffect {
  MemId Of;
  SrcLoc At;      ///< The conversion itself, wherever it is.
  bool Unguarded; ///< No None check before it.
};

struct Summary {
  Value Returns;
  bool ReturnsCapturePredicate = false;
  bool ReturnsSessionPredicate = false;
  /// The capture state the function returns in, as seen from its caller:
  /// `Inherit` (the caller's state, unchanged) unless a capture or session
  /// begins or ends in it and stays so at a return (a `begin()` helper, a
  /// context manager's `__enter__`, an override of `capture_begin` that
  /// calls the base's). No mask: no return reached yet.
  CaptureState Exit{0, -1, 0, -1};
  /// Where it ends a capture its caller is in (an `end()` helper), for the
  /// caller's "capture ends here" note.
  SrcLoc EndsCallersCaptureAt;
  /// It destroys a graph (Op::GraphDestroy) on some path: the caller's
  /// memory bound into tasks is used by no graph after the call.
  bool DestroysGraph = false;
  /// It replays a graph (Op::GraphLaunch) on some path.
  bool LaunchesGraph = false;
  std::vector<StoreEffect> Stores;
  std::vector<ClearEffect> Clears;
  std::vector<UseEffect> Uses;
  std::vector<ConvertEffect> Converts;
  std::vector<LocalBindEffect> LocalBinds;
  MemSet Escapes; ///< Parameter memory kept alive by someone else.
  /// (place below an object the function made and returns, memory it made
  /// and holds there): `return {"inputs": torch.zeros(n)}` hands its
  /// caller a container whose slot holds the tensor, as a constructor's
  /// stores into `self` do. Sorted, no repeats.
  std::vector<std::pair<MemId, MemId>> ReturnedHeld;
  /// One conversion per parameter place and position (the first path's
  /// guard); whether E was new. Defined in SummaryJoin.cpp.
  bool addConvert(const ConvertEffect &E);
  /// Equal summaries: a caller interpreted against either does the same.
  bool operator==(const Summary &O) const;
  bool operator!=(const Summary &O) const { return !(*this == O); }
  /// A cheap measure of everything above (an effect's values too), for
  /// tests that bound a summary's size.
  size_t size() const {
    size_t N = Returns.atoms().size() + Stores.size() + Clears.size() +
               Uses.size() + Converts.size() + LocalBinds.size() +
               Escapes.size() +
               ReturnsCapturePredicate + ReturnsSessionPredicate;
    for (const StoreEffect &E : Stores)
      N += E.V.atoms().size();
    for (const UseEffect &E : Uses)
      N += E.V.atoms().size();
    return N;
  }
};

// --- Facts (closed terms) --------------------------------------------------

struct WeakStoreFact {
  MemId Place, Memory;
  uint32_t Conv;
  SrcLoc StoreAt;
  std::string Spelling;
  CaptureState C;
  /// The call of this function whose callee made the store (invalid: the
  /// function's own store).
  SrcLoc Via = SrcLoc();
};
struct DeathFact {
  MemId Memory;
  SrcLoc At;
  bool AtReturn;
  CaptureState C;
  bool AfterWeakStore; ///< On a path that stored a weak alias of it.
  bool AfterBind = false; ///< On a path that bound it into an updated task.
  /// Where the object (or container) was made whose death took this
  /// memory along, when only that object held it; else invalid.
  SrcLoc HeldBy;
  /// Raw memory freed (Op::Free) while a graph that kept its address may
  /// still be replayed: At is the free.
  bool Freed = false;
  /// Freed, then a graph is replayed (Op::GraphLaunch): a local graph
  /// too reads it.
  bool Replayed = false;
};
/// Local memory an operation inside a task update uses: the updated task
/// keeps its address for every later replay.
struct BindFact {
  MemId Memory;
  SrcLoc At;
  int32_t Region; ///< The task update or capture (Context::Regions).
  SrcLoc Via;     ///< The call that handed the memory to a callee's region.
  /// The task reads the memory through a raw address taken here
  /// (`t.data_ptr()`), not through the tensor.
  SrcLoc Address;
};
/// A call inside a task update (Region) of a function whose own memory
/// one of its operations binds and which dies before it returns.
struct CalleeBindFact {
  SrcLoc Via; ///< The call.
  int32_t Region;
  LocalBindEffect Bind;
};
struct PlaceUseFact {
  MemId Place;
  SrcLoc At;
  std::string Spelling;
  CaptureState C;
  int32_t Stream;
  bool SizeChecked;
  /// An operation of a task update: the updated task is bound to what the
  /// place holds now, not to what it held when the graph was captured.
  bool InUpdate = false;
};
struct DanglingFact {
  uint32_t Conv;
  MemId Memory;
  SrcLoc DiesAt, UseAt;
  CaptureState C;
  /// The memory was dead before the capture of the use began: it died
  /// between two captures of a session (or in an earlier one).
  bool BeforeCapture = false;
};
struct SlotWriteFact {
  enum KindT : uint8_t { Replace, Clear, FirstFill } Kind;
  MemId Place;
  SrcLoc At;
  std::string Spelling;
  CaptureState C;
  int32_t SizedSite = -1; ///< The allocation sized from the caller, if any.
};
struct CallFact {
  FnId Callee;
  SrcLoc At;
  CaptureState C;
};
/// An unguarded weak-ref conversion of a value held at Place: a finding
/// when Place may hold an empty value.
struct DeferredNullFact {
  MemId Place;
  SrcLoc At;
  FnId Helper = -1;
  uint32_t HelperParam = 0;
  SrcLoc HelperAt;
};

/// A weak-ref conversion of a value that already is a weak reference: in
/// this function (Helper -1), or in a helper the weak reference is passed to.
struct DoubleWeakFact {
  SrcLoc At;
  uint32_t First = 0; ///< Context::Convs: the first conversion.
  FnId Helper = -1;
  uint32_t Param = 0;
  SrcLoc PassedAt, HelperAt;
  std::vector<FixIt> Fixes;
};
/// A weak-ref conversion of a value that may be empty.
struct NullConversionFact {
  SrcLoc At;
  uint32_t Source; ///< Context::NullSites.
  FnId Helper = -1;
  uint32_t Param = 0;
  SrcLoc HelperAt;
};

struct FunctionFacts {
  std::vector<DoubleWeakFact> Doubles;
  std::vector<NullConversionFact> NullConversions;
  std::vector<WeakStoreFact> WeakStores;
  /// A weak alias of a place's own contents stored back into it (`P[k] =
  /// weak(P[k])`, `_ws = weak(_ws)` in a helper): the place lets go of
  /// what it held. Memory: the closed place that was read.
  std::vector<WeakStoreFact> Weakenings;
  /// Tensors this function made that outlive its return only through
  /// places (closed; no local, return or unknown callee keeps them): each
  /// lives while those places hold it. (memory, place)
  std::vector<std::pair<MemId, MemId>> PlaceHeld;
  std::vector<DeathFact> Deaths;
  std::vector<BindFact> Binds;
  std::vector<CalleeBindFact> CalleeBinds;
  std::vector<PlaceUseFact> Uses;
  std::vector<DanglingFact> Danglings;
  std::vector<SlotWriteFact> SlotWrites;
  std::vector<CallFact> Calls;
  std::vector<DeferredNullFact> DeferredNulls;
  /// Memory and places (closed) the function names as a workspace: what a
  /// variable named like one holds (`workspace = get_capture_resource(k,
  /// n)`), so that a cache filled by a helper with a neutral name is a
  /// workspace cache too.
  std::vector<MemId> WorkspaceNamed;
  /// What the function stores at places, closed: Context::collectContents
  /// joins every function's into the program's Contents.
  std::vector<std::pair<MemId, Value>> Contents;
  bool StreamSync = false;
};

} // namespace tether::engine

#endif
