//===- Walker.cpp - Flow-sensitive walk of one function -------------------===//
#include "Walker.h"
#include "NodeAccess.h"
#include "common/Messages.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <set>

using namespace tether;
using namespace tether::python;

namespace {

/// What the walk knows about one value.
struct AVal {
  uint8_t Weak = 0; ///< 0 strong, 1 maybe a weak ref, 2 a weak ref.
  Pos WeakAt;       ///< The (first) conversion.
  /// That conversion happened inside another function (a helper that
  /// returns a weak ref of its argument), not written here.
  bool WeakViaHelper = false;
  int WeakOfParam = -1;
  std::string Holder; ///< The local that strongly holds the memory.
  bool Fresh = false; ///< Made here (an op's result), owned by locals only.
  int Param = -1;     ///< Is parameter i (not weakened).
  int Place = -1;     ///< Read from this place (whole or one slot).
  uint32_t PlB = 0, PlE = 0; ///< Bytes of the place's spelling here.
  bool Elem = false;
  bool ViaSelf = false;
  int NullPlace = -1; ///< A slot of this place, not checked for None.
  bool MaybeNone = false;
  Pos NoneAt;
  bool NoneLiteral = false;
  bool NoneDict = false; ///< A dict some of whose values are None.
  Pos NoneDictAt;
  bool Workspace = false, ExplicitSize = false;
  Pos SizedAt;
  int8_t PredT = 0, PredF = 0; ///< Capture predicate when true / false.
  Pos HolderDiesAt;
  int Instance = -1; ///< An instance of this in-tree class.
  int FuncRef = -1;
};

AVal joinVal(const AVal &A, const AVal &B) {
  AVal R = A;
  R.Weak = (A.Weak == 2 && B.Weak == 2) ? 2 : (A.Weak || B.Weak ? 1 : 0);
  if (!A.Weak) {
    R.WeakAt = B.WeakAt;
    R.WeakViaHelper = B.WeakViaHelper;
  }
  if (A.WeakOfParam != B.WeakOfParam)
    R.WeakOfParam = -1;
  if (A.Holder != B.Holder)
    R.Holder = A.Holder.empty() ? B.Holder : A.Holder;
  R.Fresh = A.Fresh && B.Fresh;
  if (A.Param != B.Param)
    R.Param = -1;
  if (A.Place != B.Place && A.Place < 0) {
    R.Place = B.Place;
    R.PlB = B.PlB;
    R.PlE = B.PlE;
  }
  R.NullPlace = A.NullPlace >= 0 ? A.NullPlace : B.NullPlace;
  R.MaybeNone = A.MaybeNone || B.MaybeNone;
  if (!A.MaybeNone)
    R.NoneAt = B.NoneAt;
  R.NoneLiteral = A.NoneLiteral && B.NoneLiteral;
  R.NoneDict = A.NoneDict || B.NoneDict;
  if (!A.NoneDict)
    R.NoneDictAt = B.NoneDictAt;
  R.Workspace = A.Workspace || B.Workspace;
  R.ExplicitSize = A.ExplicitSize || B.ExplicitSize;
  if (!A.ExplicitSize)
    R.SizedAt = B.SizedAt;
  R.PredT = A.PredT == B.PredT ? A.PredT : 0;
  R.PredF = A.PredF == B.PredF ? A.PredF : 0;
  if (!A.HolderDiesAt.valid())
    R.HolderDiesAt = B.HolderDiesAt;
  if (A.Instance != B.Instance)
    R.Instance = -1;
  if (A.FuncRef != B.FuncRef)
    R.FuncRef = -1;
  return R;
}

struct Env {
  std::unordered_map<std::string, AVal> Vars;
  /// Expressions checked not None; ordered, so that the checks of a name
  /// and its attributes and slots are one range (see assignName).
  std::set<std::string> NotNone;
  std::vector<int> Empty; ///< Places whose slot is known empty here.
  Ctx C;
  bool Dead = false;
};

Env joinEnv(const Env &A, const Env &B, const Ctx &Fallback) {
  if (A.Dead)
    return B;
  if (B.Dead)
    return A;
  Env R;
  for (const auto &[K, V] : A.Vars) {
    auto It = B.Vars.find(K);
    if (It != B.Vars.end()) {
      R.Vars.emplace(K, joinVal(V, It->second));
    } else {
      AVal D = V;
      D.Weak = D.Weak ? 1 : 0;
      R.Vars.emplace(K, D);
    }
  }
  for (const auto &[K, V] : B.Vars)
    if (!A.Vars.count(K)) {
      AVal D = V;
      D.Weak = D.Weak ? 1 : 0;
      R.Vars.emplace(K, D);
    }
  for (const std::string &K : A.NotNone)
    if (B.NotNone.count(K))
      R.NotNone.insert(K);
  for (int P : A.Empty)
    if (std::find(B.Empty.begin(), B.Empty.end(), P) != B.Empty.end())
      R.Empty.push_back(P);
  R.C = A.C == B.C ? A.C : Fallback;
  return R;
}

/// The variables of several branches joined as nested joinEnv calls would
/// join them (a variable some branch lacks is at most "maybe weak"), in
/// time proportional to the branches' sizes: each branch is folded into
/// one accumulated map, and the lacking ones are found by counting.
class JoinedVars {
public:
  /// Fold in one more live branch; Priority: it comes before (is joined
  /// as the left side of) those added so far.
  void add(std::unordered_map<std::string, AVal> &&Vars, bool Priority) {
    ++Branches;
    for (auto &[K, V] : Vars) {
      auto [It, New] = Acc.try_emplace(K, Entry{});
      if (New) {
        It->second.V = std::move(V);
      } else {
        It->second.V = Priority ? joinVal(V, It->second.V)
                                : joinVal(It->second.V, V);
      }
      ++It->second.Seen;
    }
  }
  std::unordered_map<std::string, AVal> finish() {
    std::unordered_map<std::string, AVal> Out;
    Out.reserve(Acc.size());
    for (auto &[K, En] : Acc) {
      if (En.Seen < Branches)
        En.V.Weak = En.V.Weak ? 1 : 0;
      Out.emplace(K, std::move(En.V));
    }
    return Out;
  }

private:
  struct Entry {
    AVal V;
    unsigned Seen = 0;
  };
  std::unordered_map<std::string, Entry> Acc;
  unsigned Branches = 0;
};

/// What a condition tells when it is true / false.
struct Cond {
  int8_t PredT = 0, PredF = 0;
  std::vector<std::string> NotNoneT, NotNoneF;
  std::vector<int> EmptyT, EmptyF;
  std::vector<std::string> SizeVars;
};

template <typename T> std::vector<T> unite(std::vector<T> A, const std::vector<T> &B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}
template <typename T> std::vector<T> meet(const std::vector<T> &A, const std::vector<T> &B) {
  std::vector<T> R;
  for (const T &X : A)
    if (std::find(B.begin(), B.end(), X) != B.end())
      R.push_back(X);
  return R;
}

bool isNonOpBuiltin(llvm::StringRef N) {
  return llvm::StringSwitch<bool>(N)
      .Cases({"len", "isinstance", "issubclass", "print", "getattr", "setattr",
              "hasattr", "id", "type", "str", "int", "float", "bool", "repr",
              "range", "enumerate", "zip", "list", "tuple", "dict", "set",
              "frozenset", "sorted", "reversed", "min", "max", "sum", "any",
              "all", "iter", "next", "hash", "format", "super", "callable",
              "vars", "abs", "round", "map", "filter", "divmod", "delattr"},
             true)
      .Default(false);
}

bool isContainerMethod(llvm::StringRef N) {
  return llvm::StringSwitch<bool>(N)
      .Cases({"append", "extend", "insert", "add", "get", "setdefault", "pop",
              "popitem", "update", "items", "keys", "values", "clear",
              "remove", "discard", "copy", "index", "count", "__getitem__",
              "__setitem__"},
             true)
      .Default(false);
}

// Builtins whose result holds the argument's elements: iterating
// list(P.items()) visits P's slots as P.items() does.
bool isElementCopy(llvm::StringRef N) {
  return N == "list" || N == "tuple" || N == "sorted" || N == "reversed";
}

// Builtin container types whose methods may be called unbound, the receiver
// passed first: dict.items(P), dict.__setitem__(P, k, v).
bool isContainerType(llvm::StringRef N) {
  return N == "dict" || N == "list" || N == "set";
}

bool isAllocation(llvm::StringRef Last) {
  return llvm::StringSwitch<bool>(Last)
      .Cases({"empty", "zeros", "ones", "full", "empty_strided", "new_empty",
              "new_zeros", "new_ones", "new_full"},
             true)
      .Default(false);
}

class FnWalker {
public:
  FnWalker(Package &P, int FnIdx, Summary &Sum, Facts &Out)
      : P(P), FnIdx(FnIdx), Mod(P.Functions[FnIdx].Mod), M(*P.Modules[Mod]),
        Src(M.Source), Cat(*M.Cat), OutSum(Sum), OutFacts(Out) {}

  void run();

private:
  Package &P;
  int FnIdx;
  int Mod;
  Module &M;
  std::string_view Src;
  const CompiledCatalog &Cat;
  const Grammar &G = Grammar::get();
  Summary &OutSum;  ///< What this walk finds (the published one is read
  Facts &OutFacts;  ///< at recursive calls).
  Env E;
  std::string SelfName;
  std::unordered_map<std::string, std::string> LocalImports;
  std::unordered_set<std::string> GlobalDecl;
  std::unordered_set<std::string> SizeChecked;
  std::vector<std::pair<size_t, std::string>> OpenStores;
  /// OpenStores by holder, for kill().
  std::unordered_map<std::string, std::vector<size_t>> OpenStoresOf;
  /// For each strong holder, the locals ever bound to a weak reference of
  /// its memory (kill() checks they still are).
  std::unordered_map<std::string, std::unordered_set<std::string>> WeakAliases;
  // Return summary.
  int RetWeakParam = -1;
  bool RetOther = false;
  int RetPlace = -1;
  bool RetPlaceMixed = false;
  bool RetWorkspace = false;

  const Function &fn() const { return P.Functions[FnIdx]; }
  Facts &facts() { return OutFacts; }
  Summary &sum() { return OutSum; }
  /// The place's spelling where V read it ("" when unknown).
  std::string spelling(const AVal &V) const {
    if (V.PlE <= V.PlB || V.PlE > Src.size())
      return {};
    std::string Out;
    for (char C : Src.substr(V.PlB, V.PlE - V.PlB))
      if (C != ' ' && C != '\t' && C != '\n' && C != '\r' && C != '\\')
        Out.push_back(C);
    return Out;
  }
  void spellAt(AVal &V, TSNode N) const {
    N = stripParens(N);
    if (isNull(N))
      return;
    V.PlB = ts_node_start_byte(N);
    V.PlE = ts_node_end_byte(N);
  }
  void spellAs(AVal &V, const AVal &From) const {
    V.PlB = From.PlB;
    V.PlE = From.PlE;
  }
  Pos pos(TSNode N) const { return P.pos(Mod, N); }
  TSSymbol kind(TSNode N) const { return kindOf(N); }
  std::string text(TSNode N) const { return std::string(textOf(N, Src)); }
  bool isNull(TSNode N) const { return ts_node_is_null(N); }

  ParamEffect &param(int I) {
    if ((int)sum().Params.size() <= I)
      sum().Params.resize(I + 1);
    return sum().Params[I];
  }

  // --- statements -----------------------------------------------------
  void walkBlock(TSNode Block);
  void walkStmt(TSNode S, TSNode Next);
  void walkIfChain(TSNode If);
  void walkFor(TSNode S);
  void walkWhile(TSNode S);
  void walkTry(TSNode S);
  void walkWith(TSNode S, TSNode Next);
  void walkReturn(TSNode S);
  void walkDelete(TSNode S);
  void walkImport(TSNode S);
  Ctx branchCtx(const Ctx &Base, int8_t Pred, TSNode At);

  // --- expressions ----------------------------------------------------
  AVal eval(TSNode N);
  AVal evalName(TSNode N);
  AVal evalAttribute(TSNode N);
  AVal evalSubscript(TSNode N);
  AVal evalCallChain(TSNode N);
  /// CalleeDone: N's callee expression (a call) was evaluated already.
  AVal evalCall(TSNode N, bool CalleeDone = false);
  AVal evalComprehension(TSNode N);
  Cond evalCond(TSNode N);
  void applyCond(const Cond &C, bool Truth);

  // --- effects --------------------------------------------------------
  void assign(TSNode Target, const AVal &V, TSNode ValueNode);
  void assignName(const std::string &Name, AVal V, TSNode At);
  void bindIter(TSNode Target, TSNode Iter, const AVal &IterV);
  void kill(const std::string &Name, Pos At);
  void storePlace(int Place, const std::string &Name, const AVal &V, Pos At,
                  bool Whole, bool Shared, int Helper = -1,
                  Pos HelperAt = Pos());
  void clearPlace(int Place, const std::string &Name, Pos At, bool Shared);
  AVal convert(const AVal &Arg, TSNode ArgNode, Pos At, int Helper,
               Pos HelperAt, bool Report, TSNode CallNode);
  void useInOp(const AVal &V, TSNode ArgNode);
  bool guarded(TSNode N) const {
    return E.NotNone.count(keyOf(N, Src)) != 0;
  }
  bool isWorkspacePlace(int Place) const {
    std::string Name = llvm::StringRef(P.Places[Place].Name).lower();
    std::string Short = Name.substr(Name.rfind('.') + 1);
    return Cat.WorkspaceNames.matches(Short) || Cat.WorkspaceNames.matches(Name);
  }
  int attrPlace(TSNode Obj, const std::string &Attr, const AVal &ObjV,
                bool &ViaSelf);
  Resolved resolveDotted(const std::string &D) {
    return P.resolve(Mod, D, LocalImports.empty() ? nullptr : &LocalImports);
  }
  bool isLocal(const std::string &Name) const {
    return E.Vars.count(Name) != 0 && !GlobalDecl.count(Name);
  }
  void report(const char *Check, const std::string &Message, Pos At,
              std::vector<Note> Notes, std::vector<FixIt> Fixes = {}) {
    Finding F;
    F.Check = Check;
    F.Loc = P.loc(At);
    F.Message = Message;
    F.Notes = std::move(Notes);
    F.Fixes = std::move(Fixes);
    facts().Findings.push_back(std::move(F));
  }
  Note note(Pos At, std::string Msg) const { return Note{P.loc(At), std::move(Msg)}; }
};

std::string fill(const char *Fmt, const std::string &A0,
                 const std::string &A1 = "") {
  std::string S = Fmt;
  size_t I;
  while ((I = S.find("%0")) != std::string::npos)
    S.replace(I, 2, A0);
  while ((I = S.find("%1")) != std::string::npos)
    S.replace(I, 2, A1);
  return S;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void FnWalker::run() {
  const Function &F = fn();
  TSNode Body = F.ModuleBody ? F.Node : fieldOf(F.Node, G.FBody);
  if (!F.ModuleBody) {
    for (size_t I = 0; I < F.Params.size(); ++I) {
      if (F.Params[I] == "*")
        continue;
      AVal V;
      if (I == 0 && F.BoundMethod) {
        SelfName = F.Params[0];
        if (F.Class >= 0)
          V.Instance = F.Class;
      } else {
        V.Param = (int)I;
      }
      E.Vars[F.Params[I]] = V;
    }
    for (const auto &[Name, Idx] : F.Nested) {
      AVal V;
      V.FuncRef = Idx;
      E.Vars[Name] = V;
    }
  }
  // Where locals die: the function's last statement.
  TSNode Last{};
  eachChild(Body, true, [&](TSNode S, TSFieldId) {
    if (kind(S) != G.Comment)
      Last = S;
  });
  facts().End = isNull(Last) ? pos(Body) : pos(Last);
  walkBlock(Body);
  for (PlaceUseFact &U : facts().Uses)
    if (!U.Var.empty() && SizeChecked.count(U.Var))
      U.SizeChecked = true;
  Summary &S = sum();
  if (RetWeakParam >= 0 && !RetOther)
    S.ReturnsWeakOf = RetWeakParam;
  if (RetPlace >= 0 && !RetPlaceMixed)
    S.ReturnsPlace = RetPlace;
  S.ReturnsWorkspace = RetWorkspace;
}

void FnWalker::walkBlock(TSNode Block) {
  std::vector<TSNode> Stmts;
  eachChild(Block, true, [&](TSNode S, TSFieldId) {
    if (kind(S) != G.Comment)
      Stmts.push_back(S);
  });
  for (size_t I = 0; I < Stmts.size(); ++I) {
    if (E.Dead)
      return;
    walkStmt(Stmts[I], I + 1 < Stmts.size() ? Stmts[I + 1] : TSNode{});
  }
}

Ctx FnWalker::branchCtx(const Ctx &Base, int8_t Pred, TSNode At) {
  Ctx C = Base;
  if (Pred > 0) {
    if (Base.Region < 0 || Base.Excluded) {
      Region R;
      R.Kind = Region::Predicate;
      R.Begin = pos(At);
      facts().Regions.push_back(R);
      C.Region = (int)facts().Regions.size() - 1;
    }
    C.Excluded = false;
  } else if (Pred < 0) {
    C.Excluded = true;
  }
  return C;
}

void FnWalker::walkStmt(TSNode S, TSNode Next) {
  TSSymbol K = kind(S);
  if (K == G.ExprStmt) {
    eachChild(S, true, [&](TSNode X, TSFieldId) {
      if (kind(X) == G.Comment)
        return;
      if (kind(X) == G.Assignment || kind(X) == G.AugAssignment) {
        eval(X);
        return;
      }
      AVal V = eval(X);
      (void)V;
      // capture_begin()/capture_end() open and close a region.
      TSNode Call = stripParens(X);
      if (kind(Call) != G.Call)
        return;
      std::string D = dottedName(fieldOf(Call, G.FFunction), Src);
      if (D.empty())
        return;
      std::string Q = resolveDotted(D).Qual;
      if (Cat.CaptureBegins.matches(Q) || Cat.CaptureBegins.matches(D)) {
        Region R;
        R.Kind = Region::BeginEnd;
        R.Begin = pos(Call);
        facts().Regions.push_back(R);
        E.C.Region = (int)facts().Regions.size() - 1;
        E.C.Excluded = false;
      } else if ((Cat.CaptureEnds.matches(Q) || Cat.CaptureEnds.matches(D)) &&
                 E.C.Region >= 0 &&
                 facts().Regions[E.C.Region].Kind == Region::BeginEnd) {
        facts().Regions[E.C.Region].End = pos(Call);
        E.C.Region = -1;
      }
    });
    return;
  }
  if (K == G.If) {
    walkIfChain(S);
    return;
  }
  if (K == G.For)
    return walkFor(S);
  if (K == G.While)
    return walkWhile(S);
  if (K == G.Try)
    return walkTry(S);
  if (K == G.With)
    return walkWith(S, Next);
  if (K == G.Return)
    return walkReturn(S);
  if (K == G.Delete)
    return walkDelete(S);
  if (K == G.Raise) {
    eachChild(S, true, [&](TSNode X, TSFieldId) { eval(X); });
    E.Dead = true;
    return;
  }
  if (K == G.Break || K == G.Continue) {
    E.Dead = true;
    return;
  }
  if (K == G.Global) {
    eachChild(S, true, [&](TSNode X, TSFieldId) {
      if (kind(X) == G.Identifier)
        GlobalDecl.insert(text(X));
    });
    return;
  }
  if (K == G.Import || K == G.ImportFrom) {
    if (!fn().ModuleBody)
      walkImport(S);
    return;
  }
  if (K == G.Assert) {
    TSNode C = firstChildOf(S);
    if (!isNull(C))
      applyCond(evalCond(C), true);
    return;
  }
  if (K == G.FunctionDef || K == G.ClassDef || K == G.DecoratedDef)
    return; // analysed on their own
  if (K == G.Match) {
    Env Pre = E, Out = E;
    Out.Dead = true;
    std::vector<TSNode> Blocks{S};
    while (!Blocks.empty()) {
      TSNode B = Blocks.back();
      Blocks.pop_back();
      eachChild(B, true, [&](TSNode C, TSFieldId) {
        if (kind(C) == G.Block) {
          E = Pre;
          walkBlock(C);
          Out = joinEnv(Out, E, Pre.C);
        } else if (kind(C) != G.Comment) {
          Blocks.push_back(C);
        }
      });
    }
    Out = joinEnv(Out, Pre, Pre.C);
    E = Out;
    return;
  }
  // Anything else (pass, print/exec of old code, type aliases): evaluate
  // sub-expressions for their calls.
  eachChild(S, true, [&](TSNode X, TSFieldId) {
    if (kind(X) != G.Block && kind(X) != G.Comment)
      eval(X);
  });
}

void FnWalker::walkIfChain(TSNode If) {
  // `if`, then each `elif` in turn, walked in a loop (a chain of thousands
  // of elifs is one statement; recursing per clause overflowed the stack).
  // Each clause's true branch is joined into the outcome afterwards, the
  // last clause first, as nesting the chain would; the variables of the
  // outcome are joined in place (JoinedVars), so that the cost is the sum
  // of the branches' sizes, not the size of the whole outcome per clause.
  struct Clause {
    Env OutT;
    Ctx Base, FalseCtx;
  };
  std::vector<Clause> Clauses;
  std::vector<TSNode> Alts;
  eachChild(If, true, [&](TSNode C, TSFieldId F) {
    if (F == G.FAlternative)
      Alts.push_back(C);
  });
  TSNode CondN = fieldOf(If, G.FCondition), Conseq = fieldOf(If, G.FConsequence);
  size_t AltIdx = 0;
  TSNode ElseBody{};
  while (true) {
    Cond C = evalCond(CondN);
    Env Pre = E;
    Ctx Base = E.C;
    applyCond(C, true);
    E.C = branchCtx(Base, C.PredT, CondN);
    Ctx TrueCtx = E.C;
    walkBlock(Conseq);
    Clause Cl;
    Cl.OutT = std::move(E);
    if (!Cl.OutT.Dead && Cl.OutT.C == TrueCtx)
      Cl.OutT.C = Base;
    E = std::move(Pre);
    applyCond(C, false);
    E.C = branchCtx(Base, C.PredF, CondN);
    Cl.Base = Base;
    Cl.FalseCtx = E.C;
    Clauses.push_back(std::move(Cl));
    if (AltIdx >= Alts.size())
      break;
    TSNode A = Alts[AltIdx++];
    if (kind(A) != G.Elif) {
      ElseBody = fieldOf(A, G.FBody);
      break;
    }
    CondN = fieldOf(A, G.FCondition);
    Conseq = fieldOf(A, G.FConsequence);
  }
  if (!isNull(ElseBody))
    walkBlock(ElseBody);
  // Fold: Out is the false side of clause I (what clauses after I give).
  Env Out = std::move(E);
  JoinedVars Acc;
  if (!Out.Dead)
    Acc.add(std::move(Out.Vars), /*Priority=*/false);
  for (size_t I = Clauses.size(); I-- > 0;) {
    Clause &Cl = Clauses[I];
    Env &T = Cl.OutT;
    // A branch that falls through leaves its predicate region; one that
    // cannot (an early return under `if not capturing`) hands its context on.
    if (!Out.Dead && !T.Dead && Out.C == Cl.FalseCtx)
      Out.C = Cl.Base;
    if (T.Dead)
      continue;
    if (Out.Dead) {
      Out.Dead = false;
      Out.C = T.C;
      Out.NotNone = std::move(T.NotNone);
      Out.Empty = std::move(T.Empty);
    } else {
      Out.C = T.C == Out.C ? T.C : Cl.Base;
      std::set<std::string> Both;
      for (const std::string &K : T.NotNone)
        if (Out.NotNone.count(K))
          Both.insert(K);
      Out.NotNone = std::move(Both);
      std::vector<int> Empty;
      for (int P : T.Empty)
        if (std::find(Out.Empty.begin(), Out.Empty.end(), P) != Out.Empty.end())
          Empty.push_back(P);
      Out.Empty = std::move(Empty);
    }
    Acc.add(std::move(T.Vars), /*Priority=*/true);
  }
  if (!Out.Dead)
    Out.Vars = Acc.finish();
  E = std::move(Out);
}

void FnWalker::bindIter(TSNode Target, TSNode Iter, const AVal &IterV) {
  // for k, v in P.items() / for v in P.values(): v is a slot of P.
  AVal Elem;
  bool ValuesOf = false, ItemsOf = false;
  TSNode I = stripParens(Iter);
  // list(P.items()), sorted(P.values()): the same elements.
  while (kind(I) == G.Call && kind(fieldOf(I, G.FFunction)) == G.Identifier &&
         isElementCopy(text(fieldOf(I, G.FFunction))) &&
         !isLocal(text(fieldOf(I, G.FFunction)))) {
    TSNode A = fieldOf(I, G.FArguments);
    if (isNull(A) || kind(A) != G.ArgumentList || ts_node_named_child_count(A) != 1)
      break;
    I = stripParens(ts_node_named_child(A, 0));
  }
  if (kind(I) == G.Call) {
    TSNode F = fieldOf(I, G.FFunction);
    if (kind(F) == G.Attribute) {
      std::string A = text(fieldOf(F, G.FAttribute));
      ValuesOf = A == "values";
      ItemsOf = A == "items";
    }
  }
  if (IterV.Place >= 0) {
    Elem.Place = IterV.Place;
    spellAs(Elem, IterV);
    Elem.Elem = true;
    Elem.ViaSelf = IterV.ViaSelf;
    if (ValuesOf || ItemsOf)
      Elem.NullPlace = IterV.Place;
  }
  TSNode T = stripParens(Target);
  TSSymbol K = kind(T);
  if (ItemsOf && (K == G.PatternList || K == G.TuplePattern ||
                  K == G.Tuple || K == G.ListPattern)) {
    std::vector<TSNode> Parts;
    eachChild(T, true, [&](TSNode C, TSFieldId) {
      if (kind(C) != G.Comment)
        Parts.push_back(C);
    });
    for (size_t J = 0; J < Parts.size(); ++J)
      assign(Parts[J], J == 1 ? Elem : AVal(), TSNode{});
    return;
  }
  if (ValuesOf || (!ItemsOf && IterV.Place >= 0)) {
    assign(Target, Elem, TSNode{});
    return;
  }
  assign(Target, AVal(), TSNode{});
}

void FnWalker::walkFor(TSNode S) {
  TSNode Iter = fieldOf(S, G.FRight);
  AVal IV = eval(Iter);
  Env Pre = E;
  bindIter(fieldOf(S, G.FLeft), Iter, IV);
  walkBlock(fieldOf(S, G.FBody));
  E = joinEnv(Pre, E, Pre.C);
  TSNode Else = fieldOf(S, G.FAlternative);
  if (!isNull(Else))
    walkBlock(fieldOf(Else, G.FBody));
}

void FnWalker::walkWhile(TSNode S) {
  Cond C = evalCond(fieldOf(S, G.FCondition));
  Env Pre = E;
  applyCond(C, true);
  walkBlock(fieldOf(S, G.FBody));
  E = joinEnv(Pre, E, Pre.C);
  TSNode Else = fieldOf(S, G.FAlternative);
  if (!isNull(Else))
    walkBlock(fieldOf(Else, G.FBody));
}

void FnWalker::walkTry(TSNode S) {
  Env Pre = E;
  walkBlock(fieldOf(S, G.FBody));
  Env AfterBody = E;
  Env Out = AfterBody;
  TSNode Finally{};
  eachChild(S, true, [&](TSNode C, TSFieldId) {
    TSSymbol K = kind(C);
    if (K == G.Except || K == G.ExceptGroup) {
      E = joinEnv(Pre, AfterBody, Pre.C);
      eachChild(C, true, [&](TSNode X, TSFieldId) {
        if (kind(X) == G.Block)
          walkBlock(X);
      });
      Out = joinEnv(Out, E, Pre.C);
    } else if (K == G.Else) {
      E = AfterBody;
      walkBlock(fieldOf(C, G.FBody));
      Out = joinEnv(Out, E, Pre.C);
    } else if (K == G.Finally) {
      Finally = C;
    }
  });
  E = Out;
  if (!isNull(Finally)) {
    bool WasDead = E.Dead;
    if (WasDead)
      E = Pre; // the finally block runs on the way out, too
    eachChild(Finally, true, [&](TSNode X, TSFieldId) {
      if (kind(X) == G.Block)
        walkBlock(X);
    });
    if (WasDead)
      E.Dead = true;
  }
}

void FnWalker::walkWith(TSNode S, TSNode Next) {
  Ctx Saved = E.C;
  int Opened = -1;
  eachChild(S, true, [&](TSNode Clause, TSFieldId) {
    if (kind(Clause) != G.WithClause)
      return;
    eachChild(Clause, true, [&](TSNode Item, TSFieldId) {
      if (kind(Item) != G.WithItem)
        return;
      TSNode V = fieldOf(Item, G.FValue);
      TSNode Alias{};
      if (kind(V) == G.AsPattern) {
        Alias = fieldOf(V, G.FAlias);
        V = firstChildOf(V);
      }
      V = stripParens(V);
      AVal Val = eval(V);
      if (kind(V) == G.Call) {
        std::string D = dottedName(fieldOf(V, G.FFunction), Src);
        std::string Q = D.empty() ? "" : resolveDotted(D).Qual;
        if (!D.empty() && (Cat.CaptureContexts.matches(Q))) {
          Region R;
          R.Kind = Region::With;
          R.Begin = pos(S);
          facts().Regions.push_back(R);
          Opened = (int)facts().Regions.size() - 1;
          E.C.Region = Opened;
          E.C.Excluded = false;
        } else if (!D.empty() && Cat.StreamSwitches.matches(Q)) {
          TSNode Args = fieldOf(V, G.FArguments);
          TSNode First = isNull(Args) ? TSNode{} : firstChildOf(Args);
          if (!isNull(First) && kind(First) == G.KeywordArgument)
            First = fieldOf(First, G.FValue);
          E.C.Stream = P.intern(isNull(First) ? keyOf(V, Src)
                                              : keyOf(First, Src));
        }
      }
      if (!isNull(Alias)) {
        TSNode T = firstChildOf(Alias);
        if (!isNull(T))
          assign(T, Val, TSNode{});
      }
    });
  });
  walkBlock(fieldOf(S, G.FBody));
  if (Opened >= 0) {
    Region &R = facts().Regions[Opened];
    if (!isNull(Next)) {
      R.End = pos(Next);
    } else {
      TSPoint End = ts_node_end_point(S);
      R.End.Mod = Mod;
      R.End.Row = End.row;
      R.End.Col = End.column;
    }
  }
  if (!E.Dead)
    E.C = Saved;
}

void FnWalker::walkReturn(TSNode S) {
  for (auto &[Idx, Holder] : OpenStores) {
    WeakStoreFact &W = facts().WeakStores[Idx];
    if (!W.DiesAt.valid() && !W.ReturnAt.valid())
      W.ReturnAt = pos(S);
  }
  TSNode X = firstChildOf(S);
  if (!isNull(X)) {
    AVal V = eval(X);
    if (V.Weak && V.WeakOfParam >= 0 &&
        (RetWeakParam < 0 || RetWeakParam == V.WeakOfParam))
      RetWeakParam = V.WeakOfParam;
    else if (V.Weak || !V.Holder.empty() || V.Place >= 0 ||
             (V.Param >= 0 && V.Param != RetWeakParam && RetWeakParam >= 0))
      RetOther = true;
    if (V.Place >= 0 && !V.Weak) {
      if (RetPlace >= 0 && RetPlace != V.Place)
        RetPlaceMixed = true;
      RetPlace = V.Place;
    }
    if (V.Workspace)
      RetWorkspace = true;
    if (!V.Weak && !V.Holder.empty())
      facts().Escaped.insert(V.Holder);
    if (V.Param >= 0)
      param(V.Param).Escapes = true;
  }
  E.Dead = true;
}

void FnWalker::walkDelete(TSNode S) {
  std::vector<TSNode> Targets;
  eachChild(S, true, [&](TSNode C, TSFieldId) {
    if (kind(C) == G.ExpressionList)
      eachChild(C, true, [&](TSNode D, TSFieldId) { Targets.push_back(D); });
    else if (kind(C) != G.Comment)
      Targets.push_back(C);
  });
  for (TSNode T : Targets) {
    T = stripParens(T);
    if (kind(T) == G.Identifier) {
      std::string N = text(T);
      kill(N, pos(S));
      E.Vars.erase(N);
    } else if (kind(T) == G.Subscript || kind(T) == G.Attribute) {
      AVal Base = eval(kind(T) == G.Subscript ? fieldOf(T, G.FValue) : T);
      if (kind(T) == G.Subscript)
        eval(fieldOf(T, G.FSubscript));
      if (Base.Place >= 0)
        clearPlace(Base.Place, spelling(Base), pos(S), !Base.ViaSelf);
    }
  }
}

/// The local names a function-level import statement binds, each with the
/// qualified name it stands for (vLLM Ascend imports lazily).
template <typename Fn>
void forEachImportBinding(const Module &M, TSNode S, Fn &&Bind) {
  const Grammar &G = Grammar::get();
  std::string_view Src = M.Source;
  auto text = [&](TSNode N) { return std::string(textOf(N, Src)); };
  const std::string &ModName = M.Name;
  if (kindOf(S) == G.Import) {
    eachChild(S, true, [&](TSNode N, TSFieldId F) {
      if (F != G.FName)
        return;
      if (kindOf(N) == G.AliasedImport) {
        Bind(text(fieldOf(N, G.FAlias)), text(fieldOf(N, G.FName)));
      } else {
        std::string D = text(N);
        Bind(D.substr(0, D.find('.')), D.substr(0, D.find('.')));
      }
    });
    return;
  }
  TSNode MN = fieldOf(S, G.FModuleName);
  std::string Base;
  if (kindOf(MN) == G.RelativeImport) {
    std::string Pkg = M.IsPackage ? ModName : ModName.substr(0, std::min(ModName.size(), ModName.rfind('.')));
    if (!M.IsPackage && ModName.rfind('.') == std::string::npos)
      Pkg.clear();
    std::string Rest;
    eachChild(MN, true, [&](TSNode C, TSFieldId) {
      if (kindOf(C) == G.ImportPrefix) {
        for (size_t I = 1; I < textOf(C, Src).size(); ++I) {
          size_t Dot = Pkg.rfind('.');
          Pkg = Dot == std::string::npos ? "" : Pkg.substr(0, Dot);
        }
      } else if (kindOf(C) == G.DottedName) {
        Rest = text(C);
      }
    });
    Base = Pkg.empty() ? Rest : (Rest.empty() ? Pkg : Pkg + "." + Rest);
  } else {
    Base = text(MN);
  }
  eachChild(S, true, [&](TSNode N, TSFieldId F) {
    if (F != G.FName)
      return;
    if (kindOf(N) == G.AliasedImport)
      Bind(text(fieldOf(N, G.FAlias)), Base + "." + text(fieldOf(N, G.FName)));
    else
      Bind(text(N), Base + "." + text(N));
  });
}

void FnWalker::walkImport(TSNode S) {
  forEachImportBinding(M, S, [&](std::string Name, std::string Qual) {
    LocalImports[std::move(Name)] = std::move(Qual);
  });
}

//===----------------------------------------------------------------------===//
// Conditions
//===----------------------------------------------------------------------===//

Cond FnWalker::evalCond(TSNode N) {
  N = stripParens(N);
  Cond C;
  if (isNull(N))
    return C;
  TSSymbol K = kind(N);
  if (K == G.NotOp) {
    Cond In = evalCond(fieldOf(N, G.FArgument));
    std::swap(In.PredT, In.PredF);
    std::swap(In.NotNoneT, In.NotNoneF);
    std::swap(In.EmptyT, In.EmptyF);
    return In;
  }
  if (K == G.BooleanOp) {
    Cond A = evalCond(fieldOf(N, G.FLeft));
    // The right operand is evaluated only when the left one allows it.
    auto SavedNotNone = E.NotNone;
    auto SavedEmpty = E.Empty;
    std::string Op = text(fieldOf(N, G.FOperator));
    applyCond(A, Op == "and");
    Cond B = evalCond(fieldOf(N, G.FRight));
    E.NotNone = std::move(SavedNotNone);
    E.Empty = std::move(SavedEmpty);
    if (Op == "and") {
      C.PredT = A.PredT ? A.PredT : B.PredT;
      C.PredF = A.PredF == B.PredF ? A.PredF : 0;
      C.NotNoneT = unite(A.NotNoneT, B.NotNoneT);
      C.NotNoneF = meet(A.NotNoneF, B.NotNoneF);
      C.EmptyT = unite(A.EmptyT, B.EmptyT);
      C.EmptyF = meet(A.EmptyF, B.EmptyF);
    } else {
      C.PredT = A.PredT == B.PredT ? A.PredT : 0;
      C.PredF = A.PredF ? A.PredF : B.PredF;
      C.NotNoneT = meet(A.NotNoneT, B.NotNoneT);
      C.NotNoneF = unite(A.NotNoneF, B.NotNoneF);
      C.EmptyT = meet(A.EmptyT, B.EmptyT);
      C.EmptyF = unite(A.EmptyF, B.EmptyF);
    }
    C.SizeVars = unite(A.SizeVars, B.SizeVars);
    return C;
  }
  if (K == G.Comparison) {
    std::vector<TSNode> Operands;
    std::vector<std::string> Ops;
    eachChild(N, false, [&](TSNode X, TSFieldId) {
      if (ts_node_is_named(X)) {
        if (kind(X) != G.Comment)
          Operands.push_back(X);
      } else {
        Ops.push_back(ts_node_type(X));
      }
    });
    // "is not" / "not in" may come as two tokens.
    std::vector<std::string> Merged;
    for (size_t I = 0; I < Ops.size(); ++I) {
      if (I + 1 < Ops.size() && Ops[I] == "is" && Ops[I + 1] == "not")
        Merged.push_back("is not"), ++I;
      else if (I + 1 < Ops.size() && Ops[I] == "not" && Ops[I + 1] == "in")
        Merged.push_back("not in"), ++I;
      else
        Merged.push_back(Ops[I]);
    }
    std::vector<AVal> Vals;
    for (TSNode O : Operands)
      Vals.push_back(eval(O));
    std::string T = text(N);
    if (T.find("numel") != std::string::npos ||
        T.find("shape") != std::string::npos ||
        T.find("size") != std::string::npos ||
        T.find("nbytes") != std::string::npos)
      for (TSNode O : Operands) {
        std::vector<TSNode> Work{O};
        while (!Work.empty()) {
          TSNode X = Work.back();
          Work.pop_back();
          if (kind(X) == G.Identifier)
            SizeChecked.insert(text(X)), C.SizeVars.push_back(text(X));
          eachChild(X, true, [&](TSNode Y, TSFieldId) { Work.push_back(Y); });
        }
      }
    if (Operands.size() == 2 && Merged.size() == 1) {
      TSNode L = Operands[0], R = Operands[1];
      const std::string &Op = Merged[0];
      bool RNone = kind(stripParens(R)) == G.None;
      bool LNone = kind(stripParens(L)) == G.None;
      TSNode Subject = RNone ? L : R;
      const AVal &SV = RNone ? Vals[0] : Vals[1];
      if ((RNone || LNone) && (Op == "is not" || Op == "!=")) {
        C.NotNoneT.push_back(keyOf(Subject, Src));
        if (SV.Place >= 0 && SV.Elem)
          C.EmptyF.push_back(SV.Place);
      } else if ((RNone || LNone) && (Op == "is" || Op == "==")) {
        C.NotNoneF.push_back(keyOf(Subject, Src));
        if (SV.Place >= 0 && SV.Elem)
          C.EmptyT.push_back(SV.Place);
      } else if (Op == "not in" && Vals[1].Place >= 0) {
        C.EmptyT.push_back(Vals[1].Place);
      } else if (Op == "in" && Vals[1].Place >= 0) {
        C.EmptyF.push_back(Vals[1].Place);
      }
    }
    return C;
  }
  AVal V = eval(N);
  C.PredT = V.PredT;
  C.PredF = V.PredF;
  if (K == G.Call) {
    std::string D = dottedName(fieldOf(N, G.FFunction), Src);
    if (D == "isinstance") {
      TSNode Args = fieldOf(N, G.FArguments);
      TSNode First = firstChildOf(Args);
      if (!isNull(First))
        C.NotNoneT.push_back(keyOf(First, Src));
    }
    return C;
  }
  if (!V.PredT && (K == G.Identifier || K == G.Attribute || K == G.Subscript)) {
    C.NotNoneT.push_back(keyOf(N, Src));
    if (V.Place >= 0 && V.Elem)
      C.EmptyF.push_back(V.Place);
    else if (V.Place >= 0 && !V.Elem && K != G.Identifier)
      C.EmptyF.push_back(V.Place);
  }
  return C;
}

void FnWalker::applyCond(const Cond &C, bool Truth) {
  for (const std::string &K : Truth ? C.NotNoneT : C.NotNoneF)
    E.NotNone.insert(K);
  for (int Pl : Truth ? C.EmptyT : C.EmptyF)
    E.Empty.push_back(Pl);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

AVal FnWalker::eval(TSNode N) {
  if (isNull(N))
    return AVal();
  TSSymbol K = kind(N);
  if (K == G.Parenthesized)
    return eval(stripParens(N));
  if (K == G.Identifier)
    return evalName(N);
  if (K == G.Attribute)
    return evalAttribute(N);
  if (K == G.Subscript)
    return evalSubscript(N);
  if (K == G.Call)
    return evalCallChain(N);
  if (K == G.Await)
    return eval(firstChildOf(N));
  if (K == G.None) {
    AVal V;
    V.MaybeNone = V.NoneLiteral = true;
    V.NoneAt = pos(N);
    return V;
  }
  if (K == G.Assignment) {
    TSNode L = fieldOf(N, G.FLeft), R = fieldOf(N, G.FRight);
    if (isNull(R))
      return AVal(); // `x: int` declares, binds nothing
    // Chained assignment: a = b = value.
    std::vector<TSNode> Targets{L};
    while (kind(R) == G.Assignment) {
      Targets.push_back(fieldOf(R, G.FLeft));
      R = fieldOf(R, G.FRight);
    }
    TSSymbol RK = kind(R);
    if (Targets.size() == 1 &&
        (RK == G.ExpressionList || RK == G.Tuple) &&
        (kind(L) == G.PatternList || kind(L) == G.TuplePattern)) {
      std::vector<TSNode> Ls, Rs;
      eachChild(L, true, [&](TSNode C, TSFieldId) {
        if (kind(C) != G.Comment) Ls.push_back(C);
      });
      eachChild(R, true, [&](TSNode C, TSFieldId) {
        if (kind(C) != G.Comment) Rs.push_back(C);
      });
      if (Ls.size() == Rs.size()) {
        std::vector<AVal> Vs;
        for (TSNode X : Rs)
          Vs.push_back(eval(X));
        for (size_t I = 0; I < Ls.size(); ++I)
          assign(Ls[I], Vs[I], Rs[I]);
        return AVal();
      }
    }
    AVal V = eval(R);
    for (TSNode T : Targets)
      assign(T, V, R);
    return AVal();
  }
  if (K == G.AugAssignment) {
    eval(fieldOf(N, G.FLeft));
    eval(fieldOf(N, G.FRight));
    return AVal();
  }
  if (K == G.NamedExpr) {
    AVal V = eval(fieldOf(N, G.FValue));
    assign(fieldOf(N, G.FName), V, fieldOf(N, G.FValue));
    return V;
  }
  if (K == G.Conditional) {
    std::vector<TSNode> Parts;
    eachChild(N, true, [&](TSNode C, TSFieldId) {
      if (kind(C) != G.Comment) Parts.push_back(C);
    });
    if (Parts.size() != 3) {
      for (TSNode X : Parts)
        eval(X);
      return AVal();
    }
    Cond C = evalCond(Parts[1]);
    Env Saved = E;
    applyCond(C, true);
    AVal A = eval(Parts[0]);
    E.NotNone = Saved.NotNone;
    E.Empty = Saved.Empty;
    applyCond(C, false);
    AVal B = eval(Parts[2]);
    E.NotNone = Saved.NotNone;
    E.Empty = Saved.Empty;
    return joinVal(A, B);
  }
  if (K == G.BooleanOp || K == G.NotOp || K == G.Comparison) {
    Cond C = evalCond(N);
    AVal V;
    V.PredT = C.PredT;
    V.PredF = C.PredF;
    return V;
  }
  if (K == G.ListComp || K == G.SetComp || K == G.DictComp ||
      K == G.GeneratorExpr)
    return evalComprehension(N);
  if (K == G.Dictionary) {
    AVal V;
    eachChild(N, true, [&](TSNode C, TSFieldId) {
      if (kind(C) == G.Pair) {
        eval(fieldOf(C, G.FKey));
        TSNode Val = fieldOf(C, G.FValue);
        if (kind(stripParens(Val)) == G.None && !V.NoneDict) {
          V.NoneDict = true;
          V.NoneDictAt = pos(Val);
        } else {
          eval(Val);
        }
      } else if (kind(C) != G.Comment) {
        eval(C);
      }
    });
    V.Fresh = true;
    return V;
  }
  if (K == G.Lambda)
    return AVal(); // its body runs elsewhere
  if (K == G.List || K == G.Tuple || K == G.ExpressionList) {
    // A tuple of weak refs (the attn_params record) is "maybe weak", with
    // no single holder: it is never reported as one memory.
    AVal V;
    eachChild(N, true, [&](TSNode C, TSFieldId) {
      if (kind(C) == G.Comment)
        return;
      AVal X = eval(C);
      if (X.Weak && !V.Weak) {
        V.Weak = 1;
        V.WeakAt = X.WeakAt;
      }
      if (!X.Weak && !X.Holder.empty())
        facts().Escaped.insert(X.Holder); // now also held by the container
    });
    V.Fresh = true;
    return V;
  }
  if (K == G.KeywordArgument)
    return eval(fieldOf(N, G.FValue));
  if (K == G.ListSplat || K == G.DictSplat)
    return eval(firstChildOf(N));
  if (K == G.String || K == G.Integer || K == G.True || K == G.False)
    return AVal();
  // Anything else: walk its children for calls.
  eachChild(N, true, [&](TSNode C, TSFieldId) {
    if (kind(C) != G.Comment && kind(C) != G.Block)
      eval(C);
  });
  return AVal();
}

AVal FnWalker::evalName(TSNode N) {
  std::string Name = text(N);
  if (!GlobalDecl.count(Name)) {
    auto It = E.Vars.find(Name);
    if (It != E.Vars.end()) {
      AVal V = It->second;
      if (E.NotNone.count(Name)) {
        V.MaybeNone = false;
        V.NullPlace = -1;
      }
      return V;
    }
  }
  if (LocalImports.count(Name))
    return AVal();
  // A module-level name: a global of this or another scanned module.
  Resolved R = resolveDotted(Name);
  AVal V;
  if (R.Kind == Resolved::Global) {
    V.Place = P.placeId(Place::Global, -1, R.Qual);
    spellAt(V, N);
    size_t Dot = R.Qual.rfind('.');
    auto MI = P.ModuleByName.find(R.Qual.substr(0, Dot));
    if (MI != P.ModuleByName.end() && !fn().ModuleBody &&
        !E.NotNone.count(Name)) {
      Module &GM = *P.Modules[MI->second];
      auto NG = GM.NoneGlobals.find(R.Qual.substr(Dot + 1));
      if (NG != GM.NoneGlobals.end()) {
        V.MaybeNone = true;
        V.NoneAt = NG->second;
      }
    }
  } else if (R.Kind == Resolved::Class) {
    V.Instance = -1;
  } else if (R.Kind == Resolved::Function) {
    V.FuncRef = R.Index;
  }
  return V;
}

int FnWalker::attrPlace(TSNode Obj, const std::string &Attr, const AVal &ObjV,
                        bool &ViaSelf) {
  int Cls = -1;
  ViaSelf = false;
  Obj = stripParens(Obj);
  if (kind(Obj) == G.Identifier && !SelfName.empty() && text(Obj) == SelfName) {
    Cls = fn().Class;
    ViaSelf = true;
  } else if (ObjV.Instance >= 0) {
    Cls = ObjV.Instance;
  } else if (kind(Obj) == G.Identifier && !isLocal(text(Obj))) {
    Resolved R = resolveDotted(text(Obj));
    if (R.Kind == Resolved::Class)
      Cls = R.Index;
  }
  return P.placeId(Place::Attr, Cls, Attr);
}

AVal FnWalker::evalAttribute(TSNode N) {
  std::string D = dottedName(N, Src);
  AVal V;
  if (!D.empty()) {
    std::string Head = D.substr(0, D.find('.'));
    if (!isLocal(Head) && (Head != SelfName || SelfName.empty())) {
      Resolved R = resolveDotted(D);
      if (R.Kind == Resolved::Global) {
        V.Place = P.placeId(Place::Global, -1, R.Qual);
        spellAt(V, N);
        return V;
      }
      if (R.Kind == Resolved::Function) {
        V.FuncRef = R.Index;
        return V;
      }
      if (R.Kind == Resolved::Module || R.Kind == Resolved::Class)
        return V;
    }
    if (Cat.CapturePredicates.matches(D)) {
      V.PredT = 1;
      V.PredF = -1;
    }
  }
  TSNode Obj = fieldOf(N, G.FObject);
  AVal OV = eval(Obj);
  std::string Attr = text(fieldOf(N, G.FAttribute));
  // A predicate read off a call's result, `get_forward_context().capturing`,
  // has no dotted name: the attribute alone decides.
  if (D.empty() && Cat.CapturePredicates.matches(Attr)) {
    V.PredT = 1;
    V.PredF = -1;
  }
  bool ViaSelf;
  V.Place = attrPlace(Obj, Attr, OV, ViaSelf);
  spellAt(V, N);
  V.ViaSelf = ViaSelf;
  return V;
}

AVal FnWalker::evalSubscript(TSNode N) {
  AVal Base = eval(fieldOf(N, G.FValue));
  eachChild(N, true, [&](TSNode C, TSFieldId F) {
    if (F == G.FSubscript)
      eval(C);
  });
  AVal V;
  if (Base.Place >= 0) {
    V.Place = Base.Place;
    spellAs(V, Base);
    V.Elem = true;
    V.ViaSelf = Base.ViaSelf;
    if (!guarded(N))
      V.NullPlace = Base.Place;
  } else if (!Base.Holder.empty() && !Base.Weak) {
    V.Holder = Base.Holder;
  }
  return V;
}

AVal FnWalker::evalComprehension(TSNode N) {
  Env Saved = E;
  TSSymbol K = kind(N);
  AVal Result;
  std::vector<TSNode> Clauses;
  eachChild(N, true, [&](TSNode C, TSFieldId) {
    if (kind(C) == G.ForIn || kind(C) == G.IfClause)
      Clauses.push_back(C);
  });
  for (TSNode C : Clauses) {
    if (kind(C) == G.ForIn) {
      TSNode Iter = fieldOf(C, G.FRight);
      AVal IV = eval(Iter);
      bindIter(fieldOf(C, G.FLeft), Iter, IV);
    } else {
      applyCond(evalCond(firstChildOf(C)), true);
    }
  }
  TSNode Body = fieldOf(N, G.FBody);
  if (K == G.DictComp && kind(Body) == G.Pair) {
    eval(fieldOf(Body, G.FKey));
    TSNode Val = fieldOf(Body, G.FValue);
    if (kind(stripParens(Val)) == G.None) {
      Result.NoneDict = true;
      Result.NoneDictAt = pos(Val);
    } else {
      eval(Val);
    }
  } else {
    eval(Body);
  }
  // Comprehension variables do not leak; facts recorded inside stay.
  E.Vars = std::move(Saved.Vars);
  E.NotNone = std::move(Saved.NotNone);
  E.Empty = std::move(Saved.Empty);
  Result.Fresh = true;
  return Result;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

AVal FnWalker::convert(const AVal &Arg, TSNode ArgNode, Pos At, int Helper,
                       Pos HelperAt, bool Report, TSNode CallNode) {
  std::string HelperName, PName;
  if (Helper >= 0) {
    const Function &H = P.Functions[Helper];
    HelperName = H.Class >= 0 ? P.Classes[H.Class].Name + "." + H.Name : H.Name;
    for (size_t I = 0; I < H.Sum.Params.size() && I < H.Params.size(); ++I)
      if (H.Sum.Params[I].WeakRefs && H.Sum.Params[I].ConvAt == HelperAt)
        PName = H.Params[I];
  }
  // A second conversion hides where ownership was given up when the two are
  // not both written in this function: nested in one expression (never
  // meant), or one of them inside a helper. A local converted again in the
  // function that made it weak is a visible no-op -- vLLM's
  // `output = weak_ref_tensors(output)` inside the capture followed by
  // `entry.output = weak_ref_tensors(output)` after it -- and not reported.
  const bool ThisFunctionConverts = Helper < 0 && !HelperAt.valid();
  TSNode ArgExpr = isNull(ArgNode) ? TSNode{} : stripParens(ArgNode);
  const bool Nested = !isNull(ArgExpr) && kind(ArgExpr) == G.Call &&
                      Arg.WeakAt == pos(ArgExpr);
  const bool Hidden =
      Nested || !ThisFunctionConverts || Arg.WeakViaHelper;
  if (Report && !isNull(ArgNode)) {
    if (Arg.Weak == 2 && Hidden) {
      std::vector<Note> Notes{note(Arg.WeakAt, msg::DoubleWeakRefFirst)};
      if (Helper >= 0) {
        Notes.push_back(note(pos(ArgNode), fill(msg::DoubleWeakRefPassed, HelperName)));
        Notes.push_back(note(HelperAt, fill(msg::DoubleWeakRefHelperParam,
                                            HelperName, PName)));
      }
      std::vector<FixIt> Fixes;
      // Nested conversion written at this call: drop the inner one.
      TSNode A = stripParens(ArgNode);
      if (kind(A) == G.Call && Arg.WeakAt == pos(A)) {
        TSNode InnerArgs = fieldOf(A, G.FArguments);
        TSNode Inner = isNull(InnerArgs) ? TSNode{} : firstChildOf(InnerArgs);
        if (!isNull(Inner) && kind(Inner) != G.KeywordArgument) {
          FixIt F;
          F.File = M.Path;
          // Offsets are into the file, whose byte order mark (if any) the
          // parsed text lacks, and which may be latin-1.
          unsigned B = M.Layout.fileOffset(Src, ts_node_start_byte(A));
          F.Offset = B;
          F.Length = M.Layout.fileOffset(Src, ts_node_end_byte(A)) - B;
          F.Text = M.Layout.fileText(text(Inner));
          Fixes.push_back(F);
        }
      }
      report(msg::DoubleWeakRef, msg::DoubleWeakRefWarning,
             Helper >= 0 ? pos(CallNode) : At, std::move(Notes),
             std::move(Fixes));
    }
    if (Arg.MaybeNone && !guarded(ArgNode)) {
      std::vector<Note> Notes{note(Arg.NoneAt, msg::MaybeNullSource)};
      if (Helper >= 0)
        Notes.push_back(note(HelperAt, fill(msg::WeakRefHelperConverts,
                                            HelperName, PName)));
      report(msg::WeakRefOfMaybeNull, msg::WeakRefOfMaybeNullWarning,
             Helper >= 0 ? pos(ArgNode) : At, std::move(Notes));
    } else if (Arg.NullPlace >= 0 && !guarded(ArgNode)) {
      DeferredNullFact D;
      D.Place = Arg.NullPlace;
      D.At = Helper >= 0 ? pos(ArgNode) : At;
      D.Helper = Helper;
      D.HelperAt = HelperAt;
      facts().DeferredNulls.push_back(D);
    }
    if (Arg.Param >= 0) {
      ParamEffect &PE = param(Arg.Param);
      if (!PE.WeakRefs) {
        PE.WeakRefs = true;
        PE.ConvAt = At;
      }
      if (!guarded(ArgNode))
        PE.Unguarded = true;
    }
  }
  AVal R;
  R.Weak = 2;
  R.WeakAt = Arg.Weak ? Arg.WeakAt : At;
  R.WeakViaHelper = Arg.Weak ? Arg.WeakViaHelper : !ThisFunctionConverts;
  R.WeakOfParam = Arg.Param >= 0 ? Arg.Param : Arg.WeakOfParam;
  R.Holder = Arg.Holder;
  R.HolderDiesAt = Arg.HolderDiesAt;
  R.Place = Arg.Place;
  spellAs(R, Arg);
  R.Elem = Arg.Elem;
  R.ViaSelf = Arg.ViaSelf;
  R.Workspace = Arg.Workspace;
  return R;
}

void FnWalker::useInOp(const AVal &V, TSNode ArgNode) {
  if (V.Place >= 0 && !V.Weak) {
    PlaceUseFact U;
    U.Place = V.Place;
    U.At = pos(ArgNode);
    U.C = E.C;
    TSNode A = stripParens(ArgNode);
    if (kind(A) == G.KeywordArgument)
      A = stripParens(fieldOf(A, G.FValue));
    if (kind(A) == G.Identifier)
      U.Var = text(A);
    U.Shared = !V.ViaSelf;
    U.PlaceName = spelling(V);
    facts().Uses.push_back(U);
  }
  if (V.Weak && V.HolderDiesAt.valid() && !V.Holder.empty()) {
    DanglingUseFact D{V.WeakAt, V.HolderDiesAt, pos(ArgNode), E.C, V.Holder};
    facts().Danglings.push_back(D);
  }
  if (V.Param >= 0)
    param(V.Param).UsedInOp = true;
}

AVal FnWalker::evalCallChain(TSNode N) {
  // f()()...(): each call's callee is the call before it. The links are
  // evaluated innermost first in a loop; recursing through evalCall's large
  // frame per link overflowed the stack at a few thousand links.
  std::vector<TSNode> Chain{N};
  for (TSNode F = stripParens(fieldOf(N, G.FFunction)); kind(F) == G.Call;
       F = stripParens(fieldOf(F, G.FFunction)))
    Chain.push_back(F);
  AVal R;
  for (size_t I = Chain.size(); I-- > 0;)
    R = evalCall(Chain[I], /*CalleeDone=*/I + 1 < Chain.size());
  return R;
}

AVal FnWalker::evalCall(TSNode N, bool CalleeDone) {
  TSNode F = fieldOf(N, G.FFunction);
  TSNode Args = fieldOf(N, G.FArguments);
  std::string D = dottedName(F, Src);
  std::string Method;
  TSNode Recv{};
  AVal RecvV;
  int Callee = -1, CtorClass = -1;
  bool Bound = false; // the callee's first parameter is the receiver
  bool UnboundRecv = false; // dict.items(P): the receiver is the first argument
  // A function is called directly; a class is constructed, its __init__
  // bound to the new instance. False for anything else.
  auto BindResolved = [&](const Resolved &R) {
    if (R.Kind == Resolved::Function) {
      Callee = R.Index;
      return true;
    }
    if (R.Kind == Resolved::Class) {
      CtorClass = R.Index;
      Callee = P.findMethod(R.Index, "__init__");
      Bound = true;
      return true;
    }
    return false;
  };
  std::string Qual = D;
  std::string Head = D.substr(0, D.find('.'));
  bool HeadLocal = !D.empty() && (isLocal(Head) || (!SelfName.empty() && Head == SelfName));
  if (kind(F) == G.Attribute) {
    Recv = fieldOf(F, G.FObject);
    Method = text(fieldOf(F, G.FAttribute));
    TSNode RS = stripParens(Recv);
    if (kind(RS) == G.Call &&
        dottedName(fieldOf(RS, G.FFunction), Src) == "super") {
      if (fn().Class >= 0) {
        Callee = P.findMethod(fn().Class, Method, /*SkipSelf=*/true);
        Bound = true;
      }
    } else if (!D.empty() && !HeadLocal) {
      Resolved R = resolveDotted(D);
      Qual = R.Qual;
      if (R.Kind != Resolved::Function && R.Kind != Resolved::Class &&
          isContainerType(dottedName(Recv, Src)) && isContainerMethod(Method)) {
        UnboundRecv = true;
      } else if (!BindResolved(R)) {
        // `mod.CACHE.get(k)`: the receiver may be a scanned global.
        std::string RD = dottedName(Recv, Src);
        if (!RD.empty() && resolveDotted(RD).Kind == Resolved::Global)
          RecvV = eval(Recv);
      }
    } else {
      RecvV = eval(Recv);
      if (RecvV.Instance >= 0) {
        Callee = P.findMethod(RecvV.Instance, Method);
        Bound = Callee >= 0;
      }
    }
  } else if (kind(F) == G.Identifier) {
    if (isLocal(D)) {
      Callee = E.Vars[D].FuncRef;
    } else if (!LocalImports.count(D) && fn().Nested.count(D)) {
      Callee = fn().Nested.at(D);
    } else {
      Resolved R = resolveDotted(D);
      Qual = R.Qual;
      BindResolved(R);
    }
  } else if (!CalleeDone) {
    eval(F);
  }

  // Evaluate the arguments in order.
  struct Arg {
    TSNode Node;
    TSNode Whole; // with its keyword
    std::string Keyword;
    AVal V;
    bool Splat = false;
  };
  std::vector<Arg> As;
  if (!isNull(Args)) {
    if (kind(Args) == G.GeneratorExpr) {
      As.push_back({Args, Args, "", eval(Args), false});
    } else {
      eachChild(Args, true, [&](TSNode C, TSFieldId) {
        TSSymbol CK = kind(C);
        if (CK == G.Comment)
          return;
        Arg A;
        A.Node = A.Whole = C;
        if (CK == G.KeywordArgument) {
          A.Keyword = text(fieldOf(C, G.FName));
          A.V = eval(fieldOf(C, G.FValue));
          A.Node = fieldOf(C, G.FValue);
        } else {
          A.Splat = CK == G.ListSplat || CK == G.DictSplat;
          A.V = eval(C);
        }
        As.push_back(std::move(A));
      });
    }
  }

  if (UnboundRecv && !As.empty() && As[0].Keyword.empty() && !As[0].Splat) {
    RecvV = As[0].V;
    Recv = As[0].Node;
    As.erase(As.begin());
  }

  Pos At = pos(N);
  // Stream ordering anywhere in the function makes cross-stream use safe.
  if (!D.empty() && (Cat.StreamSyncs.matches(Qual) ||
                     (!Method.empty() && Cat.StreamSyncs.matches(Method))))
    facts().StreamSync = true;

  // Capture predicate calls: torch.npu.is_current_stream_capturing(); and
  // a predicate attribute read by getattr(ctx, "capturing", False), also
  // off a call's result: getattr(get_forward_context(), "capturing", False).
  std::string GetattrName = Callee < 0 ? getattrName(N, Src) : std::string();
  std::string GetattrRead = GetattrName.empty() ? std::string() : dottedName(N, Src);
  if ((!D.empty() && Cat.CapturePredicates.matches(Qual)) ||
      (!GetattrRead.empty() && Cat.CapturePredicates.matches(GetattrRead)) ||
      (!GetattrName.empty() && GetattrRead.empty() &&
       Cat.CapturePredicates.matches(GetattrName))) {
    AVal V;
    V.PredT = 1;
    V.PredF = -1;
    return V;
  }

  // Weak-ref primitives of the catalog.
  bool Primitive = !D.empty() && (Cat.WeakRefFunctions.matches(Qual) ||
                                  (Callee >= 0 && Cat.WeakRefFunctions.matches(
                                                      P.Functions[Callee].QualName)));
  if (Primitive) {
    for (const Arg &A : As)
      if (A.Keyword.empty() && !A.Splat)
        return convert(A.V, A.Node, At, -1, Pos(), true, N);
    AVal R;
    R.Weak = 2;
    R.WeakAt = At;
    return R;
  }

  // dict.fromkeys(keys[, None]) and defaultdict(lambda: None) hold Nones.
  if (D == "dict.fromkeys" || Method == "fromkeys") {
    bool NoneVal = As.size() < 2 || kind(stripParens(As[1].Node)) == G.None;
    AVal V;
    V.Fresh = true;
    if (NoneVal) {
      V.NoneDict = true;
      V.NoneDictAt = As.size() >= 2 ? pos(As[1].Node) : At;
    }
    return V;
  }
  if ((Qual == "collections.defaultdict" || D == "defaultdict") && !As.empty()) {
    TSNode L = stripParens(As[0].Node);
    if (kind(L) == G.Lambda && kind(stripParens(fieldOf(L, G.FBody))) == G.None) {
      AVal V;
      V.Fresh = V.NoneDict = true;
      V.NoneDictAt = pos(fieldOf(L, G.FBody));
      return V;
    }
  }

  if (Callee >= 0 || CtorClass >= 0) {
    AVal Result;
    if (Callee >= 0) {
      CallFact CF{Callee, At, E.C};
      facts().Calls.push_back(CF);
      const Function &H = P.Functions[Callee];
      // The callee's summary is final (or, in a recursive cycle, the last
      // round's) when the call graph predicted this edge; an unpredicted
      // edge reads nothing, and the scheduler walks again with it.
      static const Summary NoSummary;
      bool Known = std::binary_search(fn().Callees.begin(),
                                      fn().Callees.end(), Callee);
      if (!Known)
        facts().Missed = true;
      const Summary &S = Known ? H.Sum : NoSummary;
      // Map the arguments to the callee's parameters.
      std::vector<int> ParamOf(As.size(), -1);
      size_t Next = Bound ? 1 : 0;
      for (size_t I = 0; I < As.size(); ++I) {
        if (As[I].Splat)
          break;
        if (!As[I].Keyword.empty()) {
          for (size_t J = 0; J < H.Params.size(); ++J)
            if (H.Params[J] == As[I].Keyword)
              ParamOf[I] = (int)J;
          continue;
        }
        if (Next < H.Params.size() && H.Params[Next] != "*")
          ParamOf[I] = (int)Next++;
      }
      if (S.ReturnsWeakOf >= 0) {
        for (size_t I = 0; I < As.size(); ++I)
          if (ParamOf[I] == S.ReturnsWeakOf) {
            const ParamEffect &PE = S.Params.size() > (size_t)S.ReturnsWeakOf
                                        ? S.Params[S.ReturnsWeakOf]
                                        : ParamEffect();
            return convert(As[I].V, As[I].Node, At, -1, PE.ConvAt, true, N);
          }
      }
      for (size_t I = 0; I < As.size(); ++I) {
        int PI = ParamOf[I];
        if (PI < 0 || (size_t)PI >= S.Params.size()) {
          continue;
        }
        const ParamEffect &PE = S.Params[PI];
        const AVal &V = As[I].V;
        if (PE.WeakRefs) {
          AVal Probe = V;
          if (!PE.Unguarded) {
            Probe.MaybeNone = false;
            Probe.NullPlace = -1;
          }
          convert(Probe, As[I].Node, PE.ConvAt, Callee, PE.ConvAt, true, N);
        }
        for (const ParamEffect::Store &St : PE.Stores) {
          AVal Stored = St.Weakened ? convert(V, As[I].Node, At, Callee,
                                              St.At, false, N)
                                    : V;
          storePlace(St.Place, St.Name, Stored, At, St.Whole, St.Shared,
                     Callee, St.At);
        }
        if (PE.UsedInOp)
          useInOp(V, As[I].Whole);
        if (PE.Escapes && !V.Weak && !V.Holder.empty())
          facts().Escaped.insert(V.Holder);
      }
      if (S.ReturnsPlace >= 0) {
        Result.Place = S.ReturnsPlace;
        spellAt(Result, N);
        Result.ViaSelf = false;
      } else {
        Result.Fresh = true;
      }
      Result.Workspace = S.ReturnsWorkspace;
    }
    if (CtorClass >= 0) {
      Result = AVal();
      Result.Fresh = true;
      Result.Instance = CtorClass;
      // Dataclass / NamedTuple fields take the arguments in order.
      if (Callee < 0) {
        const Class &Cl = P.Classes[CtorClass];
        size_t Next = 0;
        for (const Arg &A : As) {
          if (A.Splat)
            break;
          std::string FieldName;
          if (!A.Keyword.empty())
            FieldName = A.Keyword;
          else if (Next < Cl.Fields.size())
            FieldName = Cl.Fields[Next++];
          if (FieldName.empty())
            continue;
          int Pl = P.placeId(Place::Attr, CtorClass, FieldName);
          storePlace(Pl, Cl.Name + "." + FieldName, A.V, At, true, true);
        }
      }
    }
    return Result;
  }

  // Container methods on a place: reads, stores, clears of its slots.
  if (!Method.empty() && RecvV.Place >= 0 && isContainerMethod(Method)) {
    int Pl = RecvV.Place;
    bool Shared = !RecvV.ViaSelf;
    std::string Name = spelling(RecvV);
    if (Method == "__setitem__") {
      if (As.size() >= 2)
        storePlace(Pl, Name, As[1].V, At, false, Shared);
      return AVal();
    }
    if (Method == "get" || Method == "setdefault" || Method == "pop" ||
        Method == "__getitem__") {
      if (Method == "setdefault" && As.size() >= 2)
        storePlace(Pl, Name, As[1].V, At, false, Shared);
      if (Method == "pop")
        clearPlace(Pl, Name, At, Shared);
      AVal V;
      V.Place = Pl;
      spellAs(V, RecvV);
      V.Elem = true;
      V.ViaSelf = RecvV.ViaSelf;
      if (Method == "get" && !guarded(N))
        V.NullPlace = Pl;
      return V;
    }
    if (Method == "append" || Method == "add" || Method == "insert" ||
        Method == "extend" || Method == "update") {
      for (const Arg &A : As)
        if (A.Keyword.empty() && !(Method == "insert" && &A == &As[0]))
          storePlace(Pl, Name, A.V, At, false, Shared);
      return AVal();
    }
    if (Method == "clear" || Method == "popitem" || Method == "remove" ||
        Method == "discard") {
      clearPlace(Pl, Name, At, Shared);
      return AVal();
    }
    AVal V;
    V.Place = Pl;
    spellAs(V, RecvV);
    V.ViaSelf = RecvV.ViaSelf;
    return V; // items(), values(), keys(), copy()
  }
  if (!Method.empty() && isContainerMethod(Method)) {
    // A local container: what goes in is held by it.
    for (const Arg &A : As)
      if (!A.V.Weak && !A.V.Holder.empty())
        facts().Escaped.insert(A.V.Holder);
    return AVal();
  }

  if (kind(F) == G.Identifier && Callee < 0 && !isLocal(D) &&
      isElementCopy(D) && As.size() == 1 && As[0].Keyword.empty() &&
      !As[0].Splat && As[0].V.Place >= 0) {
    AVal V;
    V.Place = As[0].V.Place;
    spellAs(V, As[0].V);
    V.ViaSelf = As[0].V.ViaSelf;
    return V;
  }

  // Anything else is an operation on its arguments.
  llvm::StringRef Last = llvm::StringRef(D).rsplit('.').second;
  if (Last.empty())
    Last = D;
  bool NonOp = (kind(F) == G.Identifier && isNonOpBuiltin(D)) ||
               llvm::StringRef(Head).contains("log");
  bool ClassLike = !Last.empty() && isupper((unsigned char)Last[0]);
  AVal R;
  R.Fresh = true;
  if (!D.empty() && (Cat.WorkspaceProducers.matches(Qual) ||
                     Cat.WorkspaceProducers.matches(D))) {
    R.Workspace = true;
    R.SizedAt = At;
  }
  if (isAllocation(Last) && !As.empty()) {
    for (const Arg &A : As) {
      if (!A.Keyword.empty())
        continue;
      if (A.V.Param >= 0 || text(A.Node).find(SelfName.empty() ? "\x01" : SelfName + ".") !=
                                std::string::npos) {
        R.ExplicitSize = true;
        R.SizedAt = At;
      }
    }
  }
  for (const Arg &A : As) {
    if (ClassLike) {
      if (!A.V.Weak && !A.V.Holder.empty())
        facts().Escaped.insert(A.V.Holder);
      continue;
    }
    if (!NonOp)
      useInOp(A.V, A.Whole);
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Effects
//===----------------------------------------------------------------------===//

void FnWalker::kill(const std::string &Name, Pos At) {
  // Only the locals once bound to a weak ref of Name's memory can be its
  // aliases: looking at every local at every assignment made a statement
  // `a0, a1, ... = ...` quadratic.
  auto Aliases = WeakAliases.find(Name);
  if (Aliases != WeakAliases.end())
    for (const std::string &A : Aliases->second) {
      auto It = E.Vars.find(A);
      if (It == E.Vars.end())
        continue;
      AVal &V = It->second;
      if (V.Weak && V.Holder == Name && !V.HolderDiesAt.valid())
        V.HolderDiesAt = At;
    }
  auto Stores = OpenStoresOf.find(Name);
  if (Stores != OpenStoresOf.end())
    for (size_t Idx : Stores->second) {
      WeakStoreFact &W = facts().WeakStores[Idx];
      if (!W.DiesAt.valid() && W.C.Region == E.C.Region)
        W.DiesAt = At;
    }
}

void FnWalker::assignName(const std::string &Name, AVal V, TSNode At) {
  Pos Where = pos(At);
  if (GlobalDecl.count(Name) || (fn().ModuleBody && false)) {
    int Pl = P.placeId(Place::Global, -1, M.Name + "." + Name);
    storePlace(Pl, Name, V, Where, true, true);
    return;
  }
  kill(Name, Where);
  if (!V.Weak && !V.Holder.empty() && V.Holder != Name)
    facts().Escaped.insert(V.Holder); // a second strong holder
  if (V.Fresh && !V.Weak)
    V.Holder = Name;
  if (V.Weak && V.Holder == Name && !V.HolderDiesAt.valid())
    V.HolderDiesAt = Where;
  V.Fresh = false;
  if (fn().ModuleBody && V.NoneDict) {
    int Pl = P.placeId(Place::Global, -1, M.Name + "." + Name);
    NoneInitFact NI{Pl, V.NoneDictAt};
    facts().NoneInits.push_back(NI);
  }
  if (!V.Holder.empty()) // (a join may make it weak later)
    WeakAliases[V.Holder].insert(Name);
  E.Vars[Name] = V;
  // Checks of the old value no longer hold: Name's, and those of its
  // attributes and slots, which sort right after it.
  for (auto It = E.NotNone.lower_bound(Name);
       It != E.NotNone.end() && It->compare(0, Name.size(), Name) == 0;) {
    const std::string &K = *It;
    if (K.size() == Name.size() || K[Name.size()] == '.' || K[Name.size()] == '[')
      It = E.NotNone.erase(It);
    else
      ++It;
  }
}

void FnWalker::assign(TSNode Target, const AVal &V, TSNode ValueNode) {
  Target = stripParens(Target);
  TSSymbol K = kind(Target);
  TSNode At = isNull(ValueNode) ? Target : Target;
  if (K == G.Identifier) {
    assignName(text(Target), V, At);
    return;
  }
  if (K == G.Attribute) {
    TSNode Obj = fieldOf(Target, G.FObject);
    AVal OV = eval(Obj);
    bool ViaSelf;
    std::string Display = keyOf(Target, Src);
    std::string D = dottedName(Target, Src);
    int Pl = -1;
    if (!D.empty()) {
      std::string Head = D.substr(0, D.find('.'));
      if (!isLocal(Head) && Head != SelfName) {
        Resolved R = resolveDotted(D);
        if (R.Kind == Resolved::Global)
          Pl = P.placeId(Place::Global, -1, R.Qual);
      }
    }
    if (Pl < 0)
      Pl = attrPlace(Obj, text(fieldOf(Target, G.FAttribute)), OV, ViaSelf);
    else
      ViaSelf = false;
    storePlace(Pl, Display, V, pos(Target), true, !ViaSelf);
    E.NotNone.erase(Display);
    return;
  }
  if (K == G.Subscript) {
    AVal Base = eval(fieldOf(Target, G.FValue));
    eachChild(Target, true, [&](TSNode C, TSFieldId F) {
      if (F == G.FSubscript)
        eval(C);
    });
    if (Base.Place >= 0)
      storePlace(Base.Place, spelling(Base), V, pos(Target), false,
                 !Base.ViaSelf);
    else if (!V.Weak && !V.Holder.empty())
      facts().Escaped.insert(V.Holder);
    E.NotNone.erase(keyOf(Target, Src));
    return;
  }
  if (K == G.PatternList || K == G.TuplePattern || K == G.ListPattern ||
      K == G.Tuple || K == G.List || K == G.ExpressionList) {
    eachChild(Target, true, [&](TSNode C, TSFieldId) {
      if (kind(C) != G.Comment) {
        AVal Part;
        Part.Place = V.Place;
        spellAs(Part, V);
        Part.Elem = V.Place >= 0;
        assign(C, Part, TSNode{});
      }
    });
    return;
  }
  if (K == G.ListSplatPattern || K == G.ListSplat) {
    TSNode In = firstChildOf(Target);
    if (!isNull(In))
      assign(In, AVal(), TSNode{});
  }
}

void FnWalker::storePlace(int Pl, const std::string &Name, const AVal &V,
                          Pos At, bool Whole, bool Shared, int Helper,
                          Pos HelperAt) {
  if (V.NoneDict)
    facts().NoneInits.push_back(NoneInitFact{Pl, V.NoneDictAt});
  if (!V.Weak && !V.Holder.empty())
    facts().Escaped.insert(V.Holder);
  if (V.Param >= 0 && !V.Weak) {
    ParamEffect &PE = param(V.Param);
    PE.Escapes = true;
    PE.Stores.push_back({Pl, false, Whole, Shared, At, Name});
  }
  if (V.Weak && V.WeakOfParam >= 0)
    param(V.WeakOfParam).Stores.push_back({Pl, true, Whole, Shared, At, Name});
  if (V.Weak && !V.Holder.empty()) {
    WeakStoreFact W;
    W.Place = Pl;
    W.WeakAt = V.WeakAt;
    W.StoreAt = At;
    W.C = E.C;
    W.Holder = V.Holder;
    W.DiesAt = V.HolderDiesAt;
    W.Helper = Helper;
    W.HelperAt = HelperAt;
    W.PlaceName = Name;
    facts().WeakStores.push_back(W);
    OpenStores.emplace_back(facts().WeakStores.size() - 1, V.Holder);
    OpenStoresOf[V.Holder].push_back(facts().WeakStores.size() - 1);
  }
  // A weak value written over a slot drops nothing: only strong writes
  // can free what earlier layers' tasks point at.
  bool FromParam = V.Param >= 0 || V.WeakOfParam >= 0;
  if (!FromParam && !V.Weak && (V.Workspace || isWorkspacePlace(Pl))) {
    SlotWriteFact S;
    bool Empty = false;
    for (int X : E.Empty)
      if (P.samePlace(X, Pl))
        Empty = true;
    S.Kind = V.NoneLiteral ? SlotWriteFact::Clear
                           : (Empty ? SlotWriteFact::FirstFill
                                    : SlotWriteFact::Replace);
    S.Place = Pl;
    S.At = At;
    S.C = E.C;
    S.Shared = Shared;
    S.ExplicitSize = V.ExplicitSize;
    S.SizedAt = V.SizedAt;
    S.PlaceName = Name;
    facts().SlotWrites.push_back(S);
  }
  // The slot is filled now: a second write here replaces.
  E.Empty.erase(std::remove_if(E.Empty.begin(), E.Empty.end(),
                               [&](int X) { return P.samePlace(X, Pl); }),
                E.Empty.end());
}

void FnWalker::clearPlace(int Pl, const std::string &Name, Pos At,
                          bool Shared) {
  if (!isWorkspacePlace(Pl))
    return;
  SlotWriteFact S;
  S.Kind = SlotWriteFact::Clear;
  S.Place = Pl;
  S.At = At;
  S.C = E.C;
  S.Shared = Shared;
  S.ExplicitSize = false;
  S.PlaceName = Name;
  facts().SlotWrites.push_back(S);
}

} // namespace

void tether::python::walkFunction(Package &P, int Fn, Summary &Sum,
                                  Facts &Out) {
  FnWalker W(P, Fn, Sum, Out);
  W.run();
}

//===----------------------------------------------------------------------===//
// The call graph, predicted
//===----------------------------------------------------------------------===//

namespace {

/// What an expression may hold that makes a call resolvable: instances of
/// in-tree classes and in-tree functions.
struct StaticVals {
  std::vector<int> Instances, Funcs;
  bool add(const StaticVals &O) {
    bool Changed = false;
    for (int I : O.Instances)
      if (std::find(Instances.begin(), Instances.end(), I) == Instances.end())
        Instances.push_back(I), Changed = true;
    for (int F : O.Funcs)
      if (std::find(Funcs.begin(), Funcs.end(), F) == Funcs.end())
        Funcs.push_back(F), Changed = true;
    return Changed;
  }
};

/// Mirrors FnWalker::evalCall's resolution of callees, flow-insensitively:
/// every binding of a local counts wherever the local is used, and a name
/// bound locally may still be the module-level one (before its binding).
class CallPredictor {
public:
  CallPredictor(Package &P, int Fn)
      : P(P), F(P.Functions[Fn]), Mod(F.Mod), M(*P.Modules[Mod]),
        Src(M.Source) {}

  std::vector<int> run() {
    if (!F.ModuleBody && F.BoundMethod && !F.Params.empty())
      SelfName = F.Params[0];
    for (const std::string &Pa : F.Params)
      if (Pa != "*")
        Params.insert(Pa);
    scan(F.ModuleBody ? F.Node : fieldOf(F.Node, G.FBody));
    solveLocals();
    for (TSNode C : Calls)
      predictCall(C);
    std::sort(Out.begin(), Out.end());
    Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
    return Out;
  }

private:
  Package &P;
  const Function &F;
  int Mod;
  const Module &M;
  std::string_view Src;
  const Grammar &G = Grammar::get();
  std::string SelfName;
  std::unordered_set<std::string> Params;
  std::unordered_map<std::string, std::vector<TSNode>> Binds;
  std::unordered_map<std::string, std::vector<std::string>> LocalImps;
  std::unordered_map<std::string, StaticVals> Vals;
  std::vector<TSNode> Calls;
  std::vector<int> Out;
  /// The inner assignments of chains `a = b = value` already bound: binding
  /// each link's chain again made `a = a = ... = 1` quadratic.
  std::unordered_set<const void *> InChain;

  TSSymbol kind(TSNode N) const { return kindOf(N); }
  std::string text(TSNode N) const { return std::string(textOf(N, Src)); }

  bool mayBeLocal(const std::string &N) const {
    return Binds.count(N) || Params.count(N) || F.Nested.count(N);
  }

  void bindTarget(TSNode T, TSNode V) {
    T = stripParens(T);
    if (ts_node_is_null(T))
      return;
    TSSymbol K = kind(T);
    if (K == G.Identifier) {
      Binds[text(T)].push_back(V);
    } else if (K == G.PatternList || K == G.TuplePattern ||
               K == G.ListPattern || K == G.Tuple || K == G.List ||
               K == G.ExpressionList || K == G.ListSplatPattern ||
               K == G.ListSplat) {
      eachChild(T, true, [&](TSNode C, TSFieldId) {
        if (kind(C) != G.Comment)
          bindTarget(C, TSNode{});
      });
    }
  }

  void bindAssignment(TSNode N) {
    TSNode L = fieldOf(N, G.FLeft), R = fieldOf(N, G.FRight);
    if (ts_node_is_null(R))
      return;
    std::vector<TSNode> Targets{L};
    while (kind(R) == G.Assignment) {
      // The scan meets this inner link of the chain next: it is bound here,
      // with the chain's value, and not again from there.
      InChain.insert(R.id);
      Targets.push_back(fieldOf(R, G.FLeft));
      R = fieldOf(R, G.FRight);
    }
    TSSymbol RK = kind(R);
    if (Targets.size() == 1 && (RK == G.ExpressionList || RK == G.Tuple) &&
        (kind(L) == G.PatternList || kind(L) == G.TuplePattern)) {
      std::vector<TSNode> Ls, Rs;
      eachChild(L, true, [&](TSNode C, TSFieldId) {
        if (kind(C) != G.Comment)
          Ls.push_back(C);
      });
      eachChild(R, true, [&](TSNode C, TSFieldId) {
        if (kind(C) != G.Comment)
          Rs.push_back(C);
      });
      if (Ls.size() == Rs.size()) {
        for (size_t I = 0; I < Ls.size(); ++I)
          bindTarget(Ls[I], Rs[I]);
        return;
      }
    }
    for (TSNode T : Targets)
      bindTarget(T, R);
  }

  /// Every call, binding and import the walk evaluates (and a few it does
  /// not: the superset is what counts).
  void scan(TSNode Root) {
    preorder(Root, [&](TSNode N) {
      TSSymbol K = kind(N);
      if (K == G.FunctionDef || K == G.ClassDef || K == G.DecoratedDef ||
          K == G.Lambda)
        return false; // walked on their own, or never
      if (K == G.Call) {
        Calls.push_back(N);
      } else if (K == G.Assignment) {
        if (!InChain.count(N.id))
          bindAssignment(N);
      } else if (K == G.NamedExpr) {
        bindTarget(fieldOf(N, G.FName), fieldOf(N, G.FValue));
      } else if (K == G.WithItem) {
        TSNode V = fieldOf(N, G.FValue);
        if (kind(V) == G.AsPattern) {
          TSNode Alias = fieldOf(V, G.FAlias);
          TSNode T = ts_node_is_null(Alias) ? TSNode{} : firstChildOf(Alias);
          bindTarget(T, stripParens(firstChildOf(V)));
        }
      } else if (K == G.For || K == G.ForIn) {
        bindTarget(fieldOf(N, G.FLeft), TSNode{});
      } else if (K == G.Identifier || K == G.String || K == G.Integer ||
                 K == G.Comment) {
        return false; // nothing below
      } else if (K == G.Import || K == G.ImportFrom) {
        if (!F.ModuleBody)
          forEachImportBinding(M, N, [&](std::string Name, std::string Qual) {
            LocalImps[std::move(Name)].push_back(std::move(Qual));
          });
        return false;
      }
      return true;
    });
  }

  /// What D may stand for: module-level, or through a function-level import
  /// of its head.
  std::vector<Resolved> resolveAll(const std::string &D) {
    std::vector<Resolved> R{P.resolve(Mod, D)};
    size_t Dot = D.find('.');
    auto It = LocalImps.find(D.substr(0, Dot));
    if (It != LocalImps.end())
      for (const std::string &Q : It->second)
        R.push_back(P.resolveQualified(
            Dot == std::string::npos ? Q : Q + D.substr(Dot)));
    return R;
  }

  void valsOfExpr(TSNode X, StaticVals &R) {
    X = stripParens(X);
    if (ts_node_is_null(X))
      return;
    TSSymbol K = kind(X);
    if (K == G.Await) {
      valsOfExpr(firstChildOf(X), R);
    } else if (K == G.Identifier) {
      std::string N = text(X);
      if (mayBeLocal(N)) {
        auto It = Vals.find(N);
        if (It != Vals.end())
          R.add(It->second);
      }
      Resolved Re = P.resolve(Mod, N);
      if (Re.Kind == Resolved::Function)
        R.Funcs.push_back(Re.Index);
    } else if (K == G.Attribute) {
      std::string D = dottedName(X, Src);
      if (!D.empty() && (SelfName.empty() || D.substr(0, D.find('.')) != SelfName))
        for (const Resolved &Re : resolveAll(D))
          if (Re.Kind == Resolved::Function)
            R.Funcs.push_back(Re.Index);
    } else if (K == G.Call) {
      TSNode Fx = fieldOf(X, G.FFunction);
      TSNode RS = kind(Fx) == G.Attribute ? stripParens(fieldOf(Fx, G.FObject))
                                          : TSNode{};
      if (!ts_node_is_null(RS) && kind(RS) == G.Call &&
          dottedName(fieldOf(RS, G.FFunction), Src) == "super")
        return;
      std::string D = dottedName(Fx, Src);
      if (!D.empty())
        for (const Resolved &Re : resolveAll(D))
          if (Re.Kind == Resolved::Class)
            R.Instances.push_back(Re.Index);
    } else if (K == G.NamedExpr) {
      valsOfExpr(fieldOf(X, G.FValue), R);
    } else if (K == G.Conditional) {
      eachChild(X, true, [&](TSNode C, TSFieldId) {
        if (kind(C) != G.Comment)
          valsOfExpr(C, R);
      });
    }
  }

  /// The values of the locals: their own (the instance, nested functions)
  /// and those of every expression bound to them, to a fixpoint.
  void solveLocals() {
    if (!SelfName.empty() && F.Class >= 0)
      Vals[SelfName].Instances.push_back(F.Class);
    for (const auto &[Name, Idx] : F.Nested)
      Vals[Name].Funcs.push_back(Idx);
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const auto &[Name, Vs] : Binds) {
        StaticVals New;
        for (TSNode V : Vs)
          valsOfExpr(V, New);
        if (Vals[Name].add(New))
          Changed = true;
      }
    }
  }

  void addCtor(int Class) {
    int Init = P.findMethod(Class, "__init__");
    if (Init >= 0)
      Out.push_back(Init);
  }

  void predictCall(TSNode N) {
    TSNode Fx = fieldOf(N, G.FFunction);
    std::string D = dottedName(Fx, Src);
    if (kind(Fx) == G.Attribute) {
      TSNode Recv = fieldOf(Fx, G.FObject);
      std::string Method = text(fieldOf(Fx, G.FAttribute));
      TSNode RS = stripParens(Recv);
      if (kind(RS) == G.Call &&
          dottedName(fieldOf(RS, G.FFunction), Src) == "super") {
        if (F.Class >= 0) {
          int C = P.findMethod(F.Class, Method, /*SkipSelf=*/true);
          if (C >= 0)
            Out.push_back(C);
        }
        return;
      }
      if (!D.empty())
        for (const Resolved &R : resolveAll(D)) {
          if (R.Kind == Resolved::Function)
            Out.push_back(R.Index);
          else if (R.Kind == Resolved::Class)
            addCtor(R.Index);
        }
      StaticVals RV;
      valsOfExpr(Recv, RV);
      for (int I : RV.Instances) {
        int C = P.findMethod(I, Method);
        if (C >= 0)
          Out.push_back(C);
      }
      return;
    }
    if (kind(Fx) != G.Identifier)
      return;
    if (mayBeLocal(D)) {
      auto It = Vals.find(D);
      if (It != Vals.end())
        Out.insert(Out.end(), It->second.Funcs.begin(), It->second.Funcs.end());
    }
    for (const Resolved &R : resolveAll(D)) {
      if (R.Kind == Resolved::Function)
        Out.push_back(R.Index);
      else if (R.Kind == Resolved::Class)
        addCtor(R.Index);
    }
  }
};

} // namespace

std::vector<int> tether::python::predictCallees(Package &P, int Fn) {
  return CallPredictor(P, Fn).run();
}
