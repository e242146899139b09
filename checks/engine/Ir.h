//===- Ir.h - The language-neutral IR every frontend lowers into ---------===//
//
// One program = the functions of a translation unit (C++) or of a package
// (Python), each a CFG of basic blocks over a handful of instruction kinds.
// A frontend decides what the source means in the vocabulary of the bug
// class (this call makes a weak reference, that one allocates a workspace,
// this `with` opens a capture, this call may reach these functions) and
// says nothing else; the engine (Engine.h) does every piece of reasoning.
//
// Locals are numbered variables of their function. Parameters are the first
// NumParams variables, in order; a bound method's receiver is parameter 0.
// A frontend lowers nested expressions into temporaries (further variables),
// and short-circuit conditions into branches.
//
// No clang and no tree-sitter here: the IR is plain data.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_IR_H
#define TETHER_ENGINE_IR_H

#include "common/Finding.h"
#include "engine/Symbol.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <string>
#include <vector>

namespace tether::engine {

using VarId = int32_t;
using FnId = int32_t;
using ClassId = int32_t;
inline constexpr VarId NoVar = -1;

/// A source position: Program::Files[File], 1-based line and column (as
/// Finding reports them). Line 0 means "no position".
struct SrcLoc {
  uint32_t File = 0;
  uint32_t Line = 0;
  uint32_t Col = 0;
  bool valid() const { return Line != 0; }
  bool operator==(const SrcLoc &O) const {
    return File == O.File && Line == O.Line && Col == O.Col;
  }
  bool operator<(const SrcLoc &O) const {
    if (File != O.File)
      return File < O.File;
    return Line != O.Line ? Line < O.Line : Col < O.Col;
  }
};

/// A place the code reads, stores or clears, named as the code names it.
/// The engine turns it into an abstract place from what Base may hold.
struct PlaceRef {
  enum KindT : uint8_t {
    Global,  ///< A module global, class-level static or C++ global/static
             ///< variable: Name is its qualified name.
    Field,   ///< Attribute or data member Name of the object in Base.
    Element, ///< An element of the container in Base (Key, or any key).
  } Kind = Global;
  VarId Base = NoVar;
  Symbol Name;
  /// Element: the spelling of a constant key ("0", "'k'"); empty = any key
  /// (a key computed at run time: every slot is one place).
  Symbol Key;
  /// Element: the key names a layer (`layer_id`, `self.layer_name`): one
  /// slot per layer, so a size one layer computed serves that layer only.
  bool KeyPerLayer = false;
  /// Element: each slot in turn (the element a loop over the container
  /// binds), not one slot of an unknown key.
  bool EverySlot = false;
  /// The place as written at this access, for messages
  /// ("_graph_params.workspaces", "cache_[n]").
  Symbol Spelling;
  /// Global: this program's own (C++: internal linkage, `static` or in an
  /// anonymous namespace); a global of the same name in another program of
  /// the run is another place.
  bool Local = false;
};

enum class AllocKind : uint8_t {
  Tensor,    ///< A tensor allocation (torch.empty, at::empty, ...).
  Workspace, ///< The catalog's workspace producers, or an allocation bound
             ///< to a workspace name.
  Object,    ///< An object built by a constructor (Class, when in-tree).
  Container, ///< A dict/list/map/vector literal or constructor.
};

/// The last kind is the bound Serialize.cpp reads against.
enum class WeakKind : uint8_t {
  Primitive, ///< A catalog weak-ref primitive.
  FromBlob,  ///< `from_blob` over another tensor's memory, no deleter.
  /// A raw address of A's memory (`t.data_ptr()`, a `void *`): it owns
  /// nothing and is no weak reference the weak-ref checks judge, but a task
  /// handed it (or an object a place of which holds it) is handed the
  /// memory, which must be owned elsewhere while the graph uses it.
  Address,
  /// A tensor made over the raw addresses A holds, directly or in the
  /// fields of an object it is (`torch.as_tensor(TensorWrapper(
  /// t.data_ptr(), ...))`, TensorRT-LLM's make_weak_ref): a weak reference
  /// of the memory behind them. Where A holds no address, Dst keeps what
  /// the instructions before made of it (the op's own new tensor).
  OverAddress,
};

/// What a Test instruction computes into its Dst (a truth value a Branch
/// can be taken on).
/// The last kind is the bound Serialize.cpp reads against.
enum class TestKind : uint8_t {
  CapturePredicate, ///< True while a capture is running.
  SessionPredicate, ///< True while a capture session is open.
  IsNull,           ///< A is None / undefined / an empty optional.
  PlaceEmpty,       ///< The place P has no value (`k not in cache`,
                    ///< `cache.count(k) == 0`, `it == cache.end()`).
  SizeCheck,        ///< A's size is compared with a required size.
  IsTensor,         ///< A is a tensor (`isinstance(a, torch.Tensor)`): the
                    ///< false branch is where a helper that converts
                    ///< tensors hands other values back unchanged.
};

enum class RegionKind : uint8_t {
  Capture,        ///< A graph capture (with-block, begin/end pair).
  TaskGroup,      ///< graph_task_group_begin ... end.
  TaskUpdate,     ///< graph_task_update_begin ... end.
  Stream,         ///< Work issued on another stream (Key names it).
  CaptureSession, ///< A session of several captures sharing a pool.
};

/// The last kind is the bound Serialize.cpp reads against.
enum class Op : uint8_t {
  Const,       ///< Dst = a value that is no memory and never empty.
  Null,        ///< Dst = None / an undefined tensor / an empty optional.
  Copy,        ///< Dst = A.
  Alloc,       ///< Dst = fresh memory (Alloc, Class, SizedByCaller).
  WeakRef,     ///< Dst = a weak alias of A's memory (Weak).
  Call,        ///< Dst = a call of Targets (or of unknown code: Args escape).
  Read,        ///< Dst = the value held at P.
  Store,       ///< P = A.
  Clear,       ///< Every value held at P is dropped (`.clear()`, `del`).
  Use,         ///< An operation (Name) reads or writes A's memory.
  Test,        ///< Dst = a truth value (Test) about A or P.
  Not,         ///< Dst = the negation of the truth value A.
  RegionBegin, ///< A region (Region, Key) begins.
  RegionEnd,   ///< The innermost open region of kind Region (and Key) ends.
  Kill,        ///< The local A ends its lifetime (`del x`, scope exit).
  Escape,      ///< A is handed to code that may keep it alive.
  Sync,        ///< Streams are ordered here (`wait_stream`, an event wait).
  Free,        ///< A's raw memory is freed here, whoever holds it.
  /// An instantiated graph is destroyed (`aclmdlRIDestroy`,
  /// `cudaGraphExecDestroy`): the addresses its tasks kept are used no more.
  GraphDestroy,
  /// An instantiated graph is replayed (`aclmdlRIExecuteAsync`,
  /// `cudaGraphLaunch`): its tasks read every address they keep.
  GraphLaunch,
};

/// One candidate callee of a call, with the caller's variable passed to
/// each of the callee's parameters (NoVar: not passed / a default).
struct CallTarget {
  FnId Fn = -1;
  llvm::SmallVector<VarId, 0> Args;
};

struct Inst {
  Op Kind = Op::Const;
  SrcLoc Loc;
  VarId Dst = NoVar;
  VarId A = NoVar;
  PlaceRef P;
  AllocKind Alloc = AllocKind::Tensor;
  WeakKind Weak = WeakKind::Primitive;
  TestKind Test = TestKind::CapturePredicate;
  RegionKind Region = RegionKind::Capture;
  /// Alloc of an Object: its in-tree class. Read: the value read is a
  /// reference its holder was handed to an instance of this class (a
  /// member initialised from a parameter: `Context *ctx_`,
  /// `std::shared_ptr<Context>`, `self.ctx = ctx`), which other holders may
  /// have been handed too: the engine reads it as that class's one shared
  /// instance, so a slot in it is shared by every holder.
  ClassId Class = -1;
  bool SizedByCaller = false; ///< Alloc: size computed from the caller's
                              ///< arguments (not a maximum).
  /// Alloc: known to make device memory (a tensor factory, a workspace
  /// producer, a C++ call typed to return a tensor), not a value of a call
  /// the frontend cannot type.
  bool Device = false;
  /// Alloc: raw memory (`aclrtMalloc`, `cudaMalloc`): no reference owns
  /// it, so it lives until a Free of it, whatever holds its address.
  bool Manual = false;
  bool MayBeAbsent = false;   ///< Read: `.get(k)` / `find`: may be empty.
  /// Store: fills the place only where it is empty (Python's setdefault, a
  /// C++ map's emplace, try_emplace and insert): a first fill, never a
  /// replacement, and what the place held stays held. Read as a store for
  /// what it keeps alive: a design keeps one value per key.
  bool IfAbsent = false;
  llvm::SmallVector<CallTarget, 0> Targets; ///< Call: the resolved candidates.
  llvm::SmallVector<VarId, 0> Args; ///< Call: every argument (unresolved
                                   ///< calls: they escape).
  llvm::SmallVector<SrcLoc, 0> ArgLocs; ///< Call: where each of Args is written.
  /// An Alloc (the result) or a Const (no result) that stands for a call of
  /// a function this program only declares: its Function::Link. When the
  /// programs of a run are linked (Link.h) and one defines it, the
  /// instruction becomes a Call of that definition with Args, one per
  /// parameter (NoVar: not a tensor, or a default).
  Symbol Link;
  Symbol Key;  ///< RegionBegin/End of a Stream: the stream's spelling.
  Symbol Name; ///< The callee / op / helper as spelled, for messages.
  /// WeakRef, and a Call of one argument: the edits that drop this
  /// conversion (replace the call by its argument), offered when it is the
  /// inner one of a double conversion.
  llvm::SmallVector<tether::FixIt, 0> Fixes;
};

struct Terminator {
  enum KindT : uint8_t {
    Goto,   ///< Succ[0].
    Branch, ///< Succ[0] when Cond holds, Succ[1] otherwise.
    Return, ///< Returns Value (NoVar: nothing).
    Raise,  ///< Leaves the function by an exception (no return value).
  } Kind = Return;
  uint32_t Succ[2] = {0, 0};
  VarId Cond = NoVar;
  VarId Value = NoVar;
  SrcLoc Loc;
  /// How many of Succ are successors (a return or raise has none).
  unsigned numSuccs() const {
    return Kind == Goto ? 1 : Kind == Branch ? 2 : 0;
  }
};

struct Block {
  std::vector<Inst> Insts;
  Terminator Term;
};

struct Function {
  std::string Name;     ///< As shown in notes ("Attention.forward").
  std::string QualName; ///< Unique ("pkg.mod.Attention.forward").
  ClassId Class = -1;   ///< The class it is a method of.
  bool ModuleBody = false;
  uint32_t NumParams = 0;
  std::vector<Symbol> VarNames; ///< Every variable ("" = temporary).
  /// The in-tree class of each parameter when the code states it (the
  /// receiver, an annotation), else -1.
  std::vector<ClassId> ParamClass;
  /// The in-tree class of each parameter's elements when the code states
  /// it (`runners: list[GraphRunner]`, `std::vector<Layer *>`), else -1
  /// (shorter than NumParams when none is stated).
  std::vector<ClassId> ParamElemClass;
  std::vector<Block> Blocks; ///< Blocks[0] is the entry.
  SrcLoc Loc;                ///< The definition.
  SrcLoc EndLoc;             ///< Where its locals die when it falls off.
  /// The name the definition is known by to other programs of the run
  /// (C++: its mangled name, so that a binding in one translation unit
  /// finds the body in another); empty when it has none.
  std::string Link;
  /// Lowered from another program of the run (a C++ function bound into
  /// Python and what it calls, Link.h): a finding in the caller's language
  /// points into its body, which the reader would not look for.
  bool Foreign = false;
};

struct Class {
  std::string Name;
  std::vector<ClassId> Bases;
  /// This program's own (C++: internal linkage, as in an anonymous
  /// namespace): a class of the same name in another program of the run
  /// is another class.
  bool Local = false;
};

/// A function another language calls by a name of its own: a C++ function
/// bound into Python by pybind11 (`m.def("f", &f)` in module `_C`: "_C.f")
/// or registered as a torch op (`TORCH_LIBRARY(ns, m)`, `m.def`/`m.impl`:
/// "torch.ops.ns.op").
struct Binding {
  std::string Name;      ///< As the other language spells the callee.
  FnId Fn = -1;          ///< The function, when this program defines it.
  std::string Link;      ///< Else the Function::Link of its definition.
  uint32_t FirstArg = 0; ///< Parameters the caller does not pass (a
                         ///< lambda's closure).
  SrcLoc Loc;            ///< The registration.
};

struct Program {
  std::vector<std::string> Files;
  std::vector<Class> Classes;
  std::vector<Function> Functions;
  std::vector<Binding> Bindings;
};

} // namespace tether::engine

#endif
