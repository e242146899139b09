//===- Engine.cpp - Summaries bottom-up, then facts, then the checks ------===//
#include "engine/Engine.h"
#include "engine/Interpreter.h"
#include "engine/SummaryJoin.h"
#include "engine/checks/Checks.h"

#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/Support/ThreadPool.h"
#include <atomic>
#include <functional>

namespace tether::engine {
namespace {

/// The call graph as llvm::scc_iterator walks it: one node per function
/// and a root that reaches them all.
struct CallNode {
  FnId Fn = -1;
  std::vector<CallNode *> Callees;
};

} // namespace
} // namespace tether::engine

template <> struct llvm::GraphTraits<tether::engine::CallNode *> {
  using NodeRef = tether::engine::CallNode *;
  using ChildIteratorType = std::vector<NodeRef>::iterator;
  static NodeRef getEntryNode(NodeRef N) { return N; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Callees.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Callees.end(); }
};

namespace tether::engine {

namespace {

/// Interprets one component to its fixpoint (its callees' summaries are
/// final). Returns how many bodies it interpreted.
size_t runComponent(Context &Cx, llvm::ArrayRef<CallNode *> Scc,
                    bool Recursive) {
  size_t Interpreted = 0;
  for (int Round = 0; Round < 16; ++Round) {
    bool Grew = false;
    for (CallNode *Node : Scc) {
      // Callees' summaries are final here (callees come first, and a
      // recursive component repeats until none grows), so the facts of the
      // last round are the facts: one pass of the body serves both.
      Summary S = interpret(Cx, Node->Fn, true);
      ++Interpreted;
      if (!Recursive) {
        Cx.Sums[Node->Fn] = std::move(S);
        continue;
      }
      // Joined, not replaced: each round can only add (widening makes
      // values shrink, and a round that undid the last one's widening
      // would never end). From the third round on, values keep only the
      // places near a root, finitely many, so the rounds end.
      Grew |= joinSummary(Cx.Sums[Node->Fn], std::move(S), Cx.Mem,
                          Round >= 2);
    }
    if (!Recursive || !Grew)
      break;
  }
  return Interpreted;
}

/// The components in post-order (callees first), each with whether it is
/// recursive.
struct Component {
  std::vector<CallNode *> Nodes;
  bool Recursive = false;
};

/// Runs the components on Pool's threads, each as soon as every component
/// it calls is done. A function's summary depends only on its body and its
/// callees' summaries, so the summaries are those of a run in post-order;
/// the ids the shared tables hand out differ from run to run, and nothing
/// reported depends on them.
size_t runInParallel(Context &Cx, const std::vector<Component> &Comps,
                     llvm::ThreadPoolInterface &Pool) {
  size_t NC = Comps.size();
  std::vector<uint32_t> CompOf(Cx.P.Functions.size(), 0);
  for (uint32_t C = 0; C < NC; ++C)
    for (CallNode *Node : Comps[C].Nodes)
      CompOf[Node->Fn] = C;
  // Callers[C]: the components waiting for C; Waiting[C]: how many
  // components C still waits for.
  std::vector<std::vector<uint32_t>> Callers(NC);
  std::unique_ptr<std::atomic<uint32_t>[]> Waiting(
      new std::atomic<uint32_t>[NC]);
  for (uint32_t C = 0; C < NC; ++C) {
    std::vector<uint32_t> Callees;
    for (CallNode *Node : Comps[C].Nodes)
      for (CallNode *Callee : Node->Callees)
        if (uint32_t D = CompOf[Callee->Fn]; D != C)
          Callees.push_back(D);
    llvm::sort(Callees);
    Callees.erase(std::unique(Callees.begin(), Callees.end()), Callees.end());
    for (uint32_t D : Callees)
      Callers[D].push_back(C);
    Waiting[C].store(uint32_t(Callees.size()), std::memory_order_relaxed);
  }
  std::atomic<size_t> Interpreted{0};
  llvm::ThreadPoolTaskGroup Group(Pool);
  // A component's task starts those of its callers it was the last wait
  // of (the release/acquire on Waiting makes its summaries theirs to
  // read), and goes on with the first of them itself: a chain of callers
  // runs on one thread, each reading the summary the last one wrote.
  std::function<void(uint32_t)> Run = [&](uint32_t C) {
    for (;;) {
      Interpreted += runComponent(Cx, Comps[C].Nodes, Comps[C].Recursive);
      int64_t Next = -1;
      for (uint32_t Caller : Callers[C])
        if (Waiting[Caller].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          if (Next < 0)
            Next = Caller;
          else
            Group.async([&Run, Caller] { Run(Caller); });
        }
      if (Next < 0)
        return;
      C = uint32_t(Next);
    }
  };
  // The leaves, all found before the first starts (a started one may
  // bring its callers' count to zero while this loop runs).
  std::vector<uint32_t> Leaves;
  for (uint32_t C = 0; C < NC; ++C)
    if (Waiting[C].load(std::memory_order_relaxed) == 0)
      Leaves.push_back(C);
  Cx.share(true);
  for (uint32_t C : Leaves)
    Group.async([&Run, C] { Run(C); });
  Group.wait();
  Cx.share(false);
  return Interpreted;
}

} // namespace

size_t summarize(Context &Cx, const std::vector<bool> *Dirty) {
  const Program &P = Cx.P;
  size_t N = P.Functions.size();
  std::vector<CallNode> Nodes(N + 1);
  for (size_t F = 0; F < N; ++F) {
    Nodes[F].Fn = FnId(F);
    for (const Block &B : P.Functions[F].Blocks)
      for (const Inst &I : B.Insts)
        for (const CallTarget &T : I.Targets)
          if (T.Fn >= 0 && size_t(T.Fn) < N &&
              std::find(Nodes[F].Callees.begin(), Nodes[F].Callees.end(),
                        &Nodes[T.Fn]) == Nodes[F].Callees.end())
            Nodes[F].Callees.push_back(&Nodes[T.Fn]);
    Nodes[N].Callees.push_back(&Nodes[F]);
  }
  // Post-order of SCCs: callees before their callers.
  std::vector<Component> Comps;
  for (auto It = llvm::scc_begin(&Nodes[N]); !It.isAtEnd(); ++It) {
    if (It->size() == 1 && (*It)[0]->Fn < 0)
      continue; // the root
    Comps.push_back({*It, It->size() > 1 || It.hasCycle()});
  }
  size_t Interpreted = 0;
  if (!Dirty && Cx.Opts.Pool && Cx.Opts.Pool->getMaxConcurrency() > 1 &&
      Comps.size() > 1) {
    Interpreted = runInParallel(Cx, Comps, *Cx.Opts.Pool);
    Cx.collectContents();
    return Interpreted;
  }
  // With Dirty: the summaries that came out different from the last run's.
  std::vector<bool> Changed(N, false);
  for (const Component &Comp : Comps) {
    const std::vector<CallNode *> &Scc = Comp.Nodes;
    std::vector<Summary> Before;
    if (Dirty) {
      // A component is interpreted again when a body in it changed or a
      // summary it reads did; else what it had stands.
      bool Run = false;
      for (CallNode *Node : Scc) {
        Run |= (*Dirty)[Node->Fn];
        for (CallNode *Callee : Node->Callees)
          Run |= Changed[Callee->Fn];
      }
      if (!Run)
        continue;
      for (CallNode *Node : Scc) {
        Before.push_back(std::move(Cx.Sums[Node->Fn]));
        Cx.Sums[Node->Fn] = Summary(); // as a cold run starts
        Cx.resetRegions(Node->Fn);
      }
    }
    Interpreted += runComponent(Cx, Scc, Comp.Recursive);
    for (size_t I = 0; Dirty && I < Scc.size(); ++I)
      Changed[Scc[I]->Fn] = Cx.Sums[Scc[I]->Fn] != Before[I];
  }
  Cx.collectContents();
  return Interpreted;
}

std::vector<Finding> analyze(const Program &P, Options O) {
  Context Cx(P, std::move(O));
  summarize(Cx);
  std::vector<Finding> Out;
  runChecks(Cx, Out);
  return Out;
}

std::vector<Finding> Session::analyze(const Program &P, Options O,
                                      const std::vector<bool> &Unchanged) {
  // The tables only grow (a changed function's sites are made anew): once
  // half of them are stale, a cold run starts them again.
  bool Warm = Cx && &Cx->P == &P && Cx->Sums.size() == P.Functions.size() &&
              llvm::is_contained(Unchanged, true) &&
              Cx->placedInsts() < 2 * ColdInsts;
  Last = Stats();
  Last.Functions = P.Functions.size();
  if (!Warm) {
    Cx = std::make_unique<Context>(P, std::move(O));
    ColdInsts = Cx->placedInsts();
    Last.Interpreted = summarize(*Cx);
  } else {
    Cx->Opts = std::move(O);
    std::vector<bool> Dirty = Cx->update(Unchanged);
    Last.Interpreted = summarize(*Cx, &Dirty);
    Last.Warm = true;
  }
  std::vector<Finding> Out;
  runChecks(*Cx, Out);
  return Out;
}

} // namespace tether::engine
