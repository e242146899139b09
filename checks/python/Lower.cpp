//===- Lower.cpp - Package-level lowering: types, parameters, functions ---===//
#include "LowerImpl.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ThreadPool.h"
#include <atomic>
#include <cstring>

using namespace tether;
using namespace tether::python;
using engine::ClassId;
using engine::VarId;

const LowerSyntax &LowerSyntax::get() {
  static const LowerSyntax S = [] {
    const TSLanguage *Lang = Grammar::get().Lang;
    auto Sym = [&](const char *Name) {
      return ts_language_symbol_for_name(Lang, Name, (uint32_t)std::strlen(Name),
                                         /*is_named=*/true);
    };
    LowerSyntax X;
    X.BinaryOp = Sym("binary_operator");
    X.UnaryOp = Sym("unary_operator");
    X.GenericType = Sym("generic_type");
    X.UnionType = Sym("union_type");
    X.MemberType = Sym("member_type");
    X.TypeParam = Sym("type_parameter");
    X.Float = Sym("float");
    X.Ellipsis = Sym("ellipsis");
    X.Nonlocal = Sym("nonlocal_statement");
    X.KeywordSeparator = Sym("keyword_separator");
    X.PositionalSeparator = Sym("positional_separator");
    X.ConcatenatedString = Sym("concatenated_string");
    X.Pass = Sym("pass_statement");
    X.Set = Sym("set");
    X.FReturnType = ts_language_field_id_for_name(Lang, "return_type", 11);
    return X;
  }();
  return S;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

std::vector<ParamDecl> tether::python::paramDecls(SyntaxNode Params,
                                                  std::string_view Src) {
  // One entry for each entry Package's collectParams makes, in order, so
  // that parameter i of the lowered function is Function::Params[i].
  const Grammar &G = Grammar::get();
  std::vector<ParamDecl> Out;
  eachChild(Params, true, [&](SyntaxNode P, TSFieldId) {
    TSSymbol S = kindOf(P);
    ParamDecl D;
    if (S == G.Identifier) {
      D.Name = std::string(textOf(P, Src));
    } else if (S == G.DefaultParam || S == G.TypedDefaultParam) {
      D.Name = std::string(textOf(fieldOf(P, G.FName), Src));
      if (S == G.TypedDefaultParam)
        D.Type = fieldOf(P, G.FType);
    } else if (S == G.TypedParam) {
      SyntaxNode In = firstChildOf(P);
      D.Name = std::string(textOf(In, Src));
      if (kindOf(In) != G.Identifier) // *args: T, **kw: T
        D.Name = "*" + std::string(textOf(firstChildOf(In), Src));
      else
        D.Type = fieldOf(P, G.FType);
    } else if (S == G.ListSplatPattern || S == G.DictSplatPattern) {
      D.Name = std::string(textOf(P, Src));
    } else if (S != G.Comment && textOf(P, Src) == "*") {
      D.Name = "*";
    } else {
      return;
    }
    if (D.Name.empty())
      D.Name = "*";
    Out.push_back(std::move(D));
  });
  return Out;
}

bool tether::python::hasDecorator(SyntaxNode Decorated, std::string_view Src,
                                  llvm::StringRef Name) {
  const Grammar &G = Grammar::get();
  bool Found = false;
  eachChild(Decorated, true, [&](SyntaxNode D, TSFieldId) {
    if (kindOf(D) == G.Decorator &&
        llvm::StringRef(keyOf(firstChildOf(D), Src)).ends_with(Name))
      Found = true;
  });
  return Found;
}

//===----------------------------------------------------------------------===//
// Types the code states
//===----------------------------------------------------------------------===//

namespace {

/// Split S at top-level occurrences of Sep (outside brackets and quotes).
std::vector<llvm::StringRef> splitTop(llvm::StringRef S, char Sep) {
  std::vector<llvm::StringRef> Out;
  int Depth = 0;
  char Quote = 0;
  size_t Start = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (Quote) {
      if (C == Quote)
        Quote = 0;
    } else if (C == '"' || C == '\'') {
      Quote = C;
    } else if (C == '[' || C == '(') {
      ++Depth;
    } else if (C == ']' || C == ')') {
      --Depth;
    } else if (C == Sep && Depth == 0) {
      Out.push_back(S.slice(Start, I).trim());
      Start = I + 1;
    }
  }
  Out.push_back(S.substr(Start).trim());
  return Out;
}

bool isDotted(llvm::StringRef S) {
  if (S.empty())
    return false;
  for (char C : S)
    if (!(isalnum((unsigned char)C) || C == '_' || C == '.'))
      return false;
  return true;
}

enum class Wrapper { None, Optional, Elements, Values };

Wrapper wrapperOf(llvm::StringRef Head) {
  llvm::StringRef Last = Head.rsplit('.').second;
  if (Last.empty())
    Last = Head;
  return llvm::StringSwitch<Wrapper>(Last)
      .Cases({"Optional", "Union", "Annotated", "ClassVar", "Final",
              "Required", "NotRequired", "ReadOnly"},
             Wrapper::Optional)
      .Cases({"list", "List", "Sequence", "MutableSequence", "Iterable",
              "Iterator", "Collection", "tuple", "Tuple", "set", "Set",
              "frozenset", "FrozenSet", "deque", "Deque", "AbstractSet"},
             Wrapper::Elements)
      .Cases({"dict", "Dict", "Mapping", "MutableMapping", "defaultdict",
              "DefaultDict", "OrderedDict"},
             Wrapper::Values)
      .Default(Wrapper::None);
}

} // namespace

ClassId TypeTable::classOf(
    int Mod, const std::string &Dotted,
    const std::unordered_map<std::string, std::string> *LocalImports) const {
  Resolved R = P.resolve(Mod, Dotted, LocalImports);
  return R.Kind == Resolved::Class ? R.Index : -1;
}

TypeInfo TypeTable::annotation(
    int Mod, SyntaxNode Ann,
    const std::unordered_map<std::string, std::string> *LocalImports) const {
  if (isNull(Ann))
    return {};
  // Read from the spelling: `Optional[C]`, `"C"`, `C | None`, `list[C]`
  // are the same text whether the grammar made a type, a subscript, a
  // string or a union of them. Depth is bounded: the text is the node's.
  std::string Text = keyOf(Ann, P.Modules[Mod]->Source);
  std::vector<std::pair<llvm::StringRef, bool>> Work; // (text, as element)
  TypeInfo Out;
  Work.push_back({Text, false});
  size_t Steps = 0;
  while (!Work.empty() && ++Steps < 64) {
    auto [S, AsElem] = Work.back();
    Work.pop_back();
    if (S.size() >= 2 && (S.front() == '"' || S.front() == '\'') &&
        S.back() == S.front())
      S = S.drop_front().drop_back().trim();
    std::vector<llvm::StringRef> Alts = splitTop(S, '|');
    if (Alts.size() > 1) {
      for (auto It = Alts.rbegin(); It != Alts.rend(); ++It)
        if (*It != "None")
          Work.push_back({*It, AsElem});
      continue;
    }
    ClassId Found = -1;
    if (S.ends_with("]") && S.contains('[')) {
      size_t Open = S.find('[');
      llvm::StringRef Head = S.take_front(Open).trim();
      std::vector<llvm::StringRef> Args =
          splitTop(S.slice(Open + 1, S.size() - 1), ',');
      switch (wrapperOf(Head)) {
      case Wrapper::Optional:
        for (auto It = Args.rbegin(); It != Args.rend(); ++It)
          if (*It != "None")
            Work.push_back({*It, AsElem});
        continue;
      case Wrapper::Elements:
        if (!AsElem && !Args.empty())
          Work.push_back({Args[0], true});
        continue;
      case Wrapper::Values:
        if (!AsElem && Args.size() == 2)
          Work.push_back({Args[1], true});
        continue;
      case Wrapper::None:
        if (isDotted(Head))
          Found = classOf(Mod, Head.str(), LocalImports);
        break;
      }
    } else if (isDotted(S)) {
      Found = classOf(Mod, S.str(), LocalImports);
    }
    if (Found < 0)
      continue;
    if (AsElem && Out.Elem < 0)
      Out.Elem = Found;
    else if (!AsElem && Out.Cls < 0)
      Out.Cls = Found;
    if (Out.Cls >= 0 || Out.Elem >= 0)
      break;
  }
  return Out;
}

TypeInfo TypeTable::attr(ClassId C, const std::string &Name) const {
  std::vector<ClassId> Work{C};
  std::unordered_set<ClassId> Seen;
  while (!Work.empty()) {
    ClassId K = Work.back();
    Work.pop_back();
    if (K < 0 || size_t(K) >= T->Attrs.size() || !Seen.insert(K).second)
      continue;
    auto It = T->Attrs[K].find(Name);
    if (It != T->Attrs[K].end())
      return It->second;
    const std::vector<int> &Bs = P.Classes[K].Bases;
    for (auto B = Bs.rbegin(); B != Bs.rend(); ++B)
      Work.push_back(*B);
  }
  return {};
}

bool TypeTable::isClassMethod(engine::FnId F) const {
  return F >= 0 && size_t(F) < T->ClassMethods.size() && T->ClassMethods[F];
}

TypeInfo TypeTable::global(const std::string &Qual) const {
  auto It = T->Globals.find(Qual);
  return It == T->Globals.end() ? TypeInfo() : It->second;
}

TypeInfo TypeTable::returns(engine::FnId F) const {
  return F >= 0 && size_t(F) < T->Returns.size() ? T->Returns[F] : TypeInfo();
}

void TypeTable::build(llvm::ThreadPoolInterface *Pool) {
  if (Handed)
    return;
  PackageTypes &Out = *T;
  Out = PackageTypes();
  Out.Attrs.assign(P.Classes.size(), {});
  Out.Returns.assign(P.Functions.size(), {});
  Out.ClassMethods.assign(P.Functions.size(), 0);
  // Each piece writes only its own slots (a class's attributes, its
  // methods' flags, a function's return, a module's globals), and reads
  // the package, which is complete; the globals are merged in module
  // order, so the first assignment wins as it would on one thread.
  std::vector<std::vector<std::pair<std::string, TypeInfo>>> ModGlobals(
      P.Modules.size());
  auto ReadReturn = [&](size_t F) {
    const Function &Fn = P.Functions[F];
    if (Fn.ModuleBody || Fn.TooDeep || Fn.Mod < 0)
      return;
    Out.Returns[F] = annotation(Fn.Mod, fieldOf(Fn.Node, LowerSyntax::get().FReturnType));
  };
  auto Each = [&](size_t N, auto Do) {
    constexpr size_t Chunk = 64;
    if (!Pool) {
      for (size_t I = 0; I < N; ++I)
        Do(I);
      return;
    }
    // By value: the tasks run after this call has returned.
    for (size_t Begin = 0; Begin < N; Begin += Chunk)
      Pool->async([Begin, End = std::min(Begin + Chunk, N), Do] {
        for (size_t I = Begin; I < End; ++I)
          Do(I);
      });
  };
  Each(P.Classes.size(), [&](size_t C) { readClass(ClassId(C)); });
  Each(P.Modules.size(), [&](size_t M) {
    if (P.Modules[M]->Tree)
      readModule(int(M), ModGlobals[M]);
  });
  Each(P.Functions.size(), ReadReturn);
  if (Pool)
    Pool->wait();
  for (auto &Found : ModGlobals)
    for (auto &[Name, Type] : Found)
      Out.Globals.emplace(std::move(Name), Type);
}

/// Whether Body's text may assign an attribute of Self (`self.x = ...`,
/// `self.x: T`): Self, a dot and a name, each maybe spaced, then `=` (not
/// `==`) or `:`. A line continuation anywhere in between counts as maybe.
/// Most methods only read their attributes; their bodies are not walked.
static bool mayAssignAttribute(std::string_view Body, std::string_view Self) {
  auto Blanks = [&](size_t &I) {
    while (I < Body.size() && (Body[I] == ' ' || Body[I] == '\t'))
      ++I;
    return I < Body.size() && Body[I] == '\\'; // a continuation: maybe
  };
  for (size_t At = Body.find(Self); At != std::string_view::npos;
       At = Body.find(Self, At + 1)) {
    if (At > 0 && isIdentChar(Body[At - 1]))
      continue;
    size_t I = At + Self.size();
    if (Blanks(I))
      return true;
    if (I >= Body.size() || Body[I] != '.')
      continue;
    ++I;
    if (Blanks(I))
      return true;
    size_t Name = I;
    while (I < Body.size() && isIdentChar(Body[I]))
      ++I;
    if (I == Name)
      continue;
    if (Blanks(I))
      return true;
    if (I < Body.size() &&
        ((Body[I] == '=' && (I + 1 >= Body.size() || Body[I + 1] != '=')) ||
         Body[I] == ':'))
      return true;
  }
  return false;
}

void TypeTable::readClass(ClassId C) {
  const Grammar &G = Grammar::get();
  const Class &Cl = P.Classes[C];
  const Module &M = *P.Modules[Cl.Mod];
  std::string_view Src = M.Source;
  auto &Out = T->Attrs[C];
  eachChild(fieldOf(Cl.Node, G.FBody), true, [&](SyntaxNode S, TSFieldId) {
    // @classmethod: read here, from the class body (asking a node for its
    // parent walks down from the root, per call).
    if (kindOf(S) == G.DecoratedDef) {
      if (!hasDecorator(S, Src, "classmethod"))
        return;
      auto It = Cl.Methods.find(std::string(
          textOf(fieldOf(fieldOf(S, G.FDefinition), G.FName), Src)));
      if (It != Cl.Methods.end() && P.Functions[It->second].BoundMethod)
        T->ClassMethods[It->second] = true;
      return;
    }
    // Class-level annotations: `cache: OutputCache`, dataclass fields.
    if (kindOf(S) != G.ExprStmt)
      return;
    SyntaxNode A = firstChildOf(S);
    if (kindOf(A) != G.Assignment || kindOf(fieldOf(A, G.FLeft)) != G.Identifier)
      return;
    TypeInfo T = annotation(Cl.Mod, fieldOf(A, G.FType));
    if (!T.empty())
      Out.emplace(std::string(textOf(fieldOf(A, G.FLeft), Src)), T);
  });
  // `self.x: C = ...` in any method; `self.x = C(...)` and `self.x = p`
  // (p an annotated parameter) in __init__.
  for (const auto &[MName, FIdx] : Cl.Methods) {
    const Function &F = P.Functions[FIdx];
    if (F.TooDeep || !F.BoundMethod || F.Params.empty())
      continue;
    const std::string &Self = F.Params[0];
    SyntaxNode Body = fieldOf(F.Node, G.FBody);
    if (!mayAssignAttribute(textOf(Body, Src), Self))
      continue;
    bool Init = MName == "__init__";
    std::unordered_map<std::string, TypeInfo> ParamTypes;
    if (Init)
      for (const ParamDecl &D : paramDecls(fieldOf(F.Node, G.FParameters), Src))
        if (!isNull(D.Type))
          ParamTypes.emplace(D.Name, annotation(Cl.Mod, D.Type));
    // The names paramDecls would give (Params holds them in its order;
    // splats are "*", never an identifier).
    std::unordered_set<std::string> ParamNames;
    for (const std::string &Name : F.Params)
      if (Name != Self)
        ParamNames.insert(Name);
    preorder(Body, [&](SyntaxNode N) {
      TSSymbol K = kindOf(N);
      if (K == G.FunctionDef || K == G.ClassDef || K == G.Lambda)
        return false;
      // An assignment is a statement (or the right side of one, `a = b =
      // c`): the walk stays among statements and never enters an
      // expression, which would cost most of it.
      if (K != G.Assignment)
        return holdsStatements(K) || K == G.ExprStmt || K == G.Match ||
               K == G.CaseClause;
      SyntaxNode Lhs = fieldOf(N, G.FLeft);
      if (kindOf(Lhs) != G.Attribute ||
          textOf(fieldOf(Lhs, G.FObject), Src) != Self)
        return true;
      std::string Attr(textOf(fieldOf(Lhs, G.FAttribute), Src));
      TypeInfo T = annotation(Cl.Mod, fieldOf(N, G.FType));
      SyntaxNode R = stripParens(fieldOf(N, G.FRight));
      if (T.empty() && Init && !isNull(R)) {
        SyntaxNode Made = R;
        bool Elem = false;
        if (kindOf(R) == G.ListComp)
          Made = stripParens(fieldOf(R, G.FBody)), Elem = true;
        if (kindOf(Made) == G.Call) {
          std::string D = dottedName(fieldOf(Made, G.FFunction), Src);
          ClassId K2 = D.empty() ? -1 : classOf(Cl.Mod, D, nullptr);
          (Elem ? T.Elem : T.Cls) = K2;
        } else if (kindOf(R) == G.Identifier) {
          auto It = ParamTypes.find(std::string(textOf(R, Src)));
          if (It != ParamTypes.end())
            T = It->second;
        }
      }
      // `self.ctx = ctx`: what the object was handed.
      T.Handed = T.Cls >= 0 && !isNull(R) &&
                 kindOf(R) == G.Identifier &&
                 ParamNames.count(std::string(textOf(R, Src)));
      if (!T.empty())
        Out.emplace(Attr, T); // the first statement wins: annotations first
      return true;
    });
  }
}

void TypeTable::readModule(
    int Mod, std::vector<std::pair<std::string, TypeInfo>> &Found) const {
  const Grammar &G = Grammar::get();
  const Module &M = *P.Modules[Mod];
  std::string_view Src = M.Source;
  eachChild(M.Tree->root(), true, [&](SyntaxNode S, TSFieldId) {
    if (kindOf(S) != G.ExprStmt)
      return;
    SyntaxNode A = firstChildOf(S);
    if (kindOf(A) != G.Assignment || kindOf(fieldOf(A, G.FLeft)) != G.Identifier)
      return;
    TypeInfo T = annotation(Mod, fieldOf(A, G.FType));
    SyntaxNode R = stripParens(fieldOf(A, G.FRight));
    if (T.empty() && kindOf(R) == G.Call) {
      std::string D = dottedName(fieldOf(R, G.FFunction), Src);
      if (!D.empty())
        T.Cls = classOf(Mod, D, nullptr);
    }
    if (!T.empty())
      Found.emplace_back(M.Name + "." + std::string(textOf(fieldOf(A, G.FLeft), Src)), T);
  });
}

//===----------------------------------------------------------------------===//
// One function
//===----------------------------------------------------------------------===//

FnLowerer::FnLowerer(Package &P, const TypeTable &Types, engine::Program &Prog,
                     engine::FnId Fn)
    : P(P), Types(Types), Prog(Prog), FnIdx(Fn), Fn(P.Functions[Fn]),
      Out(Prog.Functions[Fn]), B(Out), Mod(this->Fn.Mod), M(*P.Modules[Mod]),
      Src(M.Source), Cat(*M.Cat), FnIsModule(this->Fn.ModuleBody) {}

engine::SrcLoc FnLowerer::loc(SyntaxNode N) const {
  engine::SrcLoc L;
  if (isNull(N))
    return L;
  TSPoint Pt = startPoint(N);
  L.File = uint32_t(Mod);
  L.Line = Pt.row + 1;
  L.Col = Pt.column + 1;
  return L;
}

engine::SrcLoc FnLowerer::endLoc(SyntaxNode N) const {
  engine::SrcLoc L;
  if (isNull(N))
    return L;
  TSPoint Pt = endPoint(N);
  L.File = uint32_t(Mod);
  L.Line = Pt.row + 1;
  L.Col = Pt.column + 1;
  return L;
}

VarId FnLowerer::newVar(std::string Name) {
  VarId V = B.var(std::move(Name));
  Info.emplace_back();
  return V;
}

VarId FnLowerer::constant(SyntaxNode At) {
  VarId V = temp();
  emit(engine::Op::Const, At).Dst = V;
  return V;
}

engine::Inst &FnLowerer::test(engine::TestKind K, VarId A, SyntaxNode N,
                              VarId &Dst, llvm::StringRef Name) {
  Dst = temp();
  info(Dst).Truth = true;
  engine::Inst &I = emit(engine::Op::Test, N);
  I.Dst = Dst;
  I.A = A;
  I.Test = K;
  I.Name = Name.str();
  return I;
}

VarId FnLowerer::aliasOf(VarId From, SyntaxNode At) {
  VarId V = temp();
  copyTo(V, From, At);
  return V;
}

void FnLowerer::addClass(VarId V, TypeInfo T) {
  if (T.Cls >= 0)
    addUnique(info(V).Cls, T.Cls);
  if (T.Elem >= 0)
    addUnique(info(V).Elem, T.Elem);
}

void FnLowerer::merge(VarId Into, VarId From) {
  if (Into == From || Into == engine::NoVar || From == engine::NoVar)
    return;
  VarInfo &F = info(From);
  if (F.Cls.empty() && F.Elem.empty() && F.Fns.empty() && F.ClassObj.empty() &&
      F.ElemFns.empty() && !F.CaptureContext && !F.Truth && !F.Tensor &&
      F.View == VarInfo::NoView)
    return;
  VarInfo Src2 = F; // a copy: its callables are moved into Into's
  VarInfo &I = info(Into);
  for (ClassId C : Src2.Cls)
    addUnique(I.Cls, C);
  for (ClassId C : Src2.Elem)
    addUnique(I.Elem, C);
  for (ClassId C : Src2.ClassObj)
    addUnique(I.ClassObj, C);
  for (FnRef &R : Src2.Fns)
    addCallable(I.Fns, std::move(R));
  for (FnRef &R : Src2.ElemFns)
    addCallable(I.ElemFns, std::move(R));
  if (Src2.CaptureContext) {
    I.CaptureContext = true;
    I.ContextGraph = Src2.ContextGraph;
  }
  I.Truth |= Src2.Truth;
  I.Tensor |= Src2.Tensor;
  if (Src2.View != VarInfo::NoView) {
    I.View = Src2.View;
    I.ViewOf = Src2.ViewOf;
  }
}

bool FnLowerer::isSelf(SyntaxNode N) const {
  N = stripParens(N);
  return SelfVar != engine::NoVar && kindOf(N) == G.Identifier &&
         textOf(N, Src) == std::string_view(Out.VarNames[SelfVar].str()) &&
         !GlobalDecl.count(text(N));
}

bool FnLowerer::workspaceName(const std::string &Name) const {
  std::string Lower = llvm::StringRef(Name).lower();
  size_t Dot = Lower.rfind('.');
  std::string Short = Dot == std::string::npos ? Lower : Lower.substr(Dot + 1);
  return !Short.empty() &&
         (Cat.WorkspaceNames.matches(Short) || Cat.WorkspaceNames.matches(Lower));
}

void FnLowerer::markWorkspace(VarId V, const std::string &BoundTo) {
  auto It = LastAlloc.find(V);
  if (It == LastAlloc.end() || !workspaceName(BoundTo))
    return;
  auto &Insts = Out.Blocks[It->second.first].Insts;
  if (It->second.second < Insts.size() &&
      Insts[It->second.second].Kind == engine::Op::Alloc &&
      Insts[It->second.second].Alloc == engine::AllocKind::Tensor)
    Insts[It->second.second].Alloc = engine::AllocKind::Workspace;
}

void FnLowerer::collectTargets(SyntaxNode T) {
  std::vector<SyntaxNode> Work{T};
  while (!Work.empty()) {
    SyntaxNode N = Work.back();
    Work.pop_back();
    TSSymbol K = kindOf(N);
    if (K == G.Identifier) {
      LocalNames.insert(text(N));
    } else if (K == G.PatternList || K == G.TuplePattern || K == G.ListPattern ||
               K == G.Tuple || K == G.List || K == G.ExpressionList ||
               K == G.Parenthesized || K == G.ListSplatPattern ||
               K == G.ListSplat) {
      eachChild(N, true, [&](SyntaxNode C, TSFieldId) { Work.push_back(C); });
    }
  }
}

void FnLowerer::collectLocals(SyntaxNode Body) {
  // A name bound anywhere in a function is local to all of it (Python's
  // rule), also where it is read before the binding (a loop's back edge).
  preorder(Body, [&](SyntaxNode N) {
    TSSymbol K = kindOf(N);
    if (K == G.FunctionDef || K == G.ClassDef) {
      LocalNames.insert(text(fieldOf(N, G.FName)));
      return false;
    }
    if (K == G.Lambda || K == G.ListComp || K == G.SetComp ||
        K == G.DictComp || K == G.GeneratorExpr)
      return false;
    if (K == G.Assignment || K == G.AugAssignment || K == G.For)
      collectTargets(fieldOf(N, G.FLeft));
    else if (K == G.NamedExpr)
      collectTargets(fieldOf(N, G.FName));
    else if (K == G.AsPatternTarget)
      collectTargets(firstChildOf(N));
    else if (K == G.Global)
      eachChild(N, true, [&](SyntaxNode X, TSFieldId) {
        if (kindOf(X) == G.Identifier)
          GlobalDecl.insert(text(X));
      });
    return true;
  });
}

void FnLowerer::run() {
  Out.Name = Fn.Class >= 0 && !FnIsModule
                 ? P.Classes[Fn.Class].Name + "." + Fn.Name
                 : Fn.Name;
  Out.QualName = Fn.QualName;
  Out.Class = FnIsModule ? -1 : Fn.Class;
  Out.ModuleBody = FnIsModule;
  SyntaxNode Body = FnIsModule ? Fn.Node : fieldOf(Fn.Node, G.FBody);
  Out.Loc = FnIsModule ? engine::SrcLoc{uint32_t(Mod), 1, 1} : loc(Fn.Node);
  SyntaxNode Last{};
  eachChild(Body, true, [&](SyntaxNode S, TSFieldId) {
    if (kindOf(S) != G.Comment)
      Last = S;
  });
  // Where the body falls off its end: the last statement, or, when that
  // holds statements (an if/elif chain, a loop, a with block), the end of
  // it: its start may be hundreds of lines above the path that returns.
  Out.EndLoc = isNull(Last)                   ? loc(Body)
               : holdsStatements(kindOf(Last)) ? endLoc(Last)
                                               : loc(Last);
  if (!Out.EndLoc.valid())
    Out.EndLoc = Out.Loc;
  if (!FnIsModule) {
    bool ClassMethod = Types.isClassMethod(FnIdx);
    std::vector<ParamDecl> Decls = paramDecls(fieldOf(Fn.Node, G.FParameters), Src);
    // Function::Params is the shape calls are mapped by: keep its count.
    Decls.resize(Fn.Params.size());
    for (size_t I = 0; I < Decls.size(); ++I) {
      std::string Name = Decls[I].Name.empty() ? Fn.Params[I] : Decls[I].Name;
      TypeInfo T;
      if (I == 0 && Fn.BoundMethod && !ClassMethod)
        T.Cls = Fn.Class;
      else if (!isNull(Decls[I].Type))
        T = Types.annotation(Mod, Decls[I].Type);
      VarId V = B.param(Name, T.Cls, T.Elem);
      Info.emplace_back();
      addClass(V, T);
      if (I == 0 && Fn.BoundMethod && ClassMethod && Fn.Class >= 0)
        info(V).ClassObj.push_back(Fn.Class);
      if (I == 0 && Fn.BoundMethod && !ClassMethod)
        SelfVar = V;
      std::string Bare = llvm::StringRef(Name).ltrim('*').str();
      if (!Bare.empty()) {
        Locals[Bare] = V;
        LocalNames.insert(Bare);
        ParamNames.insert(Bare);
      }
    }
  }
  if (Fn.TooDeep) { // Nesting.h: nothing below the parameters is read
    B.finish();
    return;
  }
  if (!FnIsModule)
    collectLocals(Body);
  block(Body);
  B.finish();
}

namespace {

/// A container's slot is spelled as the container in messages
/// ("'_graph_params.workspaces'", as in C++): drop the subscript.
void spellSlotsByContainer(engine::Function &F) {
  for (engine::Block &B : F.Blocks)
    for (engine::Inst &I : B.Insts) {
      llvm::StringRef S = I.P.Spelling;
      if (I.P.Kind != engine::PlaceRef::Element || S.empty() || S.back() != ']')
        continue;
      int Depth = 0;
      for (size_t K = S.size(); K-- > 0;) {
        Depth += S[K] == ']' ? 1 : S[K] == '[' ? -1 : 0;
        if (Depth == 0) {
          if (K > 0)
            I.P.Spelling = S.take_front(K);
          break;
        }
      }
    }
}

} // namespace

engine::Program tether::python::lowerPackage(Package &P,
                                             llvm::ThreadPoolInterface *Pool,
                                             const ReuseLowered &Reuse,
                                             std::shared_ptr<PackageTypes> *Types,
                                             const ModuleLowered &Done) {
  engine::Program Prog;
  for (const auto &M : P.Modules)
    Prog.Files.push_back(M->Path);
  for (const Class &C : P.Classes) {
    engine::Class EC;
    EC.Name = C.Name;
    EC.Bases.assign(C.Bases.begin(), C.Bases.end());
    Prog.Classes.push_back(std::move(EC));
  }
  TypeTable Table(P, Types ? *Types : nullptr);
  Table.build(Pool);
  if (Types)
    *Types = Table.facts();
  Prog.Functions.resize(P.Functions.size());
  P.ForeignBase = engine::FnId(P.Functions.size());
  // Functions of each module still to lower: a function reads no tree but
  // its own module's (the types above were read from the others first).
  std::unique_ptr<std::atomic<uint32_t>[]> Left;
  if (Done) {
    Left.reset(new std::atomic<uint32_t>[P.Modules.size()]());
    for (const Function &Fn : P.Functions)
      if (Fn.Mod >= 0)
        Left[Fn.Mod].fetch_add(1, std::memory_order_relaxed);
  }
  // Resolution, the class table and the types are only read from here on.
  auto LowerFn = [&](size_t F) {
    if (Reuse && Reuse(engine::FnId(F), Prog.Functions[F]))
      return;
    const Function &Fn = P.Functions[F];
    if (Fn.Mod < 0 || !P.Modules[Fn.Mod]->Tree || !P.Modules[Fn.Mod]->Cat) {
      engine::FunctionBuilder B(Prog.Functions[F]);
      Prog.Functions[F].Name = Fn.Name;
      Prog.Functions[F].QualName = Fn.QualName;
      B.finish();
      return;
    }
    FnLowerer(P, Table, Prog, engine::FnId(F)).run();
    spellSlotsByContainer(Prog.Functions[F]);
  };
  auto LowerOne = [&](size_t F) {
    LowerFn(F);
    int Mod = P.Functions[F].Mod;
    if (Left && Mod >= 0 && Left[Mod].fetch_sub(1, std::memory_order_acq_rel) == 1)
      Done(Mod);
  };
  if (!Pool) {
    for (size_t F = 0; F < P.Functions.size(); ++F)
      LowerOne(F);
  } else {
    constexpr size_t Chunk = 64; // functions per task: most are small
    for (size_t Begin = 0; Begin < P.Functions.size(); Begin += Chunk)
      Pool->async([&, Begin] {
        for (size_t F = Begin; F < std::min(Begin + Chunk, P.Functions.size());
             ++F)
          LowerOne(F);
      });
    Pool->wait();
  }
  if (P.Foreign)
    engine::append(Prog, P.Foreign->Code);
  return Prog;
}
