//===- ValidateIndent.cpp - CPython's indentation rules over the tree -----===//
#include "ValidateIndent.h"
#include "NodeAccess.h"

#include <algorithm>
#include <string_view>

using namespace tether::python;

namespace {

bool blank(char C) { return C == ' ' || C == '\t' || C == '\f'; }

bool isStatement(SyntaxNode N) {
  return kindOf(N) != Grammar::get().Comment && !isExtra(N);
}

} // namespace

// Rows only for blocks: a row is a search in the line table, and a walk
// that found every node's row spent 1.5% of a run doing it.
bool tether::python::indentedBlock(SyntaxNode N, TSSymbol Block) {
  SyntaxNode Up = parentNode(N);
  return kindOf(N) == Block && !isNull(Up) && startPoint(N).row > startPoint(Up).row;
}

/// The indentation of the logical line whose first token starts at byte
/// Start, or none when something precedes it on that logical line (a
/// `;`, a header's `:`). A line break escaped by a backslash joins two
/// physical lines, so the walk back goes on to the earlier one, where
/// CPython starts measuring (see below). Whatever a walk back cannot
/// read for certain (a comment that ends in a backslash, a byte-order
/// mark) also gives none: the rule then stays silent, never rejects.
std::optional<Indentation> IndentationRules::lineIndentation(uint32_t Start) const {
  size_t I = std::min<size_t>(Start, Src.size());
  while (true) {
    while (I > 0 && blank(Src[I - 1]))
      --I;
    if (I == 0)
      break;
    char C = Src[I - 1];
    if (C != '\n' && C != '\r')
      return std::nullopt;
    size_t K = I - 1; // The line break; a "\r\n" is one.
    if (C == '\n' && K > 0 && Src[K - 1] == '\r')
      --K;
    if (K == 0 || Src[K - 1] != '\\')
      break;
    I = K - 1; // Escaped: the line holds nothing but blanks before it.
  }
  // Forward as CPython's tokenizer counts (3.11): blanks on through
  // escaped line breaks; the column of the first backslash decides,
  // unless it is 0, when the count goes on into the next line.
  Indentation In;
  unsigned ContCol = 0;
  for (size_t J = I; J < Src.size(); ++J) {
    char C = Src[J];
    if (In.advance(C))
      continue;
    if (C == '\\' && J + 1 < Src.size() &&
               (Src[J + 1] == '\n' || Src[J + 1] == '\r')) {
      if (!ContCol)
        ContCol = In.Col;
      J += Src[J + 1] == '\r' && J + 2 < Src.size() && Src[J + 2] == '\n' ? 2 : 1;
    } else {
      break;
    }
  }
  if (ContCol)
    In.Col = In.Alt = ContCol;
  return In;
}

/// The grammar's scanner counts a tab in an indentation as 8 columns,
/// CPython as the way to the next multiple of 8: they agree unless a tab
/// follows blanks that stop short of one (`"   \t"`). In a file with
/// such a line the tree's blocks are the scanner's, not CPython's, so
/// the indentation rules, which would judge the tree rather than the
/// file, stay silent (CPython's own verdict on the file cannot be read
/// from this tree).
bool IndentationRules::scannerMiscountsTabs() {
  if (TabsKnown)
    return TabsMiscounted;
  TabsKnown = true;
  // Each line that holds a tab once: its leading blanks only.
  for (size_t I = Src.find('\t'); I != std::string_view::npos;) {
    size_t Line = I == 0 ? std::string_view::npos : Src.find_last_of("\n\r", I - 1);
    Line = Line == std::string_view::npos ? 0 : Line + 1;
    Indentation In;
    for (size_t J = Line; J < Src.size(); ++J) {
      if (Src[J] == '\t' && In.Col % 8 != 0)
        return TabsMiscounted = true;
      if (!In.advance(Src[J]))
        break;
    }
    size_t End = Src.find_first_of("\n\r", I);
    I = End == std::string_view::npos ? End : Src.find('\t', End);
  }
  return false;
}


/// The deepest indentation the lines of N leave open at its end (CPython's
/// indentation stack after N), or Base when N ends in no indented block.
unsigned IndentationRules::trailingIndent(SyntaxNode N, unsigned Base) const {
  const Grammar &G = Grammar::get();
  unsigned Top = Base;
  while (!isNull(N)) {
    if (indentedBlock(N, G.Block))
      if (auto In = lineIndentation(startByte(N)))
        Top = In->Col;
    SyntaxNode Last{};
    eachChild(N, true, [&](SyntaxNode C, TSFieldId) {
      if (isStatement(C))
        Last = C;
    });
    N = Last;
  }
  return Top;
}

/// N starts a line at In where lines at Want belong (Prev ends before it).
bool IndentationRules::misplaced(SyntaxNode N, Indentation In, Indentation Want,
                                 SyntaxNode Prev) {
  if (In.Col != Want.Col)
    return reject(N, In.Col > trailingIndent(Prev, Want.Col)
                         ? "unexpected indent"
                         : "unindent does not match any outer indentation level");
  if (In.Alt != Want.Alt)
    return reject(N, "inconsistent use of tabs and spaces in indentation");
  return true;
}

// A statement after `;` or on its header's line starts no logical line and
// is not measured (lineIndentation gives none).
bool IndentationRules::checkContainer(SyntaxNode Container, bool IsModule) {
  if (scannerMiscountsTabs())
    return true;
  std::optional<Indentation> Want;
  if (IsModule)
    Want = Indentation{};
  SyntaxNode Prev{};
  bool Ok = true;
  eachChild(Container, true, [&](SyntaxNode S, TSFieldId) {
    if (!Ok || !isStatement(S))
      return;
    if (auto In = lineIndentation(startByte(S))) {
      if (Want) {
        Ok = misplaced(S, *In, *Want, Prev);
      } else {
        Want = In;
        SyntaxNode Header = parentNode(Container);
        auto Outer = isNull(Header) ? std::nullopt
                                    : lineIndentation(startByte(Header));
        if (Outer && In->Col > Outer->Col && In->Alt <= Outer->Alt)
          Ok = reject(S, "inconsistent use of tabs and spaces in indentation");
      }
    }
    Prev = S;
  });
  return Ok;
}

bool IndentationRules::checkClauses(SyntaxNode Stmt) {
  const Grammar &G = Grammar::get();
  if (scannerMiscountsTabs())
    return true;
  auto Want = lineIndentation(startByte(Stmt));
  if (!Want)
    return true;
  bool Decorated = kindOf(Stmt) == G.DecoratedDef;
  SyntaxNode Prev{};
  bool Ok = true;
  eachChild(Stmt, true, [&](SyntaxNode C, TSFieldId) {
    if (!Ok || !isStatement(C))
      return;
    TSSymbol K = kindOf(C);
    bool Aligned = Decorated ? K == G.Decorator || K == G.FunctionDef || K == G.ClassDef
                             : K == G.Elif || K == G.Else || K == G.Except ||
                                   K == G.ExceptGroup || K == G.Finally;
    if (Aligned && !isNull(Prev))
      if (auto In = lineIndentation(startByte(C)))
        Ok = misplaced(C, *In, *Want, Prev);
    Prev = C;
  });
  return Ok;
}
