//===- Engine.cpp - Summaries bottom-up, then facts, then the checks ------===//
#include "engine/Engine.h"
#include "engine/Interpreter.h"
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

void summarize(Context &Cx) {
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
  for (auto It = llvm::scc_begin(&Nodes[N]); !It.isAtEnd(); ++It) {
    const std::vector<CallNode *> &Scc = *It;
    bool Recursive = Scc.size() > 1 || It.hasCycle();
    for (int Round = 0; Round < 16; ++Round) {
      bool Changed = false;
      for (CallNode *Node : Scc) {
        if (Node->Fn < 0)
          continue;
        // Callees' summaries are final here (callees come first, and a
        // recursive component repeats until none grows), so the facts of the
        // last round are the facts: one pass of the body serves both.
        Summary S = interpret(Cx, Node->Fn, true);
        Changed |= S.size() != Cx.Sums[Node->Fn].size();
        Cx.Sums[Node->Fn] = std::move(S);
      }
      if (!Recursive || !Changed)
        break;
    }
  }
}

std::vector<Finding> analyze(const Program &P, Options O) {
  Context Cx(P, std::move(O));
  summarize(Cx);
  std::vector<Finding> Out;
  runChecks(Cx, Out);
  return Out;
}

} // namespace tether::engine
