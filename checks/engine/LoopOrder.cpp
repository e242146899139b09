//===- LoopOrder.cpp - Loops contiguous in the worklist's order -----------===//
#include "engine/LoopOrder.h"

#include <algorithm>

namespace tether::engine {
namespace {

constexpr uint32_t None = ~0u;

/// Orders the blocks of one component after another, reusing its scratch.
class Decomposer {
public:
  explicit Decomposer(const Function &Fn)
      : Fn(Fn), N(Fn.Blocks.size()), Member(N, None), Index(N, None),
        Low(N, 0), OnStack(N, 0) {}

  std::vector<uint32_t> run() {
    std::vector<uint32_t> Order;
    if (N == 0)
      return Order;
    // A task is a block to place, or a component to decompose first.
    struct Task {
      uint32_t Head;
      bool Component;
      std::vector<uint32_t> Blocks;
    };
    std::vector<Task> Tasks;
    // The whole function: what the entry reaches, no edge dropped.
    Tasks.push_back({0, true, reachable()});
    bool Top = true;
    while (!Tasks.empty()) {
      Task T = std::move(Tasks.back());
      Tasks.pop_back();
      if (!T.Component) {
        Order.push_back(T.Head);
        continue;
      }
      bool Drop = !Top; // the function's entry keeps its in-edges
      Top = false;
      std::vector<std::vector<uint32_t>> Sccs =
          components(T.Blocks, T.Head, Drop);
      // Tarjan finds them sinks first: pushed as found, the source is on top.
      for (std::vector<uint32_t> &C : Sccs) {
        uint32_t Root = C.front();
        // The head, its in-edges dropped, is no loop of its own any more.
        bool Loop = C.size() > 1 || (selfEdge(Root) && !(Drop && Root == T.Head));
        Tasks.push_back({Root, Loop, Loop ? std::move(C) : std::vector<uint32_t>()});
      }
    }
    return Order;
  }

private:
  unsigned numSuccs(uint32_t B) const { return Fn.Blocks[B].Term.numSuccs(); }
  uint32_t succ(uint32_t B, unsigned K) const { return Fn.Blocks[B].Term.Succ[K]; }
  bool selfEdge(uint32_t B) const {
    for (unsigned K = 0; K < numSuccs(B); ++K)
      if (succ(B, K) == B)
        return true;
    return false;
  }

  std::vector<uint32_t> reachable() const {
    std::vector<uint8_t> Seen(N, 0);
    std::vector<uint32_t> Out{0}, Stack{0};
    Seen[0] = 1;
    while (!Stack.empty()) {
      uint32_t B = Stack.back();
      Stack.pop_back();
      for (unsigned K = 0; K < numSuccs(B); ++K) {
        uint32_t S = succ(B, K);
        if (S < N && !Seen[S]) {
          Seen[S] = 1;
          Out.push_back(S);
          Stack.push_back(S);
        }
      }
    }
    return Out;
  }

  /// The strongly connected components of the graph induced by Blocks (all
  /// reachable from Head inside it), without the edges into Head when asked;
  /// each component's first block is the one the walk entered it by.
  /// Tarjan's algorithm with an explicit stack, components in the order it
  /// completes them (reverse topological).
  std::vector<std::vector<uint32_t>>
  components(const std::vector<uint32_t> &Blocks, uint32_t Head,
             bool DropIntoHead) {
    ++Generation;
    for (uint32_t B : Blocks) {
      Member[B] = Generation;
      Index[B] = None;
      OnStack[B] = 0;
    }
    auto Inside = [&](uint32_t S) {
      return S < N && Member[S] == Generation && !(DropIntoHead && S == Head);
    };
    std::vector<std::vector<uint32_t>> Out;
    std::vector<uint32_t> Stack;
    std::vector<std::pair<uint32_t, unsigned>> Walk{{Head, 0}};
    uint32_t Next = 0;
    Index[Head] = Low[Head] = Next++;
    Stack.push_back(Head);
    OnStack[Head] = 1;
    while (!Walk.empty()) {
      auto &[B, K] = Walk.back();
      if (K < numSuccs(B)) {
        uint32_t S = succ(B, K++);
        if (!Inside(S))
          continue;
        if (Index[S] == None) {
          Index[S] = Low[S] = Next++;
          Stack.push_back(S);
          OnStack[S] = 1;
          Walk.push_back({S, 0});
        } else if (OnStack[S]) {
          Low[B] = std::min(Low[B], Index[S]);
        }
        continue;
      }
      uint32_t Done = B;
      Walk.pop_back();
      if (!Walk.empty())
        Low[Walk.back().first] = std::min(Low[Walk.back().first], Low[Done]);
      if (Low[Done] != Index[Done])
        continue;
      // Done roots a component: its blocks are on the stack above it.
      auto From = std::find(Stack.rbegin(), Stack.rend(), Done).base() - 1;
      std::vector<uint32_t> C(From, Stack.end());
      for (uint32_t X : C)
        OnStack[X] = 0;
      Stack.erase(From, Stack.end());
      Out.push_back(std::move(C)); // C.front() is Done, the root
    }
    return Out;
  }

  const Function &Fn;
  size_t N;
  std::vector<uint32_t> Member, Index, Low;
  std::vector<uint8_t> OnStack;
  uint32_t Generation = 0;
};

} // namespace

std::vector<uint32_t> loopOrder(const Function &Fn) {
  return Decomposer(Fn).run();
}

} // namespace tether::engine
