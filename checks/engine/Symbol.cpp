//===- Symbol.cpp - The process's one copy of each text of the IR -------===//

#include "engine/Symbol.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/xxhash.h"
#include <mutex>

using namespace tether::engine;

namespace {
/// Shards, so that the two lowering threads seldom wait for each other.
/// A StringMap's entries stay where they are when it grows.
struct Pool {
  static constexpr unsigned NumShards = 16;
  struct Shard {
    std::mutex Lock;
    llvm::StringMap<std::string> Texts;
  } Shards[NumShards];
};

Pool &pool() {
  // Never destroyed: symbols in static objects may be read at exit.
  static Pool *P = new Pool;
  return *P;
}
} // namespace

const std::string *Symbol::intern(llvm::StringRef Text) {
  Pool::Shard &S = pool().Shards[llvm::xxh3_64bits(Text) % Pool::NumShards];
  std::lock_guard<std::mutex> Hold(S.Lock);
  auto [It, Added] = S.Texts.try_emplace(Text);
  if (Added)
    It->second = Text.str();
  return &It->second;
}

const std::string &Symbol::emptyText() {
  static const std::string *Empty = new std::string;
  return *Empty;
}
