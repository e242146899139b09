//===- State.h - The abstract state at one point of a function -----------===//
#ifndef TETHER_ENGINE_STATE_H
#define TETHER_ENGINE_STATE_H

#include "engine/Facts.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <tuple>
#include <utility>
#include <vector>

namespace tether::engine {

/// What a truth value (the result of a Test) says when it holds.
struct Truth {
  enum KindT : uint8_t { None, Capture, Session, IsNull, Empty, IsTensor } Kind = None;
  bool Positive = true; ///< False: the negation of the test.
  VarId Var = NoVar;    ///< IsNull, IsTensor: the variable tested.
  MemSet Places;        ///< IsNull/Empty: the places tested.
  SrcLoc At;            ///< Capture, Session: where the predicate is tested.
  bool operator==(const Truth &O) const {
    return Kind == O.Kind && Positive == O.Positive && Var == O.Var &&
           Places == O.Places && At == O.At;
  }
};

/// Sparse: only variables that hold something are stored.
struct State {
  bool Reached = false;
  std::vector<std::pair<VarId, Value>> Vals;
  std::vector<std::pair<VarId, Truth>> Truths;
  CaptureState Cap;
  /// A capture or a session began or ended on some path to here (here or
  /// in a callee), not only a predicate's branch: a return from here
  /// leaves the caller in Cap (Summary::Exit).
  bool RegionMoved = false;
  int32_t Stream = -1; ///< Interned stream spelling; -1 default, -2 mixed.
  /// The task update region some path is inside (-1: none).
  int32_t Update = -1;
  /// Local memory an operation of a task update (or of a capture, from
  /// outside its pool) used, on some path, and no graph destroyed since.
  MemSet Bound;
  /// Of those, raw memory freed (Op::Free) on some path, with the free: a
  /// graph destroyed before the function returns still makes it harmless.
  std::vector<std::pair<MemId, SrcLoc>> Freed;
  /// Local memory allocated inside this function's capture (from the
  /// graph's pool), on some path.
  MemSet InPool;
  MemSet Empty;        ///< Places known to hold nothing on this path.
  MemSet NonNull;      ///< Places known to hold a value on this path.
  /// Memory whose last strong holder died on some path, and where.
  std::vector<std::pair<MemId, SrcLoc>> Dead;
  /// Of those, the memory already dead when the capture this point is in
  /// began, in a capture session (an earlier capture's memory, which the
  /// shared pool may have handed to this capture's own tensors).
  MemSet DeadBeforeCapture;
  /// Local memory handed to a strong holder outside the function (a
  /// place, unknown code, the caller) on every path to here.
  MemSet Escaped;
  /// Local memory a weak alias of which was stored into a place on some
  /// path to here, with no strong holder outside since.
  MemSet Pending;
  /// (place, local memory): a place that holds the memory strongly, stored
  /// on every path to here. An exact place (no slot of a computed key)
  /// overwritten or cleared lets go of what it held.
  std::vector<std::pair<MemId, MemId>> Held;
  /// (place, local memory): the memory was made on this path while the
  /// place was known to hold nothing, and nothing was stored there since.
  /// Storing it there is the place's first fill, whatever later test or
  /// flag leads to the store (`if ws is None: ws = make(); fill = True`,
  /// then `if fill: cache[k] = ws`). Kept at a join where the other path
  /// has it too or never made the memory.
  std::vector<std::pair<MemId, MemId>> FillFor;
  /// A raw address of local memory stored at a place on some path
  /// (`args.workspace = ws.data_ptr()`): it owns nothing, but an operation
  /// handed the place (or an object it is below) is handed the memory.
  struct Address {
    MemId Place, Memory;
    uint32_t Conv;
    bool operator<(const Address &O) const {
      return std::tie(Place, Memory, Conv) <
             std::tie(O.Place, O.Memory, O.Conv);
    }
    bool operator==(const Address &O) const {
      return Place == O.Place && Memory == O.Memory && Conv == O.Conv;
    }
  };
  std::vector<Address> Addressed;
  /// (place of a local object or container, a place's memory stored there)
  /// on some path: a copy of a parameter's elements (`reversed(runners)`,
  /// `runners[1:]`) still holds the parameter's runners, which a loop over
  /// the copy reads back. Local memory stored there is in Held.
  std::vector<std::pair<MemId, MemId>> Stored;

  const Value *get(VarId V) const;
  void set(VarId V, Value X);
  const Truth *truth(VarId V) const;
  void setTruth(VarId V, Truth T);
  bool isDead(MemId M, SrcLoc *At = nullptr) const;
  void markDead(MemId M, SrcLoc At);
  void revive(MemId M);
  bool operator==(const State &O) const;
};

/// The local object a place is below (the place itself when it is below
/// none): a path that never made the object holds nothing in its fields.
using ObjectOfPlace = llvm::function_ref<MemId(MemId)>;

/// Into := Into join From (a union of values, intersections of what is
/// known on every path). Returns whether Into changed.
bool joinInto(State &Into, const State &From, ObjectOfPlace ObjectOf = nullptr);
/// The same, taking From's storage when Into was not reached yet.
bool joinInto(State &Into, State &&From, ObjectOfPlace ObjectOf = nullptr);

} // namespace tether::engine

#endif
