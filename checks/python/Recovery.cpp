//===- Recovery.cpp - Valid Python that tree-sitter-python cannot read ----===//
#include "Recovery.h"
#include "Syntax.h"

#include <cstring>
#include <vector>

using namespace tether::python;

namespace {

constexpr TSSymbol ErrorSymbol = (TSSymbol)-1; // ts_builtin_sym_error
/// Rewrite rounds: a gap can hide inside the error another one caused.
constexpr int MaxRounds = 4;

bool isToken(TSNode N, const char *Spelling) {
  return !ts_node_is_null(N) && !ts_node_is_named(N) &&
         std::strcmp(ts_node_type(N), Spelling) == 0;
}

/// Whether only blanks precede N on its line.
bool startsItsLine(TSNode N, std::string_view Text) {
  for (uint32_t I = ts_node_start_byte(N); I > 0; --I) {
    char C = Text[I - 1];
    if (C == '\n' || C == '\r')
      return true;
    if (C != ' ' && C != '\t' && C != '\f')
      return false;
  }
  return true;
}

class Rewrite {
public:
  explicit Rewrite(std::string_view Text) : Text(Text) {}

  /// Spaces over [B, E), line breaks kept.
  void blank(uint32_t B, uint32_t E) {
    if (E > Text.size() || B >= E)
      return;
    if (Out.empty())
      Out.assign(Text);
    for (uint32_t I = B; I < E; ++I)
      if (Out[I] != '\n' && Out[I] != '\r')
        Out[I] = ' ';
  }
  void blank(TSNode N) { blank(ts_node_start_byte(N), ts_node_end_byte(N)); }

  /// Leaves in document order, comments apart. `, *(` or `, *[` with the
  /// `*` in an error: a starred element whose operand is bracketed. Without
  /// the `*` the element is the bracketed operand itself, a tuple element
  /// the grammar reads.
  void token(TSNode Leaf, bool ParentHasError) {
    if (isToken(Leaf, "(") || isToken(Leaf, "["))
      if (StarInError && isToken(Prev, "*") && isToken(BeforePrev, ","))
        blank(Prev);
    BeforePrev = Prev;
    Prev = Leaf;
    StarInError = ParentHasError;
  }

  /// `{x:=^10}`: an interpolation whose expression is an unparenthesized
  /// `:=` is CPython's `x` with the format spec `=^10` (an assignment
  /// expression in an f-string must be parenthesized). A blank for the `=`
  /// leaves the spec ` ^10`, which the grammar reads.
  void formatSpecs(TSNode Interpolation) {
    const Grammar &G = Grammar::get();
    TSNode E = ts_node_child_by_field_id(Interpolation, G.FExpression);
    if (ts_node_is_null(E) || ts_node_symbol(E) != G.NamedExpr)
      return;
    // A few children: ts_node_child's rescans cost nothing here.
    for (uint32_t I = 0, N = ts_node_child_count(E); I < N; ++I) {
      TSNode C = ts_node_child(E, I);
      if (isToken(C, ":="))
        blank(ts_node_start_byte(C) + 1, ts_node_end_byte(C));
    }
  }

  std::string take() { return std::move(Out); }

private:
  std::string_view Text;
  std::string Out; // empty until the first blank
  TSNode BeforePrev{}, Prev{};
  bool StarInError = false;
};

} // namespace

std::string tether::python::closeGrammarGaps(TSNode Root,
                                             std::string_view Text) {
  const Grammar &G = Grammar::get();
  Rewrite R(Text);
  // Every node, anonymous tokens included, with the error state of each
  // node's parent (ts_node_parent would rescan from the root).
  TSTreeCursor C = ts_tree_cursor_new(Root);
  std::vector<bool> InError{false};
  while (true) {
    TSNode N = ts_tree_cursor_current_node(&C);
    TSSymbol K = ts_node_symbol(N);
    bool ParentHasError = InError.back();
    if (K == G.Comment) {
      // A comment is no token of CPython's grammar: blanking one never
      // changes what a file means. Only whole-line comments take part in
      // the scanner's indentation.
      if (startsItsLine(N, Text))
        R.blank(N);
    } else if (ts_node_child_count(N) == 0) {
      R.token(N, ParentHasError);
    } else if (K == G.Interpolation) {
      R.formatSpecs(N);
    }
    if (ts_tree_cursor_goto_first_child(&C)) {
      InError.push_back(K == ErrorSymbol || ts_node_has_error(N));
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&C)) {
      if (!ts_tree_cursor_goto_parent(&C)) {
        ts_tree_cursor_delete(&C);
        return R.take();
      }
      InError.pop_back();
    }
  }
}

TSTree *tether::python::parseWithRecovery(TSParser *Parser,
                                          std::string_view Text) {
  auto parse = [&](std::string_view S) {
    return ts_parser_parse_string(Parser, nullptr, S.data(), (uint32_t)S.size());
  };
  TSTree *Plain = parse(Text);
  if (!Plain)
    return nullptr;
  if (!ts_node_has_error(ts_tree_root_node(Plain)))
    return Plain;
  TSTree *Last = Plain;
  std::string Current(Text);
  for (int Round = 0; Round < MaxRounds; ++Round) {
    std::string Next = closeGrammarGaps(ts_tree_root_node(Last), Current);
    if (Next.empty() || Next == Current)
      break;
    TSTree *Mended = parse(Next);
    if (Last != Plain)
      ts_tree_delete(Last);
    Last = Plain;
    if (!Mended)
      break;
    if (!ts_node_has_error(ts_tree_root_node(Mended))) {
      ts_tree_delete(Plain);
      return Mended;
    }
    Last = Mended;
    Current = std::move(Next);
  }
  if (Last != Plain)
    ts_tree_delete(Last);
  return Plain;
}
