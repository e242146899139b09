//===- Schedule.cpp - Walk every function, callees first, in parallel -----===//
#include "Schedule.h"
#include "Walker.h"

#include "llvm/Support/ThreadPool.h"
#include <algorithm>
#include <atomic>
#include <deque>
#include <unordered_map>
#include <unordered_set>

using namespace tether;
using namespace tether::python;

namespace {

/// Run Body(I) for I in [0, N) on the pool, in chunks, and wait.
template <typename Fn>
void parallelFor(llvm::ThreadPoolInterface &Pool, size_t N, Fn &&Body) {
  if (N == 0)
    return;
  size_t Threads = std::max(1u, Pool.getMaxConcurrency());
  if (Threads == 1 || N == 1) {
    for (size_t I = 0; I < N; ++I)
      Body(I);
    return;
  }
  // Small chunks taken in turn: the cost of one item varies a lot.
  size_t Chunk = std::max<size_t>(1, N / (Threads * 16));
  std::atomic<size_t> Next{0};
  for (size_t T = 0; T < Threads; ++T)
    Pool.async([&] {
      for (size_t B; (B = Next.fetch_add(Chunk)) < N;)
        for (size_t I = B, E = std::min(N, B + Chunk); I < E; ++I)
          Body(I);
    });
  Pool.wait();
}

struct Components {
  /// Callees' components first; members in Tarjan's pop order.
  std::vector<std::vector<int>> Members;
  std::vector<int> Of;                   ///< Function -> component.
  std::vector<bool> Recursive;
};

/// Tarjan's algorithm, iterative (call chains can be deep).
Components stronglyConnected(const Package &P) {
  int N = (int)P.Functions.size();
  Components C;
  C.Of.assign(N, -1);
  std::vector<int> Index(N, -1), Low(N, 0), Stack;
  std::vector<bool> OnStack(N, false);
  int Counter = 0;
  struct Frame {
    int Fn;
    size_t Edge;
  };
  std::vector<Frame> Calls;
  for (int Root = 0; Root < N; ++Root) {
    if (Index[Root] >= 0)
      continue;
    Calls.push_back({Root, 0});
    Index[Root] = Low[Root] = Counter++;
    Stack.push_back(Root);
    OnStack[Root] = true;
    while (!Calls.empty()) {
      Frame &Fr = Calls.back();
      const std::vector<int> &Out = P.Functions[Fr.Fn].Callees;
      if (Fr.Edge < Out.size()) {
        int W = Out[Fr.Edge++];
        if (Index[W] < 0) {
          Index[W] = Low[W] = Counter++;
          Stack.push_back(W);
          OnStack[W] = true;
          Calls.push_back({W, 0});
        } else if (OnStack[W]) {
          Low[Fr.Fn] = std::min(Low[Fr.Fn], Index[W]);
        }
        continue;
      }
      int V = Fr.Fn;
      Calls.pop_back();
      if (!Calls.empty())
        Low[Calls.back().Fn] = std::min(Low[Calls.back().Fn], Low[V]);
      if (Low[V] != Index[V])
        continue;
      std::vector<int> Comp;
      int W;
      do {
        W = Stack.back();
        Stack.pop_back();
        OnStack[W] = false;
        C.Of[W] = (int)C.Members.size();
        Comp.push_back(W);
      } while (W != V);
      // Popped in reverse discovery order: callees before their callers
      // along the depth-first tree, the order a fixpoint converges in.
      const std::vector<int> &VOut = P.Functions[V].Callees;
      C.Recursive.push_back(Comp.size() > 1 ||
                            std::binary_search(VOut.begin(), VOut.end(), V));
      C.Members.push_back(std::move(Comp));
    }
  }
  return C;
}

void walkOnce(Package &P, int Fn) {
  Summary S;
  Facts F;
  if (!P.Functions[Fn].TooDeep)
    walkFunction(P, Fn, S, F);
  P.Functions[Fn].Sum = std::move(S);
  P.Functions[Fn].F = std::move(F);
}

/// A recursive component: walk its members (callees first along the
/// depth-first tree), folding each walk's summary into the published one;
/// when a summary grows, its callers in the component are walked again.
/// Stops when no summary grows (every member's last walk read the final
/// summaries, so its facts stand) or after MaxFixpointRounds walks per
/// member on average.
void walkToFixpoint(Package &P, const std::vector<int> &Members, int K,
                    const std::vector<int> &Of) {
  std::unordered_map<int, std::vector<int>> Callers;
  for (int Fn : Members)
    for (int Callee : P.Functions[Fn].Callees)
      if (Of[Callee] == K)
        Callers[Callee].push_back(Fn);
  std::deque<int> Queue(Members.begin(), Members.end());
  std::unordered_set<int> Queued(Members.begin(), Members.end());
  size_t Budget = MaxFixpointRounds * Members.size();
  while (!Queue.empty() && Budget-- > 0) {
    int Fn = Queue.front();
    Queue.pop_front();
    Queued.erase(Fn);
    Summary S;
    Facts F;
    if (!P.Functions[Fn].TooDeep)
      walkFunction(P, Fn, S, F);
    P.Functions[Fn].F = std::move(F);
    if (!P.Functions[Fn].Sum.join(S))
      continue;
    for (int Caller : Callers[Fn])
      if (Queued.insert(Caller).second)
        Queue.push_back(Caller);
  }
}

/// One pass over the graph. Returns whether a walk met a call the
/// prediction missed.
bool walkAll(Package &P, llvm::ThreadPoolInterface &Pool) {
  Components C = stronglyConnected(P);
  size_t NC = C.Members.size();
  // Components come callees first, so each one's level is known from the
  // levels already computed.
  std::vector<int> Level(NC, 0);
  int MaxLevel = 0;
  for (size_t K = 0; K < NC; ++K) {
    for (int Fn : C.Members[K])
      for (int Callee : P.Functions[Fn].Callees)
        if (C.Of[Callee] != (int)K)
          Level[K] = std::max(Level[K], Level[C.Of[Callee]] + 1);
    MaxLevel = std::max(MaxLevel, Level[K]);
  }
  std::vector<std::vector<int>> ByLevel(MaxLevel + 1);
  for (size_t K = 0; K < NC; ++K)
    ByLevel[Level[K]].push_back((int)K);
  for (const std::vector<int> &Comps : ByLevel)
    parallelFor(Pool, Comps.size(), [&](size_t I) {
      int K = Comps[I];
      if (C.Recursive[K])
        walkToFixpoint(P, C.Members[K], K, C.Of);
      else
        walkOnce(P, C.Members[K][0]);
    });
  for (const Function &F : P.Functions)
    if (F.F.Missed)
      return true;
  return false;
}

} // namespace

void tether::python::analyzeFunctions(Package &P,
                                      llvm::ThreadPoolInterface &Pool) {
  P.resolveBases();
  parallelFor(Pool, P.Functions.size(), [&](size_t Fn) {
    // A function too deeply nested is not walked: it calls nothing.
    if (!P.Functions[Fn].TooDeep)
      P.Functions[Fn].Callees = predictCallees(P, (int)Fn);
  });
  if (!walkAll(P, Pool))
    return;
  // A call the prediction did not foresee (a resolution the predictor does
  // not mirror): its summary was not read. The calls a walk resolves do not
  // depend on summaries, so with them added as edges a second pass is
  // complete.
  for (Function &F : P.Functions) {
    for (const CallFact &CF : F.F.Calls)
      F.Callees.push_back(CF.Callee);
    std::sort(F.Callees.begin(), F.Callees.end());
    F.Callees.erase(std::unique(F.Callees.begin(), F.Callees.end()),
                    F.Callees.end());
    F.Sum = Summary();
    F.F = Facts();
  }
  walkAll(P, Pool);
}
