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

  /// Spaces over [B, E), line breaks kept unless JoinLines (the gap
  /// between two tokens: blanks, line breaks, comments, a backslash before
  /// a line break).
  void blank(uint32_t B, uint32_t E, bool JoinLines = false) {
    if (E > Text.size() || B >= E)
      return;
    if (Out.empty())
      Out.assign(Text);
    for (uint32_t I = B; I < E; ++I)
      if (JoinLines || (Out[I] != '\n' && Out[I] != '\r'))
        Out[I] = ' ';
  }
  void blank(TSNode N) { blank(ts_node_start_byte(N), ts_node_end_byte(N)); }

  /// Leaves in document order, comments apart. `, *(` or `, *[` with the
  /// `*` in an error: a starred element whose operand is bracketed. Without
  /// the `*` the element is the bracketed operand itself, a tuple element
  /// the grammar reads.
  void token(TSNode Leaf, bool ParentHasError, bool InString) {
    if (isToken(Leaf, "(") || isToken(Leaf, "["))
      if (StarInError && isToken(Prev, "*") && isToken(BeforePrev, ","))
        blank(Prev);
    BeforePrev = Prev;
    Prev = Leaf;
    StarInError = ParentHasError;
    brackets(Leaf, InString);
  }

  /// A line inside brackets that starts left of the line the outermost
  /// bracket opened on (`x = (a +` then `b)` further left): CPython ignores
  /// indentation inside brackets, the grammar's scanner reads a dedent
  /// wherever the grammar cannot take a closing bracket. The line breaks
  /// before such a line become blanks, with the comments and backslashes
  /// between (the lines are joined: one line to the scanner); the parse's
  /// rows are put back afterwards (restoreRows).
  void brackets(TSNode Leaf, bool InString) {
    uint32_t B = ts_node_start_byte(Leaf), E = ts_node_end_byte(Leaf);
    if (B == E) // a missing token the parser made up
      return;
    // A string's parts (also where an error split them from their string)
    // and what an f-string's braces hold: their brackets are no brackets.
    const char *Type = ts_node_type(Leaf);
    bool StringPart = InString || std::strncmp(Type, "string_", 7) == 0 ||
                      std::strcmp(Type, "escape_sequence") == 0;
    // The line break to join must be between tokens (not one that ends an
    // unterminated string) with only blanks, comments and a backslash in
    // the gap (nothing the parse skipped).
    if (!StringPart && Depth > 0 && !AfterOpenString &&
        startsItsLine(Leaf, Text) && indentOf(B) < OuterIndent &&
        onlyBlanks(PrevEnd, B))
      blank(PrevEnd, B, /*JoinLines=*/true);
    AfterOpenString = StringPart && std::strcmp(Type, "string_end") != 0;
    PrevEnd = E;
    if (StringPart)
      return;
    if (isToken(Leaf, "(") || isToken(Leaf, "[") || isToken(Leaf, "{")) {
      if (Depth++ == 0)
        OuterIndent = indentOf(B);
    } else if (Depth > 0 &&
               (isToken(Leaf, ")") || isToken(Leaf, "]") || isToken(Leaf, "}"))) {
      --Depth;
    }
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
  /// The blanks that start the line At is on, in bytes.
  uint32_t indentOf(uint32_t At) const {
    uint32_t Start = At;
    while (Start > 0 && Text[Start - 1] != '\n' && Text[Start - 1] != '\r')
      --Start;
    uint32_t I = Start;
    while (I < At && (Text[I] == ' ' || Text[I] == '\t' || Text[I] == '\f'))
      ++I;
    return I - Start;
  }

  /// Whether [B, E) holds only blanks, line breaks, comments and
  /// backslashes that end a line.
  bool onlyBlanks(uint32_t B, uint32_t E) const {
    for (uint32_t I = B; I < E && I < Text.size(); ++I) {
      char C = Text[I];
      if (C == '#') {
        while (I + 1 < E && Text[I + 1] != '\n' && Text[I + 1] != '\r')
          ++I;
      } else if (C == '\\') {
        if (I + 1 >= E || (Text[I + 1] != '\n' && Text[I + 1] != '\r'))
          return false;
      } else if (C != ' ' && C != '\t' && C != '\f' && C != '\n' &&
                 C != '\r') {
        return false;
      }
    }
    return true;
  }

  std::string_view Text;
  std::string Out; // empty until the first blank
  TSNode BeforePrev{}, Prev{};
  bool StarInError = false;
  uint32_t Depth = 0, OuterIndent = 0, PrevEnd = 0;
  bool AfterOpenString = false;
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
  std::vector<bool> InString{false};
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
      R.token(N, ParentHasError, InString.back());
    } else if (K == G.Interpolation) {
      R.formatSpecs(N);
    }
    if (ts_tree_cursor_goto_first_child(&C)) {
      InError.push_back(K == ErrorSymbol || ts_node_has_error(N));
      InString.push_back(InString.back() || K == G.String);
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&C)) {
      if (!ts_tree_cursor_goto_parent(&C)) {
        ts_tree_cursor_delete(&C);
        return R.take();
      }
      InError.pop_back();
      InString.pop_back();
    }
  }
}

namespace {
/// A line break of the original text that the mended text joined (a blank
/// there), with its position as the mended parse counts it.
struct Join {
  uint32_t Byte;
  TSPoint At;
};
} // namespace

static std::vector<Join> joinedBreaks(std::string_view Original,
                                      std::string_view Mended) {
  std::vector<Join> Joins;
  TSPoint P{0, 0};
  for (uint32_t I = 0; I < Mended.size(); ++I) {
    if (Original[I] == '\n' && Mended[I] != '\n')
      Joins.push_back({I, P});
    if (Mended[I] == '\n') {
      ++P.row;
      P.column = 0;
    } else {
      ++P.column;
    }
  }
  return Joins;
}

/// Whether every joined break lies between two tokens of the mended parse,
/// not inside one: where the plain parse's error split a string from its
/// quotes, the break that ended an unterminated string (`"https://example/a`
/// above `b"`) could otherwise be joined into a string CPython never sees.
static bool joinsBetweenTokens(TSTree *Tree, const std::vector<Join> &Joins) {
  TSNode Root = ts_tree_root_node(Tree);
  for (const Join &J : Joins) {
    TSNode N = ts_node_descendant_for_byte_range(Root, J.Byte, J.Byte + 1);
    if (!ts_node_is_null(N) && ts_node_child_count(N) == 0 &&
        ts_node_start_byte(N) <= J.Byte && J.Byte < ts_node_end_byte(N))
      return false;
  }
  return true;
}

/// Each joined break is edited back into a line break (ts_tree_edit shifts
/// every later node's position; no byte moves), from the last to the first
/// so that each edit's points are still the mended text's.
static void restoreRows(TSTree *Tree, const std::vector<Join> &Joins) {
  for (auto It = Joins.rbegin(); It != Joins.rend(); ++It) {
    TSInputEdit Edit{};
    Edit.start_byte = It->Byte;
    Edit.old_end_byte = It->Byte + 1;
    Edit.new_end_byte = It->Byte + 1;
    Edit.start_point = It->At;
    Edit.old_end_point = {It->At.row, It->At.column + 1};
    Edit.new_end_point = {It->At.row + 1, 0};
    ts_tree_edit(Tree, &Edit);
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
      std::vector<Join> Joins = joinedBreaks(Text, Next);
      if (!joinsBetweenTokens(Mended, Joins)) {
        ts_tree_delete(Mended);
        break;
      }
      ts_tree_delete(Plain);
      restoreRows(Mended, Joins);
      return Mended;
    }
    Last = Mended;
    Current = std::move(Next);
  }
  if (Last != Plain)
    ts_tree_delete(Last);
  return Plain;
}
