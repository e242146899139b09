//===- Memory.cpp - Interning of abstract memory ---------------------------===//
#include "engine/Memory.h"

namespace tether::engine {

/// What one thread has already found in a shared table. Ids never change
/// once handed out, so a thread that has seen a place, a step or a string
/// needs no lock to see it again: only new lookups take the table's lock
/// (two threads locking for every lookup spent the time they had saved in
/// waiting for each other).
struct Seen {
  uint64_t Table = 0; ///< The table's serial number.
  llvm::DenseMap<std::pair<uint64_t, uint32_t>, MemId> Roots;
  llvm::DenseMap<std::pair<MemId, uint32_t>, MemId> Children;
  llvm::StringMap<uint32_t> Strs;
};

namespace {
thread_local Seen ThisThread;
std::atomic<uint64_t> NextSerial{1};

} // namespace

MemTable::MemTable() : Serial(NextSerial++) {}

Seen *MemTable::seen() const {
  if (!Lock.shared())
    return nullptr;
  if (ThisThread.Table != Serial) {
    ThisThread = Seen();
    ThisThread.Table = Serial;
  }
  return &ThisThread;
}

template <typename MapT, typename KeyT, typename AddT>
uint32_t MemTable::find(MapT Seen::*Local, MapT &Table, const KeyT &K,
                        AddT Add) {
  Seen *Mine = seen();
  if (Mine)
    if (auto It = (Mine->*Local).find(K); It != (Mine->*Local).end())
      return It->second;
  auto Held = Lock.guard();
  auto [It, New] = Table.try_emplace(K, 0);
  if (New)
    It->second = Add();
  if (Mine)
    (Mine->*Local).try_emplace(K, It->second);
  return It->second;
}

uint32_t MemTable::str(llvm::StringRef S) {
  return find(&Seen::Strs, StrIds, S,
              [&] { return uint32_t(Strings.push_back(S.str())); });
}

MemId MemTable::intern(const MemKey &K) {
  return rebase(root(K.Root, K.A, K.B), K, 0);
}

MemId MemTable::root(RootKind R, uint32_t A, uint32_t B) {
  std::pair<uint64_t, uint32_t> Id{(uint64_t(A) << 32) | B, uint32_t(R)};
  return find(&Seen::Roots, Roots, Id, [&] {
    MemKey K;
    K.Root = R;
    K.A = A;
    K.B = B;
    return MemId(Keys.emplace_back(std::move(K)));
  });
}

MemId MemTable::child(MemId M, uint32_t Step) {
  if (key(M).Path.size() >= kMaxPath)
    return M;
  return find(&Seen::Children, Children, std::pair{M, Step}, [&] {
    MemKey K = key(M);
    K.Path.push_back(Step);
    return MemId(Keys.emplace_back(std::move(K)));
  });
}

MemId MemTable::rebase(MemId Base, const MemKey &Below, size_t From) {
  MemId Out = Base;
  for (size_t I = From; I < Below.Path.size(); ++I)
    Out = child(Out, Below.Path[I]);
  return Out;
}

MemId MemTable::wildcard(MemId M) {
  // Asked again and again of the same places (every read compares the
  // stored slots with it): the answer is kept per id.
  // Without the lock: two threads asking at once both intern the same
  // place and store the same id.
  std::atomic<MemId> &Known = Keys[M].Wild;
  if (MemId W = Known.load(std::memory_order_acquire); W != kNoWild)
    return W;
  const MemKey &K = key(M);
  bool Const = false;
  for (uint32_t S : K.Path)
    Const |= isElement(S) && S != kElement;
  MemId Out = M;
  if (Const) {
    MemKey W = K;
    for (uint32_t &S : W.Path)
      if (isElement(S))
        S = kElement;
    Out = intern(W);
  }
  Known.store(Out, std::memory_order_release);
  return Out;
}

llvm::StringRef MemTable::lastName(MemId M) const {
  const MemKey &K = key(M);
  for (size_t I = K.Path.size(); I-- > 0;)
    if (!isElement(K.Path[I]))
      return Strings[K.Path[I]];
  if (K.Root == RootKind::Global) {
    llvm::StringRef N = Strings[K.A];
    size_t Dot = N.find_last_of(".:");
    return Dot == llvm::StringRef::npos ? N : N.substr(Dot + 1);
  }
  return {};
}

} // namespace tether::engine
