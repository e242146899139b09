//===- Engine.cpp - Summaries bottom-up, then facts, then the checks ------===//
#include "engine/Engine.h"
#include "engine/Interpreter.h"
#include "engine/SummaryJoin.h"
#include "engine/checks/Checks.h"

#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"

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
  // With Dirty: the summaries that came out different from the last run's.
  std::vector<bool> Changed(N, false);
  size_t Interpreted = 0;
  // Post-order of SCCs: callees before their callers.
  for (auto It = llvm::scc_begin(&Nodes[N]); !It.isAtEnd(); ++It) {
    const std::vector<CallNode *> &Scc = *It;
    if (Scc.size() == 1 && Scc[0]->Fn < 0)
      continue; // the root
    bool Recursive = Scc.size() > 1 || It.hasCycle();
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
