//===- Syntax.cpp - tree-sitter-python symbols and node helpers -----------===//
#include "Syntax.h"

#include <cstring>

using namespace tether::python;

static TSSymbol sym(const TSLanguage *L, const char *Name) {
  return ts_language_symbol_for_name(L, Name, (uint32_t)std::strlen(Name),
                                     /*is_named=*/true);
}
static TSFieldId fld(const TSLanguage *L, const char *Name) {
  return ts_language_field_id_for_name(L, Name, (uint32_t)std::strlen(Name));
}

static Grammar make() {
  Grammar G;
  const TSLanguage *L = G.Lang = tree_sitter_python();
  G.Module = sym(L, "module");
  G.Block = sym(L, "block");
  G.FunctionDef = sym(L, "function_definition");
  G.ClassDef = sym(L, "class_definition");
  G.DecoratedDef = sym(L, "decorated_definition");
  G.ExprStmt = sym(L, "expression_statement");
  G.Assignment = sym(L, "assignment");
  G.AugAssignment = sym(L, "augmented_assignment");
  G.Return = sym(L, "return_statement");
  G.Delete = sym(L, "delete_statement");
  G.If = sym(L, "if_statement");
  G.Elif = sym(L, "elif_clause");
  G.Else = sym(L, "else_clause");
  G.For = sym(L, "for_statement");
  G.While = sym(L, "while_statement");
  G.Try = sym(L, "try_statement");
  G.Except = sym(L, "except_clause");
  G.ExceptGroup = sym(L, "except_group_clause");
  G.Finally = sym(L, "finally_clause");
  G.With = sym(L, "with_statement");
  G.WithClause = sym(L, "with_clause");
  G.WithItem = sym(L, "with_item");
  G.Global = sym(L, "global_statement");
  G.Import = sym(L, "import_statement");
  G.ImportFrom = sym(L, "import_from_statement");
  G.FutureImport = sym(L, "future_import_statement");
  G.Assert = sym(L, "assert_statement");
  G.Raise = sym(L, "raise_statement");
  G.Break = sym(L, "break_statement");
  G.Continue = sym(L, "continue_statement");
  G.PrintStmt = sym(L, "print_statement");
  G.Chevron = sym(L, "chevron");
  G.ExecStmt = sym(L, "exec_statement");
  G.Match = sym(L, "match_statement");
  G.CaseClause = sym(L, "case_clause");
  G.Call = sym(L, "call");
  G.Attribute = sym(L, "attribute");
  G.Subscript = sym(L, "subscript");
  G.Identifier = sym(L, "identifier");
  G.KeywordArgument = sym(L, "keyword_argument");
  G.ArgumentList = sym(L, "argument_list");
  G.GeneratorExpr = sym(L, "generator_expression");
  G.ListComp = sym(L, "list_comprehension");
  G.SetComp = sym(L, "set_comprehension");
  G.DictComp = sym(L, "dictionary_comprehension");
  G.ForIn = sym(L, "for_in_clause");
  G.IfClause = sym(L, "if_clause");
  G.Dictionary = sym(L, "dictionary");
  G.Pair = sym(L, "pair");
  G.List = sym(L, "list");
  G.Tuple = sym(L, "tuple");
  G.ExpressionList = sym(L, "expression_list");
  G.PatternList = sym(L, "pattern_list");
  G.TuplePattern = sym(L, "tuple_pattern");
  G.ListPattern = sym(L, "list_pattern");
  G.Parenthesized = sym(L, "parenthesized_expression");
  G.Comparison = sym(L, "comparison_operator");
  G.BooleanOp = sym(L, "boolean_operator");
  G.NotOp = sym(L, "not_operator");
  G.None = sym(L, "none");
  G.True = sym(L, "true");
  G.False = sym(L, "false");
  G.Conditional = sym(L, "conditional_expression");
  G.NamedExpr = sym(L, "named_expression");
  G.AsPattern = sym(L, "as_pattern");
  G.AsPatternTarget = sym(L, "as_pattern_target");
  G.String = sym(L, "string");
  G.Comment = sym(L, "comment");
  G.Await = sym(L, "await");
  G.Lambda = sym(L, "lambda");
  G.ListSplat = sym(L, "list_splat");
  G.DictSplat = sym(L, "dictionary_splat");
  G.DottedName = sym(L, "dotted_name");
  G.RelativeImport = sym(L, "relative_import");
  G.ImportPrefix = sym(L, "import_prefix");
  G.AliasedImport = sym(L, "aliased_import");
  G.WildcardImport = sym(L, "wildcard_import");
  G.Parameters = sym(L, "parameters");
  G.TypedParam = sym(L, "typed_parameter");
  G.DefaultParam = sym(L, "default_parameter");
  G.TypedDefaultParam = sym(L, "typed_default_parameter");
  G.ListSplatPattern = sym(L, "list_splat_pattern");
  G.DictSplatPattern = sym(L, "dictionary_splat_pattern");
  G.Decorator = sym(L, "decorator");
  G.Yield = sym(L, "yield");
  G.Type = sym(L, "type");
  G.Integer = sym(L, "integer");
  G.Interpolation = sym(L, "interpolation");
  G.FName = fld(L, "name");
  G.FBody = fld(L, "body");
  G.FParameters = fld(L, "parameters");
  G.FLeft = fld(L, "left");
  G.FRight = fld(L, "right");
  G.FFunction = fld(L, "function");
  G.FArguments = fld(L, "arguments");
  G.FObject = fld(L, "object");
  G.FAttribute = fld(L, "attribute");
  G.FCondition = fld(L, "condition");
  G.FConsequence = fld(L, "consequence");
  G.FAlternative = fld(L, "alternative");
  G.FValue = fld(L, "value");
  G.FKey = fld(L, "key");
  G.FSubscript = fld(L, "subscript");
  G.FSuperclasses = fld(L, "superclasses");
  G.FDefinition = fld(L, "definition");
  G.FModuleName = fld(L, "module_name");
  G.FAlias = fld(L, "alias");
  G.FArgument = fld(L, "argument");
  G.FOperator = fld(L, "operator");
  G.FType = fld(L, "type");
  G.FExpression = fld(L, "expression");
  return G;
}

const Grammar &Grammar::get() {
  static const Grammar G = make();
  return G;
}

SyntaxNode tether::python::firstNamedChild(SyntaxNode N) {
  SyntaxNode Out{};
  bool Found = false;
  forEachChild(N, true, [&](SyntaxNode C, TSFieldId) {
    if (!Found && symbolOf(C) != Grammar::get().Comment) {
      Out = C;
      Found = true;
    }
  });
  return Out;
}

SyntaxNode tether::python::stripParens(SyntaxNode N) {
  const Grammar &G = Grammar::get();
  while (!isNull(N) && symbolOf(N) == G.Parenthesized) {
    SyntaxNode In = firstNamedChild(N);
    if (isNull(In))
      break;
    N = In;
  }
  return N;
}

SyntaxNode tether::python::withItemAs(SyntaxNode Value) {
  const Grammar &G = Grammar::get();
  for (SyntaxNode N = Value; !isNull(N);) {
    TSSymbol K = symbolOf(N);
    if (K == G.AsPattern)
      return N;
    if (K != G.Parenthesized && K != G.Conditional && K != G.Lambda)
      break;
    SyntaxNode Last{};
    forEachChild(N, true, [&](SyntaxNode C, TSFieldId) {
      if (symbolOf(C) != G.Comment)
        Last = C;
    });
    N = Last;
  }
  return {};
}

std::string tether::python::dottedName(SyntaxNode N, std::string_view Src) {
  const Grammar &G = Grammar::get();
  N = stripParens(N);
  if (isNull(N))
    return {};
  TSSymbol S = symbolOf(N);
  if (S == G.Identifier)
    return std::string(nodeText(N, Src));
  if (S == G.Attribute) {
    std::string Base = dottedName(field(N, G.FObject), Src);
    SyntaxNode A = field(N, G.FAttribute);
    if (Base.empty() || isNull(A))
      return {};
    return Base + "." + std::string(nodeText(A, Src));
  }
  if (S == G.Call) {
    // getattr(obj, "name"[, default]) reads the attribute obj.name.
    SyntaxNode Obj{};
    std::string Name = getattrName(N, Src, &Obj);
    std::string Base = Name.empty() ? std::string() : dottedName(Obj, Src);
    if (Base.empty())
      return {};
    return Base + "." + Name;
  }
  return {};
}

std::string tether::python::getattrName(SyntaxNode N, std::string_view Src, SyntaxNode *Obj) {
  const Grammar &G = Grammar::get();
  if (isNull(N) || symbolOf(N) != G.Call ||
      nodeText(field(N, G.FFunction), Src) != "getattr")
    return {};
  SyntaxNode Args = field(N, G.FArguments);
  SyntaxNode O{}, Name{};
  int I = 0;
  forEachChild(Args, true, [&](SyntaxNode C, TSFieldId) {
    if (symbolOf(C) == G.Comment)
      return;
    if (I == 0)
      O = C;
    else if (I == 1)
      Name = C;
    ++I;
  });
  if (I < 2 || symbolOf(Name) != G.String)
    return {};
  std::string_view T = nodeText(Name, Src);
  if (T.size() < 2 || (T.front() != '"' && T.front() != '\''))
    return {};
  if (Obj)
    *Obj = O;
  return std::string(T.substr(1, T.size() - 2));
}

std::string tether::python::exprKey(SyntaxNode N, std::string_view Src) {
  std::string_view T = nodeText(stripParens(N), Src);
  std::string Out;
  Out.reserve(T.size());
  for (char C : T)
    if (C != ' ' && C != '\t' && C != '\n' && C != '\r' && C != '\\')
      Out.push_back(C);
  return Out;
}

bool tether::python::holdsStatements(TSSymbol K) {
  const Grammar &G = Grammar::get();
  return K == G.Block || K == G.FunctionDef || K == G.ClassDef ||
         K == G.DecoratedDef || K == G.If || K == G.Elif || K == G.Else ||
         K == G.For || K == G.While || K == G.Try || K == G.Except ||
         K == G.Finally || K == G.With || K == G.ExceptGroup;
}
