//===- Syntax.h - tree-sitter-python: symbols, fields, node helpers -------===//
//
// The one place that knows the grammar's spelling. Node kinds and fields are
// looked up once as integers, so the analysis compares numbers, not strings.
// Children are visited with a tree cursor: ts_node_child(i) rescans from the
// first child and would make long modules quadratic.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_SYNTAX_H
#define TETHER_PYTHON_SYNTAX_H

#include <cctype>
#include <deque>
#include <string>
#include <string_view>
#include <vector>
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

inline std::string_view nodeText(TSNode N, std::string_view Src) {
  uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
  if (E > Src.size() || B > E)
    return {};
  return Src.substr(B, E - B);
}

inline TSNode field(TSNode N, TSFieldId F) {
  return ts_node_child_by_field_id(N, F);
}

/// Cursors reused by forEachChild, one per nesting depth, per thread: a
/// fresh cursor per visited node costs an allocation and a free.
struct CursorStack {
  std::deque<TSTreeCursor> Cursors;
  unsigned Depth = 0;
  ~CursorStack() {
    for (TSTreeCursor &C : Cursors)
      ts_tree_cursor_delete(&C);
  }
};
inline CursorStack &cursorStack() {
  thread_local CursorStack S;
  return S;
}

/// Visit the children of N in order (named only when NamedOnly).
template <typename Fn> void forEachChild(TSNode N, bool NamedOnly, Fn &&F) {
  if (ts_node_child_count(N) == 0)
    return;
  CursorStack &S = cursorStack();
  if (S.Depth == S.Cursors.size())
    S.Cursors.push_back(ts_tree_cursor_new(N));
  else
    ts_tree_cursor_reset(&S.Cursors[S.Depth], N);
  TSTreeCursor &C = S.Cursors[S.Depth]; // a deque: stays put as it grows
  ++S.Depth;
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      TSNode Ch = ts_tree_cursor_current_node(&C);
      if (!NamedOnly || ts_node_is_named(Ch))
        F(Ch, ts_tree_cursor_current_field_id(&C));
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  --S.Depth;
}

/// Whether nodes of kind K hold statements: a block, or a compound
/// statement or one of its clauses. What a walk over statements enters.
bool holdsStatements(TSSymbol K);

/// Visits every node that sits among statements (a child of Root, of a
/// block or of a compound statement), until Visit returns true; returns
/// whether it did. IntoErrors also enters ERROR nodes (a statement the
/// parser could not place may hold more).
template <typename Fn>
bool findAmongStatements(TSNode Root, bool IntoErrors, Fn &&Visit) {
  std::vector<TSNode> Work{Root};
  while (!Work.empty()) {
    TSNode N = Work.back();
    Work.pop_back();
    bool Found = false;
    forEachChild(N, true, [&](TSNode C, TSFieldId) {
      if (Found)
        return;
      if (Visit(C)) {
        Found = true;
        return;
      }
      TSSymbol K = ts_node_symbol(C);
      if (holdsStatements(K) || (IntoErrors && K == (TSSymbol)-1))
        Work.push_back(C);
    });
    if (Found)
      return true;
  }
  return false;
}

/// Visit N and its descendants in pre-order with one cursor; Visit returns
/// whether to descend into the node.
template <typename Fn> void preorder(TSNode N, Fn &&Visit) {
  TSTreeCursor C = ts_tree_cursor_new(N);
  unsigned Depth = 0;
  bool Descend = Visit(N);
  while (true) {
    if (Descend && ts_tree_cursor_goto_first_child(&C)) {
      ++Depth;
    } else {
      while (Depth > 0 && !ts_tree_cursor_goto_next_sibling(&C)) {
        ts_tree_cursor_goto_parent(&C);
        --Depth;
      }
      if (Depth == 0)
        break;
    }
    TSNode Cur = ts_tree_cursor_current_node(&C);
    Descend = ts_node_is_named(Cur) ? Visit(Cur) : false;
  }
  ts_tree_cursor_delete(&C);
}

/// First named child (of any field), or a null node.
TSNode firstNamedChild(TSNode N);
/// Skip parentheses: ((x)) -> x.
TSNode stripParens(TSNode N);

/// A dotted name for identifier / attribute chains ("torch.npu.graph"),
/// empty when N is not such a chain. getattr(x, "a") reads as "x.a".
std::string dottedName(TSNode N, std::string_view Src);
/// For getattr(obj, "name"[, default]): "name", with *Obj set to obj when
/// given; empty for any other node.
std::string getattrName(TSNode N, std::string_view Src, TSNode *Obj = nullptr);

/// The source text with runs of whitespace removed: a key for comparing
/// expressions written the same way ("a[k]" == "a[ k ]").
std::string exprKey(TSNode N, std::string_view Src);

} // namespace tether::python

#endif
