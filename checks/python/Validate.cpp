//===- Validate.cpp - Trees tree-sitter accepts and CPython rejects -------===//
#include "Validate.h"
#include "ValidateIndent.h"
#include "Nesting.h"
#include "NodeAccess.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_set>
#include <vector>

using namespace tether::python;

namespace {

/// Kinds the shared Grammar table does not name.
struct ExtraKinds {
  TSSymbol KeywordIdentifier, LambdaParameters, KeywordSeparator, Nonlocal,
      CasePattern, ConstrainedType, TypeParameter, Set, BinaryOp, Float,
      StringContent, TypeConversion;
  static const ExtraKinds &get() {
    static const ExtraKinds K = [] {
      const TSLanguage *L = Grammar::get().Lang;
      auto Sym = [&](const char *Name) {
        return ts_language_symbol_for_name(L, Name, (uint32_t)std::strlen(Name),
                                           /*is_named=*/true);
      };
      ExtraKinds E;
      E.KeywordIdentifier = Sym("keyword_identifier");
      E.LambdaParameters = Sym("lambda_parameters");
      E.KeywordSeparator = Sym("keyword_separator");
      E.Nonlocal = Sym("nonlocal_statement");
      E.CasePattern = Sym("case_pattern");
      E.ConstrainedType = Sym("constrained_type");
      E.TypeParameter = Sym("type_parameter");
      E.Set = Sym("set");
      E.BinaryOp = Sym("binary_operator");
      E.Float = Sym("float");
      E.StringContent = Sym("string_content");
      E.TypeConversion = Sym("type_conversion");
      return E;
    }();
    return K;
  }
};

enum class Scope : uint8_t { Module, Function, Class };

struct Frame {
  SyntaxNode N;
  TSSymbol ParentKind;
  Scope S;
  uint16_t Indent; ///< Indented blocks around N.
  NestingLevel L;
};

bool indentedBlock(const Frame &F, TSSymbol Block) {
  return indentedBlock(F.N, Block);
}

class Validator {
public:
  explicit Validator(std::string_view Src) : Src(Src), Indents(Src) {}

  /// The first rejected shape in document order: its node and why. Adds
  /// the scopes that nest too deep to TooDeep, when given.
  bool run(SyntaxNode Root, std::unordered_set<const void *> *TooDeep) {
    std::vector<Frame> Work{{Root, NoKind, Scope::Module, 0, {}}};
    std::vector<SyntaxNode> Kids;
    while (!Work.empty()) {
      Frame F = Work.back();
      Work.pop_back();
      if (!check(F))
        return false;
      if (TooDeep && F.L.tooDeep())
        TooDeep->insert(F.L.Scope);
      TSSymbol K = kindOf(F.N);
      Scope Inner = F.S;
      if (K == G.FunctionDef || K == G.Lambda)
        Inner = Scope::Function;
      else if (K == G.ClassDef)
        Inner = Scope::Class;
      uint16_t Indent = F.Indent + indentedBlock(F, G.Block);
      Kids.clear();
      eachChild(F.N, true, [&](SyntaxNode C, TSFieldId) { Kids.push_back(C); });
      for (auto It = Kids.rbegin(); It != Kids.rend(); ++It)
        Work.push_back({*It, K, Inner, Indent, F.L.child(*It)});
    }
    return true;
  }

  SyntaxNode At{};
  bool AtEnd = false; ///< The position is At's end, not its start.
  const char *Why = nullptr;

private:
  std::string_view Src;
  IndentationRules Indents;
  const Grammar &G = Grammar::get();
  const ExtraKinds &X = ExtraKinds::get();
  bool reject(SyntaxNode N, const char *Reason) {
    At = N;
    Why = Reason;
    return false;
  }
  /// Rejected just after N (where CPython's tokenizer ended the line).
  bool rejectAfter(SyntaxNode N, const char *Reason) {
    AtEnd = true;
    return reject(N, Reason);
  }

  bool isName(TSSymbol K) const {
    return K == G.Identifier || K == X.KeywordIdentifier;
  }

  /// A single target: a name, attribute or subscript, or one in parentheses
  /// (`(a): int` is allowed, `(a,): int` is a tuple).
  bool singleTarget(SyntaxNode T) const {
    while (kindOf(T) == G.TuplePattern || kindOf(T) == G.Parenthesized) {
      unsigned Named = 0;
      bool Comma = false;
      eachChild(T, false, [&](SyntaxNode C, TSFieldId) {
        if (isNamed(C))
          Named += kindOf(C) != G.Comment;
        else
          Comma |= textOf(C, Src) == ",";
      });
      if (Named != 1 || Comma)
        return false;
      T = firstChildOf(T);
    }
    TSSymbol K = kindOf(T);
    return isName(K) || K == G.Attribute || K == G.Subscript;
  }

  /// What `with ... as T` binds or `del T` deletes (Del: no starred part).
  bool assignable(SyntaxNode T, bool Del) const {
    std::vector<SyntaxNode> Work{T};
    while (!Work.empty()) {
      SyntaxNode N = Work.back();
      Work.pop_back();
      TSSymbol K = kindOf(N);
      if (isName(K) || K == G.Attribute || K == G.Subscript || K == G.Comment)
        continue;
      bool Starred = K == G.ListSplat || K == G.ListSplatPattern;
      if (Starred && Del)
        return false;
      if (!Starred && K != G.Tuple && K != G.List && K != G.Parenthesized &&
          K != G.ExpressionList && K != G.PatternList && K != G.TuplePattern &&
          K != G.ListPattern)
        return false;
      eachChild(N, true, [&](SyntaxNode C, TSFieldId) { Work.push_back(C); });
    }
    return true;
  }

  bool checkParameters(SyntaxNode Params) {
    bool SeenDefault = false, Keyword = false;
    std::unordered_set<std::string_view> Names;
    bool Ok = true;
    SyntaxNode BareStar{}; // a bare `*` no named parameter has followed yet
    eachChild(Params, true, [&](SyntaxNode P, TSFieldId) {
      if (!Ok)
        return;
      TSSymbol K = kindOf(P);
      SyntaxNode Name{};
      if (isName(K)) {
        Name = P;
        BareStar = SyntaxNode{};
        if (SeenDefault && !Keyword)
          Ok = reject(P, "non-default argument follows default argument");
      } else if (K == G.DefaultParam || K == G.TypedDefaultParam) {
        Name = fieldOf(P, G.FName);
        BareStar = SyntaxNode{};
        SeenDefault = true;
      } else if (K == G.TypedParam) {
        Name = firstChildOf(P);
        if (kindOf(Name) != G.DictSplatPattern)
          BareStar = SyntaxNode{};
        if (kindOf(Name) == G.ListSplatPattern || kindOf(Name) == G.DictSplatPattern) {
          Keyword = true;
          Name = firstChildOf(Name);
        } else if (SeenDefault && !Keyword) {
          Ok = reject(P, "non-default argument follows default argument");
        }
      } else if (K == G.ListSplatPattern || K == G.DictSplatPattern) {
        Keyword = true;
        Name = firstChildOf(P);
      } else if (K == X.KeywordSeparator) {
        Keyword = true;
        BareStar = P;
      }
      if (Ok && isName(kindOf(Name)) && !Names.insert(textOf(Name, Src)).second)
        Ok = reject(Name, "duplicate argument in function definition");
    });
    if (Ok && !isNull(BareStar))
      return reject(BareStar, "named arguments must follow bare *");
    return Ok;
  }

  bool checkArguments(SyntaxNode Args) {
    bool SeenKeyword = false, SeenDictSplat = false, Ok = true;
    eachChild(Args, true, [&](SyntaxNode A, TSFieldId) {
      if (!Ok)
        return;
      TSSymbol K = kindOf(A);
      // Comments and backslash continuations (`f(a=1,\` then the next
      // argument) sit among the arguments but are none.
      if (K == G.Comment || isExtra(A))
        return;
      if (K == G.KeywordArgument)
        SeenKeyword = true;
      else if (K == G.DictSplat)
        SeenDictSplat = true;
      else if (K == G.ListSplat) {
        if (SeenDictSplat)
          Ok = reject(A, "iterable argument unpacking follows keyword argument unpacking");
      } else if (SeenKeyword || SeenDictSplat) {
        Ok = reject(A, "positional argument follows keyword argument");
      }
    });
    return Ok;
  }

  unsigned starredTargets(SyntaxNode T) const {
    unsigned N = 0;
    eachChild(T, true, [&](SyntaxNode C, TSFieldId) {
      N += kindOf(C) == G.ListSplatPattern;
    });
    return N;
  }

  /// `with a if c else b as t:`: As is the `as` withItemAs (Syntax.h)
  /// finds in the value of the nearest with item around it.
  bool nestedInWithItem(SyntaxNode As) const {
    SyntaxNode Item = parentNode(As);
    while (!isNull(Item) && kindOf(Item) != G.WithItem)
      Item = parentNode(Item);
    return !isNull(Item) && withItemAs(fieldOf(Item, G.FValue)).id() == As.id();
  }

  /// Python 3's hard keywords: the grammar reads one where a name goes
  /// (`f(pass)`, `s.in`, `x: a + or`) as an identifier, CPython never.
  /// (`print` and `exec` are names in Python 3; soft keywords such as
  /// `match`, `case` and `type` are names too.)
  static bool hardKeyword(std::string_view T) {
    if (T.size() < 2 || T.size() > 8)
      return false;
    static const std::unordered_set<std::string_view> Words = {
        "False", "None",   "True",    "and",      "as",     "assert", "async",
        "await", "break",  "class",   "continue", "def",    "del",    "elif",
        "else",  "except", "finally", "for",      "from",   "global", "if",
        "import", "in",    "is",      "lambda",   "nonlocal", "not",  "or",
        "pass",  "raise",  "return",  "try",      "while",  "with",   "yield"};
    return Words.count(T) != 0;
  }

  /// A number's underscores stand between two digits (`1_000`, `0x_1f`);
  /// the grammar also takes `1_`, `1__0`, `1_.5`.
  bool checkUnderscores(SyntaxNode N) {
    std::string_view T = textOf(N, Src);
    bool Hex = T.size() > 1 && T[0] == '0' && (T[1] == 'x' || T[1] == 'X');
    auto Digit = [&](char C) {
      return Hex ? isxdigit((unsigned char)C) != 0 : isdigit((unsigned char)C) != 0;
    };
    for (size_t I = T.find('_'); I != std::string_view::npos; I = T.find('_', I + 1)) {
      bool AfterPrefix = I == 2 && T[0] == '0' && strchr("xXoObB", T[1]);
      if (I + 1 >= T.size() || !Digit(T[I + 1]) || (!AfterPrefix && !Digit(T[I - 1])))
        return reject(N, "an underscore not between digits in a number");
    }
    return true;
  }

  /// Python 2's integers: a long suffix (`0xFFL`) and octal written with
  /// a leading zero (`0177`); `00`, `0_0` and `0177j` are Python 3.
  bool checkInteger(SyntaxNode N) {
    if (!checkUnderscores(N))
      return false;
    std::string_view T = textOf(N, Src);
    if (T.empty() || T.back() == 'j' || T.back() == 'J')
      return true;
    if (T.back() == 'l' || T.back() == 'L')
      return reject(N, "Python 2 long integer literal");
    if (T.size() > 1 && T[0] == '0' && (isdigit((unsigned char)T[1]) || T[1] == '_') &&
        T.find_first_of("123456789") != std::string_view::npos)
      return reject(N, "leading zeros in a decimal integer literal");
    return true;
  }

  /// A string's prefix: Python 3 has no `ur`, and a backquote (Python 2's
  /// repr) is read by the grammar as a string.
  bool checkStringPrefix(SyntaxNode N) {
    std::string_view Start = textOf(firstChildOf(N), Src);
    if (!Start.empty() && Start[0] == '`')
      return reject(N, "Python 2 backquote");
    size_t Letters = Start.find_first_of("'\"");
    std::string_view Prefix = Start.substr(0, std::min(Letters, Start.size()));
    if (Prefix.size() > 1 && Prefix.find_first_of("uU") != std::string_view::npos)
      return reject(N, "Python 2 string prefix");
    // The rules below read what the grammar leaves as text: the contents
    // outside an f-string's replacement fields.
    bool Tripled = Start.size() >= 3 &&
                   (Start.substr(Start.size() - 3) == "'''" ||
                    Start.substr(Start.size() - 3) == "\"\"\"");
    bool Raw = Prefix.find_first_of("rR") != std::string_view::npos;
    bool Bytes = Prefix.find_first_of("bB") != std::string_view::npos;
    // An unterminated string is CPython's tokenizer's error, found before
    // any escape is decoded.
    bool Unterminated = false;
    const char *Escape = nullptr;
    eachChild(N, false, [&](SyntaxNode C, TSFieldId) {
      if (Unterminated || kindOf(C) != X.StringContent)
        return;
      std::string_view T = textOf(C, Src);
      Unterminated = !Tripled && lineBreakIn(T);
      if (!Raw && !Escape)
        Escape = badEscapeIn(T, Bytes);
    });
    if (Unterminated)
      return reject(N, "unterminated string literal");
    return Escape ? reject(N, Escape) : true;
  }

  /// A quote that is not tripled ends at the end of its line (a line break
  /// after an odd run of backslashes continues it); the grammar's scanner
  /// reads on to the next quote. (Python 3.12 allows breaks inside an
  /// f-string's replacement fields, which are no contents.)
  static bool lineBreakIn(std::string_view T) {
    for (size_t I = T.find_first_of("\n\r"); I != std::string_view::npos;
         I = T.find_first_of("\n\r", I + 1)) {
      size_t Slashes = 0;
      while (Slashes < I && T[I - 1 - Slashes] == '\\')
        ++Slashes;
      bool AfterCr = T[I] == '\n' && I > 0 && T[I - 1] == '\r';
      if (Slashes % 2 == 0 && !AfterCr)
        return true;
    }
    return false;
  }

  /// An escape CPython cannot decode when it reads the literal, as CPython
  /// names it (`\uXXXX` is its notation for four hex digits): `\x` takes
  /// two hex digits, and in a str `\u` four, `\U` eight and `\N` a
  /// `{name}`; the grammar takes a backslash before anything. Null if none.
  static const char *badEscapeIn(std::string_view T, bool Bytes) {
    auto hexRun = [&](size_t From, size_t Want) {
      size_t I = From;
      while (I < T.size() && I - From < Want && isxdigit((unsigned char)T[I]))
        ++I;
      return I - From == Want;
    };
    for (size_t I = T.find('\\'); I != std::string_view::npos && I + 1 < T.size();
         I = T.find('\\', I + 2)) {
      char E = T[I + 1];
      if (E == 'x' && !hexRun(I + 2, 2))
        return "truncated \\xXX escape";
      if (!Bytes && E == 'u' && !hexRun(I + 2, 4))
        return "truncated \\uXXXX escape";
      if (!Bytes && E == 'U' && !hexRun(I + 2, 8))
        return "truncated \\UXXXXXXXX escape";
      if (!Bytes && E == 'N' &&
          (I + 2 >= T.size() || T[I + 2] != '{' ||
           T.find('}', I + 3) == std::string_view::npos))
        return "malformed \\N character escape";
    }
    return nullptr;
  }

  /// An f-string's conversion is `!s`, `!r` or `!a`.
  bool checkConversion(SyntaxNode Interpolation) {
    bool Ok = true;
    eachChild(Interpolation, true, [&](SyntaxNode C, TSFieldId) {
      if (!Ok || kindOf(C) != X.TypeConversion)
        return;
      std::string_view T = textOf(C, Src);
      if (T != "!s" && T != "!r" && T != "!a")
        Ok = reject(C, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    });
    return Ok;
  }

  /// The first unnamed child of N spelled T (a `:`, a `.`), or null.
  SyntaxNode tokenIn(SyntaxNode N, std::string_view T) const {
    SyntaxNode Found{};
    eachChild(N, false, [&](SyntaxNode C, TSFieldId) {
      if (isNull(Found) && !isNamed(C) && textOf(C, Src) == T)
        Found = C;
    });
    return Found;
  }

  /// `from m import a.b`: the grammar reads each imported name as a
  /// dotted name; CPython takes one identifier (the dot is where it stops).
  bool checkImportedNames(SyntaxNode N) {
    bool Ok = true;
    eachChild(N, true, [&](SyntaxNode C, TSFieldId Fi) {
      if (!Ok || Fi != G.FName)
        return;
      SyntaxNode Name = kindOf(C) == G.AliasedImport ? fieldOf(C, G.FName) : C;
      if (kindOf(Name) != G.DottedName)
        return;
      if (SyntaxNode Dot = tokenIn(Name, "."); !isNull(Dot))
        Ok = reject(Dot, "a dotted name imported by 'from ... import'");
    });
    return Ok;
  }

  /// Whether the text between two tokens breaks the logical line: a line
  /// break not escaped by a backslash.
  bool breaksLine(uint32_t From, uint32_t To) const {
    for (uint32_t I = From; I < To && I < Src.size(); ++I) {
      if (Src[I] != '\n' && Src[I] != '\r')
        continue;
      if (I == 0 || (Src[I - 1] != '\\' &&
                     !(Src[I - 1] == '\r' && I >= 2 && Src[I - 2] == '\\')))
        return true;
    }
    return false;
  }

  /// Whether the starred expression N stands where CPython takes one. `*`
  /// applies to a whole bitwise-or expression (`*k.shape`, `*a + b`), but
  /// the grammar sometimes binds it to the first operand only (`(*k).shape`,
  /// `(*a) + b`): the place judged is the top of that chain of first
  /// operands. `(*x)` reads as a tuple without a comma.
  bool starredAllowed(SyntaxNode N) const {
    SyntaxNode Top = N, P = parentNode(N);
    while (!isNull(P)) {
      TSSymbol PK = kindOf(P);
      TSFieldId First = PK == G.Attribute  ? G.FObject
                        : PK == G.Call     ? G.FFunction
                        : PK == G.Subscript ? G.FValue
                        : PK == X.BinaryOp ? G.FLeft
                                           : 0;
      if (!First || !(fieldOf(P, First) == Top))
        break;
      Top = P;
      P = parentNode(P);
    }
    TSSymbol PK = kindOf(P);
    if (PK == G.Tuple)
      return !isNull(tokenIn(P, ","));
    return PK == G.List || PK == X.Set || PK == G.ExpressionList ||
           PK == G.ArgumentList || PK == G.Subscript || PK == G.Type ||
           PK == G.TypedParam || PK == G.Parameters ||
           PK == X.LambdaParameters || PK == G.PatternList ||
           PK == G.ListPattern || PK == G.TuplePattern ||
           PK == X.TypeParameter;
  }

  bool simpleStatement(TSSymbol K) const {
    return K == G.ExprStmt || K == G.Return || K == G.Delete || K == G.Raise ||
           K == G.Assert || K == G.Import || K == G.ImportFrom ||
           K == G.FutureImport || K == G.Global || K == X.Nonlocal ||
           K == G.Decorator;
  }

  bool compoundStatement(TSSymbol K) const {
    return K == G.If || K == G.Elif || K == G.For || K == G.While ||
           K == G.With || K == G.FunctionDef || K == G.ClassDef ||
           K == G.Except || K == G.ExceptGroup || K == G.Match ||
           K == G.CaseClause;
  }

  /// Where a compound statement's (or clause's) header ends: its block's
  /// start, or 0 when it has none.
  uint32_t headerEnd(SyntaxNode Stmt) const {
    uint32_t End = 0;
    eachChild(Stmt, false, [&](SyntaxNode C, TSFieldId) {
      if (!End && kindOf(C) == G.Block)
        End = startByte(C);
    });
    return End;
  }

  /// A simple statement, or a compound statement's header (up to Limit, its
  /// block's start), that runs on past the end of its line: a line break
  /// outside brackets, not escaped. The grammar's scanner emits a line end
  /// only where the grammar can take one, so `x =` above `y = 1` reads as
  /// `x = y = 1`, `els:` above its block as an annotation of `els`,
  /// `from m` above `import n` as one import and `if a ==` above `b:` as
  /// `if a == b:`; CPython ends the line at the line break. Returns the
  /// token the line ends after, or null. Only text that spans lines is
  /// walked; a string is one token, comments are none.
  SyntaxNode lineEndedAfter(SyntaxNode Stmt, uint32_t Limit = 0) const {
    uint32_t S = startByte(Stmt), E = Limit ? Limit : endByte(Stmt);
    if (E > Src.size() || S >= E ||
        Src.substr(S, E - S).find_first_of("\n\r") == std::string_view::npos)
      return {};
    int Depth = 0;
    SyntaxNode Prev{};
    std::vector<SyntaxNode> Work{Stmt};
    std::vector<SyntaxNode> Kids;
    while (!Work.empty()) {
      SyntaxNode N = Work.back();
      Work.pop_back();
      if (startByte(N) >= E)
        return {};
      if (kindOf(N) == G.Comment)
        continue;
      if (kindOf(N) != G.String && childCount(N) != 0) {
        Kids.clear();
        eachChild(N, false, [&](SyntaxNode C, TSFieldId) { Kids.push_back(C); });
        Work.insert(Work.end(), Kids.rbegin(), Kids.rend());
        continue;
      }
      if (Depth == 0 && !isNull(Prev) && breaksLine(endByte(Prev), startByte(N)))
        return Prev;
      if (!isNamed(N)) {
        std::string_view T = textOf(N, Src);
        if (T == "(" || T == "[" || T == "{")
          ++Depth;
        else if ((T == ")" || T == "]" || T == "}") && Depth > 0)
          --Depth;
      }
      Prev = N;
    }
    return {};
  }

  bool check(const Frame &F) {
    SyntaxNode N = F.N;
    TSSymbol K = kindOf(N);
    // CPython's tokenizer stops at 100 levels.
    if (indentedBlock(F, G.Block) && F.Indent + 1 >= 100)
      return reject(N, "too many levels of indentation");
    if ((K == G.Module || K == G.Block) && !Indents.checkContainer(N, K == G.Module))
      return reject(Indents.At, Indents.Why);
    if (simpleStatement(K))
      if (SyntaxNode Last = lineEndedAfter(N); !isNull(Last))
        return rejectAfter(Last, "the statement goes on past the end of its line");
    if (compoundStatement(K))
      if (uint32_t End = headerEnd(N))
        if (SyntaxNode Last = lineEndedAfter(N, End); !isNull(Last))
          return rejectAfter(Last, "the statement goes on past the end of its line");
    if ((K == G.If || K == G.For || K == G.While || K == G.Try ||
         K == G.DecoratedDef) &&
        !Indents.checkClauses(N))
      return reject(Indents.At, Indents.Why);
    if (K == G.Assignment) {
      SyntaxNode Left = fieldOf(N, G.FLeft), Right = fieldOf(N, G.FRight);
      TSSymbol RK = kindOf(Right);
      if (!isNull(fieldOf(N, G.FType))) {
        if (F.ParentKind != G.ExprStmt)
          return reject(N, "annotated assignment inside an expression");
        if (!singleTarget(Left))
          return reject(N, "only a single target can be annotated");
        if (RK == G.Assignment || RK == G.AugAssignment)
          return reject(Right, "chained assignment after an annotation");
      } else if (F.ParentKind != G.ExprStmt && F.ParentKind != G.Assignment) {
        return reject(N, "assignment inside an expression");
      }
      if (kindOf(Left) == G.ListSplatPattern)
        return reject(Left, "starred assignment target must be in a list or tuple");
      if (RK == G.NamedExpr)
        return reject(Right, "unparenthesized assignment expression");
      return true;
    }
    if (K == G.AugAssignment) {
      SyntaxNode Left = fieldOf(N, G.FLeft), Right = fieldOf(N, G.FRight);
      TSSymbol RK = kindOf(Right);
      if (F.ParentKind != G.ExprStmt)
        return reject(N, "augmented assignment inside an expression");
      if (!singleTarget(Left))
        return reject(Left, "illegal expression for augmented assignment");
      if (RK == G.Assignment || RK == G.AugAssignment || RK == G.NamedExpr)
        return reject(Right, "assignment after an augmented assignment");
      return true;
    }
    if (K == G.PatternList || K == G.TuplePattern || K == G.ListPattern) {
      if (starredTargets(N) > 1)
        return reject(N, "multiple starred expressions in assignment");
      return true;
    }
    if (K == G.For || K == G.ForIn) {
      if (kindOf(fieldOf(N, G.FLeft)) == G.ListSplatPattern)
        return reject(N, "starred assignment target must be in a list or tuple");
      if (K == G.ForIn) {
        unsigned Iterables = 0;
        eachChild(N, true, [&](SyntaxNode, TSFieldId Fi) { Iterables += Fi == G.FRight; });
        if (Iterables > 1)
          return reject(N, "unparenthesized tuple as a comprehension's iterable");
      }
      return true;
    }
    if (K == G.AsPattern && F.ParentKind != X.CasePattern) {
      // (`case [a, *b] as c:` binds a capture pattern: not an expression.)
      bool InExcept = F.ParentKind == G.Except || F.ParentKind == G.ExceptGroup;
      if (F.ParentKind != G.WithItem && !InExcept && !nestedInWithItem(N))
        return reject(N, "'as' outside a with item or an except clause");
      SyntaxNode Target = firstChildOf(fieldOf(N, G.FAlias));
      if (InExcept ? !isName(kindOf(Target)) : !assignable(Target, false))
        return reject(fieldOf(N, G.FAlias), "cannot assign to this 'as' target");
      return true;
    }
    if (K == G.Except && !isNull(fieldOf(N, G.FAlias))) {
      // `except E, e:` (Python 2); tree-sitter reads `except E as e:` as an
      // as_pattern, so an alias field comes only with the comma.
      return reject(N, "multiple exception types must be parenthesized");
    }
    if (K == G.Delete) {
      bool Ok = true;
      eachChild(N, true, [&](SyntaxNode T, TSFieldId) {
        if (Ok && !assignable(T, /*Del=*/true))
          Ok = reject(T, "cannot delete this expression");
      });
      return Ok;
    }
    if (K == G.ExprStmt) {
      bool Ok = true;
      eachChild(N, true, [&](SyntaxNode C, TSFieldId) {
        if (Ok && kindOf(C) == G.NamedExpr)
          Ok = reject(C, "unparenthesized assignment expression");
      });
      return Ok;
    }
    if (K == G.ArgumentList)
      return checkArguments(N);
    // `*x` stands only among the elements of a display, a tuple or an
    // argument list (and in a subscript, a parameter, an annotation); the
    // grammar reads it as an operand anywhere (`y = *x`, `a + *b`,
    // `for k in *keys:`, `(*x)`, `[*x for x in y]`).
    if (K == G.ListSplat && !starredAllowed(N))
      return reject(N, "a starred expression where none is allowed");
    if (K == G.ImportFrom || K == G.FutureImport)
      return checkImportedNames(N);
    // `a: b: c`: a type with a bound is a type parameter's (`[T: int]`,
    // also a slice in a subscript, `x: a[i:j]`), never an annotation.
    if (K == X.ConstrainedType &&
        kindOf(parentNode(parentNode(N))) != X.TypeParameter) {
      SyntaxNode Colon = tokenIn(N, ":");
      return reject(isNull(Colon) ? N : Colon, "a ':' inside an annotation");
    }
    if (K == G.Parameters || K == X.LambdaParameters)
      return checkParameters(N);
    if (K == G.Identifier && hardKeyword(textOf(N, Src)))
      return reject(N, "a keyword as a name");
    if (K == G.Integer)
      return checkInteger(N);
    if (K == X.Float)
      return checkUnderscores(N);
    if (K == G.String)
      return checkStringPrefix(N);
    if (K == G.Interpolation)
      return checkConversion(N);
    if (K == G.Assert) {
      // `assert test, message`: the grammar takes any number of operands.
      // (Counted by their commas: comments and backslash continuations are
      // named children too.)
      int Commas = 0;
      SyntaxNode Second{};
      eachChild(N, false, [&](SyntaxNode C, TSFieldId) {
        if (!isNamed(C) && textOf(C, Src) == "," && ++Commas == 2)
          Second = C;
      });
      return isNull(Second) ? true : reject(Second, "an assert takes a test and one message");
    }
    if (K == G.Raise && kindOf(firstChildOf(N)) == G.ExpressionList)
      return reject(N, "Python 2 raise with a comma");
    if (K == G.Comparison) {
      SyntaxNode Diamond = tokenIn(N, "<>");
      // (`from __future__ import barry_as_FLUFL` makes it Python 3.)
      if (!isNull(Diamond) && Src.find("barry_as_FLUFL") == std::string_view::npos)
        return reject(Diamond, "Python 2 '<>' operator");
      return true;
    }
    if (K == G.Return && F.S != Scope::Function)
      return reject(N, "'return' outside function");
    if (K == G.Yield && F.S != Scope::Function)
      return reject(N, "'yield' outside function");
    if (K == X.Nonlocal && F.S == Scope::Module)
      return reject(N, "nonlocal declaration not allowed at module level");
    return true;
  }
};

} // namespace

bool tether::python::acceptedByCPython(
    SyntaxNode Root, std::string_view Src, std::string &Problem,
    std::unordered_set<const void *> *TooDeep) {
  Validator V(Src);
  if (V.run(Root, TooDeep))
    return true;
  TSPoint P = V.AtEnd ? endPoint(V.At) : startPoint(V.At);
  Problem = "syntax error at line " + std::to_string(P.row + 1) + ", column " +
            std::to_string(P.column + 1) + " (" + V.Why + "); not analysed";
  return false;
}
