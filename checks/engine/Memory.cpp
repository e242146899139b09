//===- Memory.cpp - Interning of abstract memory ---------------------------===//
#include "engine/Memory.h"

namespace tether::engine {

uint32_t MemTable::str(llvm::StringRef S) {
  auto [It, New] = StrIds.try_emplace(S, uint32_t(Strings.size()));
  if (New)
    Strings.push_back(S.str());
  return It->second;
}

MemId MemTable::intern(const MemKey &K) {
  return rebase(root(K.Root, K.A, K.B), K, 0);
}

MemId MemTable::root(RootKind R, uint32_t A, uint32_t B) {
  auto [It, New] = Roots.try_emplace({(uint64_t(A) << 32) | B, uint32_t(R)},
                                     MemId(Keys.size()));
  if (New) {
    MemKey &K = Keys.emplace_back();
    K.Root = R;
    K.A = A;
    K.B = B;
  }
  return It->second;
}

MemId MemTable::child(MemId M, uint32_t Step) {
  if (Keys[M].Path.size() >= kMaxPath)
    return M;
  auto [It, New] = Children.try_emplace({M, Step}, MemId(Keys.size()));
  if (New) {
    MemKey K = Keys[M]; // a copy: the push may move the table
    K.Path.push_back(Step);
    Keys.push_back(std::move(K));
  }
  return It->second;
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
  if (M < Wild.size() && Wild[M] != kNoWild)
    return Wild[M];
  const MemKey &K = Keys[M];
  bool Const = false;
  for (uint32_t S : K.Path)
    Const |= isElement(S) && S != kElement;
  MemId Out = M;
  if (Const) {
    MemKey W = K; // a copy: intern may grow Keys
    for (uint32_t &S : W.Path)
      if (isElement(S))
        S = kElement;
    Out = intern(W);
  }
  if (Wild.size() < Keys.size())
    Wild.resize(Keys.size(), kNoWild);
  Wild[M] = Out;
  return Out;
}

llvm::StringRef MemTable::lastName(MemId M) const {
  const MemKey &K = Keys[M];
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
