//===- Recovery.h - Valid Python that tree-sitter-python cannot read -------===//
//
// tree-sitter-python 0.23.6 rejects or misreads a few forms CPython
// compiles, each a lexical gap of the grammar rather than a broken file:
//  - a comment-only line indented less than the code around it, between a
//    decorator and its definition in an indented block (the external
//    scanner reads the comment's indentation as a dedent);
//  - a starred element whose operand starts with a bracket after a comma in
//    a tuple without parentheses (`return a, *(b,)`): `*` is read as a
//    multiplication with nothing on its left;
//  - a format spec that starts with `=` and goes on with an operator
//    (`f'{x:=^10}'`): `:=` is read as an assignment expression. (Without the
//    operator, `f'{x:=10}'` reads as `x := 10` inside the string, which the
//    walk does not look into.)
//  - a line inside brackets that starts left of the line the brackets
//    opened on (`x = (a +` then `b)` further left): the scanner reads a
//    dedent where the grammar cannot take a closing bracket.
// The recovery rewrites the source at those sites without moving a byte
// (blanks the comment, the `*`, the `=`; for the last, the line breaks
// before the line, which joins it to the one above, and the parse's rows
// are edited back afterwards), so every position in the new tree is the
// original file's position, and the tree is used only when the reparse has
// no error: a file that is really broken keeps its error.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_RECOVERY_H
#define TETHER_PYTHON_RECOVERY_H

#include <string>
#include <string_view>
#include <tree_sitter/api.h>

namespace tether::python {

/// Parse Text; when the tree has an error, parse rewrites of it (see above)
/// and return the first error-free tree. Returns
/// the plain parse's tree when no rewrite gives one (null if the parser
/// gave up). The tree's node texts are to be read from Text.
TSTree *parseWithRecovery(TSParser *Parser, std::string_view Text);

/// The rewrite of Text at the gaps found in Root, or empty when there is
/// none. Same length as Text; its line breaks are Text's but those inside
/// brackets before a line left of them (blanks here).
std::string closeGrammarGaps(TSNode Root, std::string_view Text);

} // namespace tether::python

#endif
