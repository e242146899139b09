//===- SyntaxTreeTest.cpp - The flattened tree and the parse arena --------===//
#include "Syntax.h"
#include "SyntaxTree.h"
#include "TreeAlloc.h"

#include <gtest/gtest.h>
#include <string>

using namespace tether::python;

namespace {

const char *Sample = R"py(
import torch
from .utils import weak_ref_tensors as w

@decorator(1)
class Runner(Base, metaclass=Meta):
    x: int = 3

    def run(self, q, *args, k=None, **kw):
        if q is None or not k:
            return [a for a in args if a]  # comment
        elif (y := q.shape[0]) > 2:
            self.cache[y] = w(torch.empty((y, 4096), device="npu"))
        else:
            raise ValueError(f"{q!r:>10}")
        with torch.npu.graph(self.g):
            return lambda t: t.detach()
)py";

/// What tree-sitter's node API says of N and its subtree, checked against
/// the flattened node F.
void expectSame(TSNode N, SyntaxNode F) {
  ASSERT_FALSE(isNull(F));
  EXPECT_EQ(ts_node_symbol(N), symbolOf(F));
  EXPECT_EQ(ts_node_start_byte(N), startByte(F));
  EXPECT_EQ(ts_node_end_byte(N), endByte(F));
  EXPECT_EQ(ts_node_start_point(N).row, startPoint(F).row);
  EXPECT_EQ(ts_node_start_point(N).column, startPoint(F).column);
  EXPECT_EQ(ts_node_end_point(N).row, endPoint(F).row);
  EXPECT_EQ(ts_node_end_point(N).column, endPoint(F).column);
  EXPECT_EQ(ts_node_is_named(N), isNamed(F));
  EXPECT_EQ(ts_node_is_missing(N), isMissing(F));
  EXPECT_EQ(ts_node_is_extra(N), isExtra(F));
  EXPECT_EQ(ts_node_has_error(N), hasError(F));
  ASSERT_EQ(ts_node_child_count(N), childCount(F));
  uint32_t I = 0;
  forEachChild(F, false, [&](SyntaxNode C, TSFieldId Field) {
    TSNode Want = ts_node_child(N, I);
    (void)Field; // checked below, through childByField
    EXPECT_EQ(parentNode(C), F);
    EXPECT_EQ(childAt(F, I), C);
    expectSame(Want, C);
    ++I;
  });
  EXPECT_EQ(I, childCount(F));
  // The first child of each field, as tree-sitter finds it
  // (ts_node_field_name_for_child is no oracle: in 0.20 it calls an
  // elif_clause the if's consequence).
  const TSLanguage *L = Grammar::get().Lang;
  for (TSFieldId Fd = 1; Fd <= ts_language_field_count(L); ++Fd) {
    TSNode Want = ts_node_child_by_field_id(N, Fd);
    SyntaxNode Got = childByField(F, Fd);
    ASSERT_EQ(ts_node_is_null(Want), isNull(Got))
        << ts_language_field_name_for_id(L, Fd) << " of " << ts_node_type(N);
    if (!isNull(Got)) {
      EXPECT_EQ(ts_node_start_byte(Want), startByte(Got));
      EXPECT_EQ(ts_node_end_byte(Want), endByte(Got));
      EXPECT_EQ(ts_node_symbol(Want), symbolOf(Got));
    }
  }
}

TSParser *makeParser() {
  TSParser *P = ts_parser_new();
  ts_parser_set_language(P, Grammar::get().Lang);
  return P;
}

void expectEqualTrees(const SyntaxTree &A, const SyntaxTree &B) {
  ASSERT_EQ(A.size(), B.size());
  for (uint32_t I = 0; I < A.size(); ++I) {
    const SyntaxTree::Entry &X = A.at(I), &Y = B.at(I);
    ASSERT_EQ(X.StartByte, Y.StartByte) << I;
    ASSERT_EQ(X.EndByte, Y.EndByte) << I;
    ASSERT_EQ(X.Symbol, Y.Symbol) << I;
    ASSERT_EQ(X.Field, Y.Field) << I;
    ASSERT_EQ(X.Parent, Y.Parent) << I;
    ASSERT_EQ(X.NextSibling, Y.NextSibling) << I;
    ASSERT_EQ(X.ChildCount, Y.ChildCount) << I;
    ASSERT_EQ(X.Flags, Y.Flags) << I;
  }
}

TEST(SyntaxTree, ReadsWhatTreeSittersNodesSay) {
  // Rows and columns are computed from byte offsets: Windows line breaks,
  // tabs, several bytes per character, a string spanning lines, a line
  // continuation and no final line break must count as tree-sitter counts.
  for (const std::string &Text :
       {std::string(Sample), std::string("x = a:b.c\n"), std::string(""),
        std::string("def f(:\n  pass\n"),
        std::string("if a:\r\n\tb = 'é€'  # ü\r\n\r\nc = \"\"\"x\r\ny\"\"\" + \\\r\n  d"),
        std::string("\n\n\nx = f(\n  1,\n)\n\n")}) {
    TSParser *P = makeParser();
    TSTree *T = ts_parser_parse_string(P, nullptr, Text.data(),
                                       (uint32_t)Text.size());
    SyntaxTree Flat(T, Text);
    expectSame(ts_tree_root_node(T), Flat.root());
    EXPECT_TRUE(isNull(parentNode(Flat.root())));
    ts_tree_delete(T);
    ts_parser_delete(P);
  }
}

TEST(SyntaxTree, PreorderVisitsNamedNodesInDocumentOrderAndSkipsSubtrees) {
  TSParser *P = makeParser();
  std::unique_ptr<SyntaxTree> Flat = parseSyntax(P, Sample);
  ts_parser_delete(P);
  const Grammar &G = Grammar::get();
  std::vector<uint32_t> All, NoCalls;
  preorder(Flat->root(), [&](SyntaxNode N) {
    All.push_back(N.Index);
    return true;
  });
  unsigned Calls = 0, InsideCalls = 0;
  preorder(Flat->root(), [&](SyntaxNode N) {
    NoCalls.push_back(N.Index);
    if (symbolOf(N) == G.Call)
      ++Calls;
    for (SyntaxNode A = parentNode(N); !isNull(A); A = parentNode(A))
      InsideCalls += symbolOf(A) == G.Call;
    return symbolOf(N) != G.Call;
  });
  // Every named node once, in document order.
  uint32_t Named = 0;
  for (uint32_t I = 0; I < Flat->size(); ++I)
    Named += (Flat->at(I).Flags & SyntaxTree::Named) != 0;
  EXPECT_EQ(All.size(), Named);
  EXPECT_TRUE(std::is_sorted(All.begin(), All.end()));
  // Not descending into calls: the calls are seen, nothing inside them.
  EXPECT_GT(Calls, 3u);
  EXPECT_EQ(InsideCalls, 0u);
  EXPECT_LT(NoCalls.size(), All.size());
}

TEST(TreeArena, ParsesInAnArenaAsOutsideOne) {
  installTreeAllocator();
  // A module large enough that one parse fills several of the arena's
  // chunks, then small ones that reuse them, twice over.
  std::string Big;
  for (int I = 0; I < 12000; ++I)
    Big += "def f" + std::to_string(I) + "(a, b=[1, 2]):\n    return a.b[c](d, *e) or {k: v for k, v in b}\n";
  for (int Round = 0; Round < 2; ++Round)
    for (const std::string &Text :
         {Big, std::string(Sample), std::string("x = a:b.c\n")}) {
      TSParser *Outside = makeParser();
      std::unique_ptr<SyntaxTree> Want = parseSyntax(Outside, Text);
      ts_parser_delete(Outside);
      std::unique_ptr<SyntaxTree> Got;
      {
        TreeArena Arena;
        TSParser *P = makeParser();
        TSTree *T = ts_parser_parse_string(P, nullptr, Text.data(),
                                           (uint32_t)Text.size());
        ASSERT_NE(T, nullptr);
        Got = std::make_unique<SyntaxTree>(T, Text);
        if (!Arena.discards()) { // ASan: tree-sitter keeps malloc
          ts_tree_delete(T);
          ts_parser_delete(P);
        }
      }
      expectEqualTrees(*Want, *Got);
    }
}

} // namespace
