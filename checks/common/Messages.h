//===- Messages.h - Check names and messages shared by both frontends -----===//
//
// The check names are the public interface (DESIGN.md). Both frontends
// report the same design mistake with the same words, so a C++ and a Python
// version of one bug read alike in every output format. Messages use
// clang-style "%0" placeholders, filled in by the reporting frontend.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_MESSAGES_H
#define TETHER_COMMON_MESSAGES_H

namespace tether::msg {

// Check names.
inline constexpr const char *WeakRefBeforeCaptureEnd =
    "tether-weak-ref-before-capture-end";
inline constexpr const char *DoubleWeakRef = "tether-double-weak-ref";
inline constexpr const char *WorkspaceSharedAcrossLayers =
    "tether-workspace-shared-across-layers";
inline constexpr const char *WeakRefOfMaybeNull =
    "tether-weak-ref-of-maybe-null";
inline constexpr const char *GraphMemoryDiesBeforeReplay =
    "tether-graph-memory-dies-before-replay";

// tether-double-weak-ref
inline constexpr const char *DoubleWeakRefWarning =
    "weak-ref conversion of a value that is already a weak reference";
inline constexpr const char *DoubleWeakRefFirst =
    "first weak reference made here";
inline constexpr const char *DoubleWeakRefHelperParam =
    "'%0' converts its parameter '%1' to a weak reference here";
inline constexpr const char *WeakRefMadeInside =
    "'%0' makes the weak reference here";
inline constexpr const char *DoubleWeakRefPassed =
    "the weak reference is passed to '%0' here";
inline constexpr const char *DoubleWeakRefFixIt =
    "remove the inner weak-ref conversion";

// tether-weak-ref-before-capture-end
inline constexpr const char *WeakRefBeforeCaptureEndWarning =
    "weak reference made during graph capture to memory whose last strong "
    "reference can die before the capture ends";
inline constexpr const char *CaptureBeginsHere = "capture begins here";
inline constexpr const char *CaptureEndsHere = "capture ends here";
inline constexpr const char *InCaptureThroughCall =
    "'%0' runs inside the capture through this call";
inline constexpr const char *LastStrongRefDies =
    "the last strong reference to the memory dies here";
inline constexpr const char *FreedWhileGraphLives =
    "the memory is freed here, while the graph can still be replayed";
inline constexpr const char *LaterUseInCapture =
    "the weak reference is used by a later operation of the same capture "
    "here";
// ... its capture-session form: several graphs captured in turn into one
// pool, the weak reference made between (or in) one and a later one.
inline constexpr const char *WeakRefBeforeSessionEndWarning =
    "weak reference made during a capture session to memory whose last "
    "strong reference can die before a later capture of the session uses it";
inline constexpr const char *SessionBeginsHere = "capture session begins here";
inline constexpr const char *SessionEndsHere = "capture session ends here";
inline constexpr const char *InSessionThroughCall =
    "'%0' runs inside the capture session through this call";
inline constexpr const char *StoredForLaterCapture =
    "the weak reference is stored in '%0', read by a later capture of the "
    "session";
inline constexpr const char *LaterCaptureOfSession =
    "a later capture of the same session uses the weak reference here";
// ... one finding per root cause: a helper's conversion that every caller
// reaches with memory that dies, reported once at the helper.
inline constexpr const char *HelperCallPath =
    "'%0' hands it memory whose last strong reference dies before the "
    "capture ends, through this call";
// ... a place weakened in place (`P[k] = weak(P[k])`): the weak alias
// replaces the only strong reference.
inline constexpr const char *HeldOnlyInPlace =
    "the memory is allocated here and kept only by '%0'";
inline constexpr const char *WeakRefReplacesHolder =
    "the weak reference replaces the last strong reference, in '%0', here";
inline constexpr const char *StoredInSharedPlace =
    "the weak reference is stored in '%0', read by other code during the "
    "capture";

// tether-workspace-shared-across-layers
inline constexpr const char *WorkspaceReplacedWarning =
    "workspace slot '%0' shared by several layers is replaced during graph "
    "capture; tasks captured by earlier layers still point at the old "
    "workspace";
inline constexpr const char *WorkspaceUnsizedWarning =
    "workspace cached in '%0' is sized for the first caller and reused by "
    "other layers without a size check";
inline constexpr const char *WorkspaceStreamsWarning =
    "workspace slot '%0' is used on different streams inside the capture "
    "without ordering";
inline constexpr const char *WorkspaceStoreAlsoReached =
    "'%0' reaches the same store during the capture through this call";
inline constexpr const char *WorkspaceEarlierRead =
    "an earlier layer reads the slot and hands the workspace to a captured "
    "task here";
inline constexpr const char *WorkspaceSizedHere =
    "the workspace size is computed from this caller's arguments here";
inline constexpr const char *WorkspaceOtherStream =
    "the slot is also used on another stream here";

// tether-graph-memory-dies-before-replay
inline constexpr const char *GraphMemoryDiesBeforeReplayWarning =
    "memory bound into a graph task by a task update can die before the "
    "graph's next replay; the updated task keeps its address";
inline constexpr const char *TaskUpdateBeginsHere = "task update begins here";
inline constexpr const char *TaskUpdatedByCall =
    "the captured task is updated here, in one call";
inline constexpr const char *TaskUpdateEndsHere = "task update ends here";
inline constexpr const char *BoundIntoUpdatedTask =
    "the memory is bound into the updated task here";
inline constexpr const char *OutOfPoolDiesWarning =
    "memory allocated outside the graph's pool and used by a captured task "
    "can die while the graph lives; the graph keeps its address";
inline constexpr const char *BoundIntoCapturedTask =
    "the memory is used by a captured task here";
inline constexpr const char *HeldOnlyByObject =
    "the memory is held only by the object made here, and dies with it";
inline constexpr const char *RawAddressTakenHere =
    "the task is handed a raw address of the memory, taken here; an address "
    "does not keep the memory alive";

// tether-weak-ref-of-maybe-null
inline constexpr const char *WeakRefOfMaybeNullWarning =
    "weak-ref conversion of a value that may be empty (None, an undefined "
    "tensor or an empty optional)";
inline constexpr const char *MaybeNullSource =
    "the value may be empty because of this";

// Appended by the Python frontend.
inline constexpr const char *WorkspaceReusedUnchecked =
    "another layer reads the slot and hands the workspace to a captured task "
    "without a size check here";
inline constexpr const char *WeakRefHelperConverts =
    "'%0' converts its parameter '%1' to a weak reference without a None "
    "check here";

} // namespace tether::msg

#endif
