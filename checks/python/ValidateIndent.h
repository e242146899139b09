//===- ValidateIndent.h - CPython's indentation rules over the tree -------===//
//
// tree-sitter-python's external scanner keeps indentation it has no use for
// as blanks: a line indented deeper where no block opens, one dedented to no
// enclosing level, an `else` out of line with its `if`, a decorator above a
// deeper `def` and a block indented by tabs on one line and spaces on the
// next all parse, into the block or module around them. CPython's tokenizer
// rejects each. These rules measure each logical line's indentation as the
// tokenizer does (CPython 3.11) and judge the tree's blocks by it; the rest
// of the validation (Validate.cpp) asks them at each module, block and
// compound statement.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_VALIDATEINDENT_H
#define TETHER_PYTHON_VALIDATEINDENT_H

#include "SyntaxTree.h"
#include <optional>
#include <string_view>

namespace tether::python {

/// A logical line's indentation as CPython's tokenizer measures it: Col
/// with a tab advancing to the next multiple of 8, Alt with a tab as one
/// column. Lines at one level must agree in both (else it is a TabError);
/// a form feed starts the count again.
struct Indentation {
  unsigned Col = 0, Alt = 0;
  /// Counts blank C; false (and no change) for any other character.
  bool advance(char C) {
    if (C == ' ') {
      ++Col;
      ++Alt;
    } else if (C == '\t') {
      Col = (Col / 8 + 1) * 8;
      ++Alt;
    } else if (C == '\f') {
      Col = Alt = 0;
    } else {
      return false;
    }
    return true;
  }
};

/// A block on a line of its own (not `if x: pass`) is one indentation level.
bool indentedBlock(SyntaxNode N, TSSymbol Block);

/// The rules over one source text. A check that fails leaves the node and
/// CPython's reason in At and Why.
class IndentationRules {
public:
  explicit IndentationRules(std::string_view Src) : Src(Src) {}

  /// Every statement of Container (a module or a block) that starts a
  /// logical line sits where the first one does (a module's at column 0),
  /// and an indented block is deeper than its header by both measures.
  bool checkContainer(SyntaxNode Container, bool IsModule);
  /// A compound statement's clauses (`elif`, `else`, `except`, `finally`)
  /// and a definition's decorators start lines where the statement does.
  bool checkClauses(SyntaxNode Stmt);

  SyntaxNode At{};
  const char *Why = nullptr;

private:
  std::string_view Src;
  bool TabsKnown = false, TabsMiscounted = false;

  bool reject(SyntaxNode N, const char *Reason) {
    At = N;
    Why = Reason;
    return false;
  }
  std::optional<Indentation> lineIndentation(uint32_t Start) const;
  bool scannerMiscountsTabs();
  unsigned trailingIndent(SyntaxNode N, unsigned Base) const;
  bool misplaced(SyntaxNode N, Indentation In, Indentation Want, SyntaxNode Prev);
};

} // namespace tether::python

#endif
