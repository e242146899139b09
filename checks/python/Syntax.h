//===- Syntax.h - tree-sitter-python: symbols, fields, node helpers -------===//
//
// The one place that knows the grammar's spelling. Node kinds and fields are
// looked up once as integers, so the analysis compares numbers, not strings.
// The walks read the flattened tree of SyntaxTree.h.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_SYNTAX_H
#define TETHER_PYTHON_SYNTAX_H

#include <cctype>
#include <string>
#include <string_view>
#include <vector>
#include "SyntaxTree.h"
#include <tree_sitter/api.h>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace tether::python {

struct Grammar {
  // Statements and definitions.
  TSSymbol Module, Block, FunctionDef, ClassDef, DecoratedDef, ExprStmt,
      Assignment, AugAssignment, Return, Delete, If, Elif, Else, For, While,
      Try, Except, ExceptGroup, Finally, With, WithClause, WithItem, Global,
      Import, ImportFrom, FutureImport, Assert, Raise, Break, Continue,
      PrintStmt, Chevron, ExecStmt, Match, CaseClause;
  // Expressions.
  TSSymbol Call, Attribute, Subscript, Identifier, KeywordArgument,
      ArgumentList, GeneratorExpr, ListComp, SetComp, DictComp, ForIn, IfClause,
      Dictionary, Pair, List, Tuple, ExpressionList, PatternList, TuplePattern,
      ListPattern, Parenthesized, Comparison, BooleanOp, NotOp, None, True,
      False, Conditional, NamedExpr, AsPattern, AsPatternTarget, String,
      Comment, Await, Lambda, ListSplat, DictSplat, DottedName, RelativeImport,
      ImportPrefix, AliasedImport, WildcardImport, Parameters, TypedParam,
      DefaultParam, TypedDefaultParam, ListSplatPattern, DictSplatPattern,
      Decorator, Yield, Type, Integer, Interpolation;
  // Fields.
  TSFieldId FName, FBody, FParameters, FLeft, FRight, FFunction, FArguments,
      FObject, FAttribute, FCondition, FConsequence, FAlternative, FValue,
      FKey, FSubscript, FSuperclasses, FDefinition, FModuleName, FAlias,
      FArgument, FOperator, FType, FExpression;

  static const Grammar &get();
  const TSLanguage *Lang;
};

/// A character of a Python identifier (ASCII; the text scans that use it
/// only ever err towards a match).
inline bool isIdentChar(char C) {
  return isalnum((unsigned char)C) || C == '_';
}

inline std::string_view nodeText(SyntaxNode N, std::string_view Src) {
  uint32_t B = startByte(N), E = endByte(N);
  if (E > Src.size() || B > E)
    return {};
  return Src.substr(B, E - B);
}

inline SyntaxNode field(SyntaxNode N, TSFieldId F) {
  return childByField(N, F);
}

/// Whether nodes of kind K hold statements: a block, or a compound
/// statement or one of its clauses. What a walk over statements enters.
bool holdsStatements(TSSymbol K);

/// Visits every node that sits among statements (a child of Root, of a
/// block or of a compound statement), until Visit returns true; returns
/// whether it did. IntoErrors also enters ERROR nodes (a statement the
/// parser could not place may hold more).
template <typename Fn>
bool findAmongStatements(SyntaxNode Root, bool IntoErrors, Fn &&Visit) {
  std::vector<SyntaxNode> Work{Root};
  while (!Work.empty()) {
    SyntaxNode N = Work.back();
    Work.pop_back();
    bool Found = false;
    forEachChild(N, true, [&](SyntaxNode C, TSFieldId) {
      if (Found)
        return;
      if (Visit(C)) {
        Found = true;
        return;
      }
      TSSymbol K = symbolOf(C);
      if (holdsStatements(K) || (IntoErrors && K == (TSSymbol)-1))
        Work.push_back(C);
    });
    if (Found)
      return true;
  }
  return false;
}

/// Visit N and its named descendants in pre-order; Visit returns whether
/// to descend into the node.
template <typename Fn> void preorder(SyntaxNode N, Fn &&Visit) {
  const SyntaxTree &T = *N.Tree;
  if (!Visit(N))
    return;
  // Entries are in document order: a subtree is the range up to the next
  // sibling of the node or of its nearest ancestor that has one.
  uint32_t I = T.at(N.Index).ChildCount ? N.Index + 1 : 0;
  while (I) {
    const SyntaxTree::Entry &E = T.at(I);
    if ((E.Flags & SyntaxTree::Named) && Visit(SyntaxNode{&T, I}) &&
        E.ChildCount) {
      I = I + 1;
      continue;
    }
    // Past I's subtree, without leaving N's.
    uint32_t At = I;
    I = 0;
    while (At != N.Index) {
      if (T.at(At).NextSibling) {
        I = T.at(At).NextSibling;
        break;
      }
      At = T.at(At).Parent;
    }
  }
}

/// First named child (of any field), or a null node.
SyntaxNode firstNamedChild(SyntaxNode N);
/// Skip parentheses: ((x)) -> x.
SyntaxNode stripParens(SyntaxNode N);
/// The `as` of a with item's Value, or the null node. tree-sitter reads
/// `with a if c else b as t:` as a conditional whose last operand is
/// `b as t` (CPython: `(a if c else b) as t`), and a lambda's `as` as its
/// body's: the as_pattern is found by following last operands through
/// parentheses, conditionals and lambdas.
SyntaxNode withItemAs(SyntaxNode Value);

/// A dotted name for identifier / attribute chains ("torch.npu.graph"),
/// empty when N is not such a chain. getattr(x, "a") reads as "x.a".
std::string dottedName(SyntaxNode N, std::string_view Src);
/// For getattr(obj, "name"[, default]): "name", with *Obj set to obj when
/// given; empty for any other node.
std::string getattrName(SyntaxNode N, std::string_view Src, SyntaxNode *Obj = nullptr);

/// The source text with runs of whitespace removed: a key for comparing
/// expressions written the same way ("a[k]" == "a[ k ]").
std::string exprKey(SyntaxNode N, std::string_view Src);

} // namespace tether::python

#endif
