//===- TreeAlloc.cpp - tree-sitter's memory, in large chunks --------------===//
#include "TreeAlloc.h"
#include "common/Sanitizers.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <tree_sitter/api.h>

namespace {

constexpr size_t Align = 8; ///< tree-sitter stores nothing wider than 8.
constexpr size_t MaxSmall = 512;                ///< Larger: plain malloc.
constexpr size_t NumClasses = MaxSmall / Align; ///< Class c: (c+1)*16 bytes.
constexpr size_t ChunkBytes = size_t(32) << 20;
constexpr uint32_t LargeTag = ~uint32_t(0);
constexpr uint32_t ArenaTag = ~uint32_t(0) - 1; ///< Freed with its arena.
constexpr size_t ArenaChunkBytes = size_t(8) << 20;

/// A chunk of a thread's arena: this header, then its blocks.
struct ArenaChunk {
  ArenaChunk *Next;
  char *End;
};

/// 8 bytes before every block: its size class, or LargeTag; and its size.
struct Header {
  uint32_t Class;
  uint32_t Size;
};
static_assert(sizeof(Header) == Align, "blocks stay aligned");

struct FreeBlock {
  FreeBlock *Next;
};

/// Free lists and the bump range of dead threads, for the next threads.
struct Depot {
  std::mutex Mu;
  FreeBlock *Lists[NumClasses] = {};
  FreeBlock *Tails[NumClasses] = {}; ///< Valid while the list is not empty.
  char *Cur = nullptr, *End = nullptr;
  ArenaChunk *ArenaChunks = nullptr; ///< Of exited threads' arenas.
};
Depot &depot() {
  static Depot *D = new Depot(); // never destroyed: threads exit late
  return *D;
}

/// A thread's lists. Trivially destructible, so that it can be used at any
/// point of the thread's exit; a Donor hands its contents to the depot.
struct Cache {
  FreeBlock *Lists[NumClasses];
  FreeBlock *Tails[NumClasses]; ///< Valid while the list is not empty.
  char *Cur, *End;
  bool Adopted, Dead;
  /// The arena (TreeArena): its chunks, the one being filled, its range.
  ArenaChunk *Arena, *ArenaAt;
  char *ArenaCur, *ArenaEnd;
  bool InArena;

  void adopt();
  void *arenaAlloc(size_t Bytes);
  bool arenaNext(size_t Bytes);
  void donate();
  bool refill();
  void *alloc(size_t Class);
  void release(Header *H);
};

thread_local Cache TheCache; // zero-initialised

struct Donor {
  ~Donor() { TheCache.donate(); }
};
thread_local Donor TheDonor;

void Cache::adopt() {
  Adopted = true;
  (void)&TheDonor; // constructed now: it donates at the thread's exit
  Depot &D = depot();
  std::lock_guard<std::mutex> Lock(D.Mu);
  for (size_t C = 0; C < NumClasses; ++C) {
    Lists[C] = D.Lists[C];
    Tails[C] = D.Tails[C];
    D.Lists[C] = nullptr;
  }
  Cur = D.Cur;
  End = D.End;
  D.Cur = D.End = nullptr;
}

void Cache::donate() {
  Dead = true;
  Depot &D = depot();
  std::lock_guard<std::mutex> Lock(D.Mu);
  for (size_t C = 0; C < NumClasses; ++C) {
    if (!Lists[C])
      continue;
    Tails[C]->Next = D.Lists[C];
    if (!D.Lists[C])
      D.Tails[C] = Tails[C];
    D.Lists[C] = Lists[C];
  }
  for (size_t C = 0; C < NumClasses; ++C)
    Lists[C] = nullptr;
  if (End - Cur > D.End - D.Cur) {
    D.Cur = Cur;
    D.End = End;
  }
  Cur = End = nullptr;
  while (ArenaChunk *A = Arena) {
    Arena = A->Next;
    A->Next = D.ArenaChunks;
    D.ArenaChunks = A;
  }
  ArenaAt = nullptr;
  ArenaCur = ArenaEnd = nullptr;
}

/// Moves the arena to a chunk with room for Bytes: the next one it has, a
/// dead thread's, or a new one (larger when Bytes needs it).
bool Cache::arenaNext(size_t Bytes) {
  ArenaChunk *Next = ArenaAt ? ArenaAt->Next : Arena;
  while (Next && size_t(Next->End - reinterpret_cast<char *>(Next + 1)) < Bytes)
    Next = Next->Next; // skipped for now: used again from the next parse on
  if (!Next) {
    {
      Depot &D = depot();
      std::lock_guard<std::mutex> Lock(D.Mu);
      for (ArenaChunk **P = &D.ArenaChunks; *P; P = &(*P)->Next)
        if (size_t((*P)->End - reinterpret_cast<char *>(*P + 1)) >= Bytes) {
          Next = *P;
          *P = Next->Next;
          break;
        }
    }
    if (!Next) {
      size_t Size = std::max(ArenaChunkBytes, Bytes + sizeof(ArenaChunk));
      void *M = mmap(nullptr, Size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (M == MAP_FAILED)
        return false;
      Next = static_cast<ArenaChunk *>(M);
      Next->End = static_cast<char *>(M) + Size;
    }
    // Appended after the one being filled (or first).
    ArenaChunk **Tail = ArenaAt ? &ArenaAt->Next : &Arena;
    Next->Next = *Tail;
    *Tail = Next;
  }
  ArenaAt = Next;
  ArenaCur = reinterpret_cast<char *>(Next + 1);
  ArenaEnd = Next->End;
  return true;
}

void *Cache::arenaAlloc(size_t N) {
  size_t Bytes = sizeof(Header) + ((N + Align - 1) & ~(Align - 1));
  if (size_t(ArenaEnd - ArenaCur) < Bytes && !arenaNext(Bytes))
    return nullptr;
  Header *H = reinterpret_cast<Header *>(ArenaCur);
  ArenaCur += Bytes;
  H->Class = ArenaTag;
  H->Size = uint32_t(Bytes - sizeof(Header));
  return H + 1;
}

bool Cache::refill() {
  void *M = mmap(nullptr, ChunkBytes + (2u << 20), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (M == MAP_FAILED)
    return false;
  // Huge-page aligned, so that the kernel can back it with 2 MiB pages.
  uintptr_t A = (reinterpret_cast<uintptr_t>(M) + (2u << 20) - 1) &
                ~uintptr_t((2u << 20) - 1);
  madvise(reinterpret_cast<void *>(A), ChunkBytes, MADV_HUGEPAGE);
  Cur = reinterpret_cast<char *>(A);
  End = Cur + ChunkBytes;
  return true;
}

void *Cache::alloc(size_t Class) {
  if (Dead) {
    // The thread is exiting: take from, and give back to, the depot.
    Depot &D = depot();
    std::lock_guard<std::mutex> Lock(D.Mu);
    if (FreeBlock *B = D.Lists[Class]) {
      D.Lists[Class] = B->Next;
      return B;
    }
    Header *H = static_cast<Header *>(
        std::malloc(sizeof(Header) + (Class + 1) * Align));
    if (!H)
      return nullptr;
    H->Class = LargeTag;
    H->Size = (Class + 1) * Align;
    return H + 1;
  }
  if (!Adopted)
    adopt();
  if (FreeBlock *B = Lists[Class]) {
    Lists[Class] = B->Next;
    return B;
  }
  size_t Bytes = sizeof(Header) + (Class + 1) * Align;
  if (size_t(End - Cur) < Bytes && !refill())
    return nullptr;
  Header *H = reinterpret_cast<Header *>(Cur);
  Cur += Bytes;
  H->Class = Class;
  H->Size = (Class + 1) * Align;
  return H + 1;
}

void Cache::release(Header *H) {
  FreeBlock *B = reinterpret_cast<FreeBlock *>(H + 1);
  if (Dead) {
    Depot &D = depot();
    std::lock_guard<std::mutex> Lock(D.Mu);
    if (!D.Lists[H->Class])
      D.Tails[H->Class] = B;
    B->Next = D.Lists[H->Class];
    D.Lists[H->Class] = B;
    return;
  }
  if (!Lists[H->Class])
    Tails[H->Class] = B;
  B->Next = Lists[H->Class];
  Lists[H->Class] = B;
}

void *treeMalloc(size_t N) {
  if (N == 0)
    N = 1;
  if (N > UINT32_MAX / 2)
    return nullptr;
  if (TheCache.InArena)
    return TheCache.arenaAlloc(N);
  if (N > MaxSmall) {
    Header *H = static_cast<Header *>(std::malloc(sizeof(Header) + N));
    if (!H)
      return nullptr;
    H->Class = LargeTag;
    H->Size = N;
    return H + 1;
  }
  return TheCache.alloc((N - 1) / Align);
}

void treeFree(void *P) {
  if (!P)
    return;
  Header *H = static_cast<Header *>(P) - 1;
  if (H->Class == LargeTag)
    std::free(H);
  else if (H->Class != ArenaTag) // an arena's block goes with it
    TheCache.release(H);
}

// tree-sitter's calloc and realloc: installed with the others, except under
// ASan (below), where nothing calls them.
[[maybe_unused]] void *treeCalloc(size_t N, size_t Size) {
  if (Size && N > SIZE_MAX / Size)
    return nullptr;
  void *P = treeMalloc(N * Size);
  if (P)
    std::memset(P, 0, N * Size);
  return P;
}

[[maybe_unused]] void *treeRealloc(void *P, size_t N) {
  if (!P)
    return treeMalloc(N);
  Header *H = static_cast<Header *>(P) - 1;
  if (N > UINT32_MAX / 2)
    return nullptr;
  if (H->Class == ArenaTag && N <= H->Size)
    return P;
  if (H->Class == LargeTag && N > MaxSmall) {
    Header *R = static_cast<Header *>(std::realloc(H, sizeof(Header) + N));
    if (!R)
      return nullptr;
    R->Size = N;
    return R + 1;
  }
  if (H->Class != LargeTag && N <= H->Size && N > H->Size / 2)
    return P;
  void *Q = treeMalloc(N);
  if (!Q)
    return nullptr;
  std::memcpy(Q, P, N < H->Size ? N : H->Size);
  treeFree(P);
  return Q;
}

} // namespace

// Under AddressSanitizer tree-sitter keeps malloc: ASan then checks its
// memory (overflows, use after free, leaks), which it cannot see inside the
// chunks.

static std::atomic<bool> Installed{false};

void tether::python::installTreeAllocator() {
#if !TETHER_ASAN
  static std::once_flag Once;
  std::call_once(Once, [] {
    ts_set_allocator(treeMalloc, treeCalloc, treeRealloc, treeFree);
    Installed = true;
  });
#endif
}

tether::python::TreeArena::TreeArena() : Discards(Installed && !TheCache.Dead) {
  if (!Discards)
    return;
  if (!TheCache.Adopted)
    TheCache.adopt(); // also arms the donation of the arena at thread exit
  TheCache.InArena = true;
  // From the first chunk again: what the last parse left is garbage.
  TheCache.ArenaAt = nullptr;
  TheCache.ArenaCur = TheCache.ArenaEnd = nullptr;
}

tether::python::TreeArena::~TreeArena() {
  if (Discards)
    TheCache.InArena = false;
}
