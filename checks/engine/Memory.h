//===- Memory.h - Abstract memory: places, values and their atoms --------===//
//
// Memory is abstracted by where it is held (DESIGN.md): a root and a path
// of fields and container elements below it.
//  - Param i of the function being summarised (replaced by the caller's
//    values when a summary is applied at a call);
//  - Global g (a module global, a class static, a C++ global);
//  - Inst C: every object of the in-tree class C (a receiver, an annotated
//    parameter, an object built by C's constructor);
//  - Alloc s: the memory made by allocation site s (a tensor, a workspace,
//    a container literal), fresh in the function that runs s;
//  - Opaque: an object nothing is known of (a parameter of unknown class
//    when no caller tells): it is no place anyone else names.
// A slot with a constant key (`t[0]`, `d["k"]`) is its own place; a slot
// with a key computed at run time stands for all of them (`d[*]`); the
// element an iteration binds is each of them in turn (`d[each]`).
//
// A value is a set of atoms: strong references to memory, weak aliases of
// memory (with the conversion that made them), "may be empty" (with its
// source) and "unknown". A join is a union, never a choice.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_MEMORY_H
#define TETHER_ENGINE_MEMORY_H

#include "engine/Ir.h"
#include "engine/Stable.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace tether::engine {

using MemId = uint32_t;
inline constexpr uint32_t kMaxPath = 4; ///< Deeper paths are cut here.

/// Shared: the one instance of a class that its holders reach through a
/// reference handed to them (Inst::Class on a Read), as every layer reaches
/// the context object its constructor was given: one object for them all,
/// where Inst is each holder's own.
enum class RootKind : uint8_t { Param, Global, Inst, Alloc, Opaque, Shared };

struct MemKey {
  RootKind Root = RootKind::Opaque;
  uint32_t A = 0;  ///< Param: fn; Global: name; Inst, Shared: class;
                   ///< Alloc: site.
  uint32_t B = 0;  ///< Param: index; Opaque: a number.
  /// Field name ids; element steps have kKeyBit set (kElement: any key).
  llvm::SmallVector<uint32_t, 4> Path;
  bool operator==(const MemKey &O) const {
    return Root == O.Root && A == O.A && B == O.B && Path == O.Path;
  }
};

struct Seen;

/// Interned strings, memory keys and the sites the atoms point back to.
/// Shared by the threads that interpret independent functions at once
/// (Engine.cpp): with share(true), a lookup a thread has not made before
/// takes the table's lock; keys and strings are read without it (they never
/// move, StableVector).
class MemTable {
public:
  MemTable();
  MemTable(const MemTable &) = delete;
  MemTable &operator=(const MemTable &) = delete;

  static constexpr uint32_t kKeyBit = 0x80000000u; ///< An element step.
  static constexpr uint32_t kElement = ~0u; ///< The element of any key.
  /// Each element in turn, as an iteration reads them: what a keyed store
  /// or test says of one slot is not said of this one.
  static constexpr uint32_t kEverySlot = ~0u - 1;
  static bool isElement(uint32_t Step) { return Step & kKeyBit; }
  /// The step into the element of constant key Key ("" = any key).
  uint32_t elementStep(llvm::StringRef Key) {
    return Key.empty() ? kElement : (kKeyBit | str(Key));
  }
  /// M with every constant key read as any key: the place all of M's
  /// sibling slots share.
  MemId wildcard(MemId M);

  uint32_t str(llvm::StringRef S);
  const std::string &strOf(uint32_t Id) const { return Strings[Id]; }

  MemId intern(const MemKey &K);
  const MemKey &key(MemId M) const { return Keys[M].Key; }
  MemId root(RootKind R, uint32_t A, uint32_t B = 0);
  /// M with one more step (a field name id or kElement), cut at kMaxPath.
  MemId child(MemId M, uint32_t Step);
  /// M's path appended below Base's.
  MemId rebase(MemId Base, const MemKey &Below, size_t From);
  /// The parameter M is rooted at, or -1.
  int paramOf(MemId M) const {
    return key(M).Root == RootKind::Param ? int(key(M).B) : -1;
  }
  /// The last named step of M (a field, or the global's name), for
  /// matching against workspace names.
  llvm::StringRef lastName(MemId M) const;
  /// Whether several threads use the table now (their lookups lock).
  void share(bool On) { Lock.share(On); }

private:
  static constexpr MemId kNoWild = ~0u;
  struct Entry {
    explicit Entry(MemKey K) : Key(std::move(K)) {}
    MemKey Key;
    std::atomic<MemId> Wild{kNoWild}; ///< wildcard(M), once asked.
  };
  /// This thread's lookups in this table so far, when it is shared.
  Seen *seen() const;
  /// K's id in Table, looked up first in this thread's copy Local (when
  /// shared); Add makes the entry of a new key and returns its id.
  template <typename MapT, typename KeyT, typename AddT>
  uint32_t find(MapT Seen::*Local, MapT &Table, const KeyT &K, AddT Add);

  llvm::StringMap<uint32_t> StrIds;
  StableVector<std::string> Strings;
  StableVector<Entry> Keys;
  /// The places form a tree: a root, then one step at a time. Each place
  /// is found from its root's identity and then one (parent, step) pair per
  /// step, so no key is ever hashed whole (a table of whole keys was a fifth
  /// of the engine's time, half of it faulting in its buckets).
  llvm::DenseMap<std::pair<uint64_t, uint32_t>, MemId> Roots;
  llvm::DenseMap<std::pair<MemId, uint32_t>, MemId> Children;
  ShareLock Lock;
  const uint64_t Serial; ///< Tells this table's lookups from another's.
};

struct Atom {
  enum KindT : uint8_t { Mem, Weak, Null, Unknown } Kind = Unknown;
  uint32_t M = 0; ///< Mem/Weak: the memory.
  /// Weak: the conversion; Null: the source site; Mem: kNotTensor or 0.
  uint32_t W = 0;
  /// A Mem atom known not to be a tensor: the object on a path where
  /// `isinstance(x, torch.Tensor)` failed. A caller that hands a tensor
  /// there takes nothing from it (a conversion helper's pass-through of
  /// lists and scalars is no strong reference to the tensor it converts).
  static constexpr uint32_t kNotTensor = 1;
  bool operator<(const Atom &O) const {
    if (Kind != O.Kind)
      return Kind < O.Kind;
    return M != O.M ? M < O.M : W < O.W;
  }
  bool operator==(const Atom &O) const {
    return Kind == O.Kind && M == O.M && W == O.W;
  }
  static Atom mem(MemId M) { return Atom{Mem, M, 0}; }
  static Atom notTensor(MemId M) { return Atom{Mem, M, kNotTensor}; }
  bool isNotTensor() const { return Kind == Mem && W == kNotTensor; }
  static Atom weak(MemId M, uint32_t Conv) { return Atom{Weak, M, Conv}; }
  static Atom null(uint32_t Site) { return Atom{Null, 0, Site}; }
  static Atom unknown() { return Atom{Unknown, 0, 0}; }
};

/// A sorted set of atoms. Small: most values hold one or two, kept inline;
/// states are copied at every block and join, and a copy of an inline value
/// is a few stores (a SmallVector's was a call and a memcpy).
class Value {
public:
  Value() = default;
  Value(Atom A) : N(1) { Inline[0] = A; }
  Value(const Value &O) { copyFrom(O); }
  Value(Value &&O) noexcept { steal(O); }
  Value &operator=(const Value &O) {
    if (this != &O) {
      if (O.N <= Cap) { // reuse the storage
        std::copy(O.data(), O.data() + O.N, data());
        N = O.N;
      } else {
        release();
        copyFrom(O);
      }
    }
    return *this;
  }
  Value &operator=(Value &&O) noexcept {
    if (this != &O) {
      release();
      steal(O);
    }
    return *this;
  }
  ~Value() { release(); }

  bool empty() const { return N == 0; }
  llvm::ArrayRef<Atom> atoms() const { return {data(), N}; }
  const Atom *begin() const { return data(); }
  const Atom *end() const { return data() + N; }
  void add(Atom A) {
    Atom *It = std::lower_bound(data(), data() + N, A);
    if (It != data() + N && *It == A)
      return;
    size_t At = size_t(It - data());
    if (N == Cap)
      grow();
    Atom *D = data();
    std::copy_backward(D + At, D + N, D + N + 1);
    D[At] = A;
    ++N;
  }
  /// Union; returns whether anything was added.
  bool join(const Value &O) {
    if (*this == O) // the common case at a loop's head
      return false;
    size_t Before = N;
    for (const Atom &A : O)
      add(A);
    return N != Before;
  }
  template <typename Pred> void removeIf(Pred P) {
    N = uint32_t(std::remove_if(data(), data() + N, P) - data());
  }
  bool has(Atom::KindT K) const {
    for (const Atom &A : *this)
      if (A.Kind == K)
        return true;
    return false;
  }
  bool operator==(const Value &O) const {
    return N == O.N && std::equal(begin(), end(), O.begin());
  }
  bool operator!=(const Value &O) const { return !(*this == O); }

private:
  static constexpr uint32_t kInline = 2;
  Atom *data() { return Heap ? Heap : Inline; }
  const Atom *data() const { return Heap ? Heap : Inline; }
  void copyFrom(const Value &O) {
    if (O.N > kInline) {
      Heap = new Atom[O.N];
      Cap = O.N;
    }
    std::copy(O.data(), O.data() + O.N, data());
    N = O.N;
  }
  void steal(Value &O) {
    if (O.Heap) {
      Heap = O.Heap;
      Cap = O.Cap;
      O.Heap = nullptr;
      O.Cap = kInline;
    } else {
      std::copy(O.Inline, O.Inline + O.N, Inline);
    }
    N = O.N;
    O.N = 0;
  }
  void release() {
    delete[] Heap;
    Heap = nullptr;
    Cap = kInline;
    N = 0;
  }
  void grow() {
    uint32_t NewCap = Cap * 2;
    Atom *D = new Atom[NewCap];
    std::copy(data(), data() + N, D);
    delete[] Heap;
    Heap = D;
    Cap = NewCap;
  }

  uint32_t N = 0, Cap = kInline;
  Atom *Heap = nullptr; ///< Set when the atoms outgrew Inline.
  Atom Inline[kInline];
};

/// A sorted set of memory ids (places known empty, non-empty, ...).
using MemSet = llvm::SmallVector<MemId, 4>;
inline bool memSetHas(const MemSet &S, MemId M) {
  return std::binary_search(S.begin(), S.end(), M);
}
/// Adds X to a sorted vector (a MemSet, a list of pairs) without repeats;
/// whether it was new.
template <typename Vec, typename T> bool insertSorted(Vec &To, const T &X) {
  auto It = std::lower_bound(To.begin(), To.end(), X);
  if (It != To.end() && *It == X)
    return false;
  To.insert(It, X);
  return true;
}
/// Adds the sorted run New (repeats allowed) to a sorted vector without
/// repeats: one move of To's tail for the run, where insertSorted moves it
/// once per element (a store of a value of many atoms, a callee's returned
/// holdings, into a large state). Whether anything was new.
template <typename Vec, typename T>
bool insertSortedRun(Vec &To, llvm::ArrayRef<T> New) {
  if (New.empty())
    return false;
  if (New.size() == 1)
    return insertSorted(To, New.front());
  auto Lo = std::lower_bound(To.begin(), To.end(), New.front());
  auto Hi = std::upper_bound(Lo, To.end(), New.back());
  llvm::SmallVector<T, 16> Merged;
  Merged.reserve(size_t(Hi - Lo) + New.size());
  std::set_union(Lo, Hi, New.begin(), New.end(), std::back_inserter(Merged));
  Merged.erase(std::unique(Merged.begin(), Merged.end()), Merged.end());
  size_t At = size_t(Lo - To.begin()), Was = size_t(Hi - Lo);
  if (Merged.size() == Was)
    return false;
  To.insert(To.begin() + At + Was, Merged.size() - Was, T());
  std::copy(Merged.begin(), Merged.end(), To.begin() + At);
  return true;
}
inline void memSetAdd(MemSet &S, MemId M) { insertSorted(S, M); }
inline void memSetRemove(MemSet &S, MemId M) {
  auto It = std::lower_bound(S.begin(), S.end(), M);
  if (It != S.end() && *It == M)
    S.erase(It);
}
inline MemSet memSetMeet(const MemSet &A, const MemSet &B) {
  MemSet Out;
  std::set_intersection(A.begin(), A.end(), B.begin(), B.end(),
                        std::back_inserter(Out));
  return Out;
}

} // namespace tether::engine

#endif
