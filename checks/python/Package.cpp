//===- Package.cpp - Modules, imports, definitions, name resolution -------===//
#include "Imports.h"
#include "common/Paths.h"
#include "Model.h"
#include "Nesting.h"
#include "NodeAccess.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace tether;
using namespace tether::python;

Package::~Package() {
  for (auto &M : Modules)
    if (M->Tree && !M->TreeOwner)
      delete M->Tree;
}

static bool isIdentifier(llvm::StringRef S) {
  if (S.empty() || !(isalpha((unsigned char)S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return isalnum((unsigned char)C) || C == '_'; });
}

static bool hasFile(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, Name);
  return llvm::sys::fs::exists(P);
}

/// The folder `python -m` would run from for a file in Dir: see moduleIdFor.
static std::string projectRoot(llvm::StringRef Dir) {
  for (llvm::StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    if (hasFile(D, "pyproject.toml") || hasFile(D, "setup.py") ||
        hasFile(D, "setup.cfg") || hasFile(D, ".git")) {
      llvm::SmallString<256> Src(D);
      llvm::sys::path::append(Src, "src");
      if (Dir == Src || Dir.starts_with((Src + "/").str()))
        return Src.str().str();
      return D.str();
    }
    if (llvm::sys::path::parent_path(D) == D)
      break;
  }
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd) &&
      (Dir == Cwd || Dir.starts_with((Cwd + "/").str())))
    return Cwd.str().str();
  return {};
}

FolderId tether::python::folderIdFor(const std::string &AbsDir) {
  FolderId F;
  llvm::SmallString<256> Dir(AbsDir);
  for (int Depth = 0; Depth < 64 && !Dir.empty(); ++Depth) {
    if (!hasFile(Dir, "__init__.py"))
      break;
    std::string Part = llvm::sys::path::filename(Dir).str();
    F.Package = F.Package.empty() ? Part : Part + "." + F.Package;
    // Copied first: the parent is a view into Dir itself.
    Dir = llvm::sys::path::parent_path(Dir).str();
  }
  F.Root = Dir.str().str();
  if (!F.Package.empty())
    return F;
  std::string Root = projectRoot(AbsDir);
  if (Root.empty() || Root == AbsDir)
    return F;
  std::string Prefix;
  for (llvm::StringRef Rel = llvm::StringRef(AbsDir).drop_front(Root.size() + 1);
       !Rel.empty();) {
    auto [Part, Rest] = Rel.split('/');
    if (!isIdentifier(Part))
      return F;
    Prefix += Part.str() + ".";
    Rel = Rest;
  }
  F.LooseRoot = std::move(Root);
  F.LoosePrefix = std::move(Prefix);
  return F;
}

ModuleId tether::python::moduleIdIn(const FolderId &F,
                                    const std::string &AbsPath) {
  ModuleId Id;
  std::string Stem = llvm::sys::path::stem(AbsPath).str();
  Id.IsPackage = Stem == "__init__";
  if (!F.Package.empty() || Id.IsPackage) { // a regular package
    Id.Name = Id.IsPackage ? F.Package : F.Package + "." + Stem;
    if (Id.Name.empty()) // its __init__.py is not on disk (unsaved)
      Id.Name = Stem;
    Id.Root = F.Root;
    return Id;
  }
  Id.Loose = true;
  Id.Name = Stem;
  Id.Root = F.Root;
  if (F.LooseRoot.empty() || !isIdentifier(Stem))
    return Id;
  Id.Name = F.LoosePrefix + Stem;
  Id.Root = F.LooseRoot;
  return Id;
}

ModuleId tether::python::moduleIdFor(const std::string &Path) {
  const std::string Abs = absolutePath(Path);
  return moduleIdIn(folderIdFor(llvm::sys::path::parent_path(Abs).str()), Abs);
}

Pos Package::pos(int Mod, SyntaxNode N) const {
  TSPoint P = startPoint(N);
  Pos R;
  R.Mod = Mod;
  R.Row = P.row;
  R.Col = P.column;
  return R;
}

Location Package::loc(Pos P) const {
  Location L;
  if (!P.valid())
    return L;
  L.File = Modules[P.Mod]->Path;
  L.Line = P.Row + 1;
  L.Column = P.Col + 1;
  return L;
}

static void collectParams(SyntaxNode Params, std::string_view Src,
                          std::vector<std::string> &Out) {
  const Grammar &G = Grammar::get();
  eachChild(Params, true, [&](SyntaxNode P, TSFieldId) {
    TSSymbol S = kindOf(P);
    if (S == G.Identifier) {
      Out.emplace_back(textOf(P, Src));
    } else if (S == G.DefaultParam || S == G.TypedDefaultParam) {
      Out.emplace_back(textOf(fieldOf(P, G.FName), Src));
    } else if (S == G.TypedParam) {
      SyntaxNode In = firstChildOf(P);
      if (kindOf(In) == G.Identifier)
        Out.emplace_back(textOf(In, Src));
      else
        Out.push_back("*"); // *args / **kwargs: positions stop here
    } else if (S == G.ListSplatPattern || S == G.DictSplatPattern) {
      Out.push_back("*");
    } else if (S != G.Comment) {
      // keyword_separator "*" and positional_separator "/"
      if (textOf(P, Src) == "*")
        Out.push_back("*");
    }
  });
}

/// Whether Text may hold a `def` statement: the keyword, then a blank or a
/// line continuation (a name, `default`, `undef` do not count).
static bool mayDefine(std::string_view Text) {
  for (size_t At = Text.find("def"); At != std::string_view::npos;
       At = Text.find("def", At + 3)) {
    char After = At + 3 < Text.size() ? Text[At + 3] : '\0';
    if (After == ' ' || After == '\t' || After == '\f' || After == '\\')
      return true;
  }
  return false;
}

/// The problem of a scope left out for its nesting (Nesting.h).
static std::string tooDeep(SyntaxNode Scope, const std::string &What) {
  return What + " at line " + std::to_string(startPoint(Scope).row + 1) +
         " is too deeply nested; not analysed";
}

int Package::addFunction(int Mod, SyntaxNode Def, SyntaxNode Decorated, int ClassIdx,
                         const std::string &Prefix, IndexOut &O) const {
  const Grammar &G = Grammar::get();
  std::string_view Src = Modules[Mod]->Source;
  Function F;
  F.Name = std::string(textOf(fieldOf(Def, G.FName), Src));
  F.QualName = Prefix + "." + F.Name;
  F.Mod = Mod;
  F.Class = ClassIdx;
  F.Node = Def;
  F.TooDeep = O.TooDeep.count(Def.id()) != 0;
  if (F.TooDeep)
    O.Problems.push_back(tooDeep(Def, "function '" + F.Name + "'"));
  collectParams(fieldOf(Def, G.FParameters), Src, F.Params);
  if (ClassIdx >= 0) {
    F.BoundMethod = true;
    eachChild(Decorated, true, [&](SyntaxNode D, TSFieldId) {
      if (kindOf(D) == G.Decorator &&
          textOf(D, Src).find("staticmethod") != std::string_view::npos)
        F.BoundMethod = false;
    });
  }
  int Index = (int)O.Functions.size();
  O.Functions.push_back(std::move(F));
  // Nested functions: analysed on their own, callable by name from here.
  // A body whose text never spells the keyword holds none: most do not,
  // and walking every statement of every body was a tenth of an edit in
  // the language server.
  SyntaxNode Body = fieldOf(Def, G.FBody);
  if (!mayDefine(textOf(Body, Src)))
    return Index;
  std::string Inner = O.Functions[Index].QualName + ".<locals>";
  std::vector<SyntaxNode> Work{Body};
  while (!Work.empty()) {
    SyntaxNode B = Work.back();
    Work.pop_back();
    eachChild(B, true, [&](SyntaxNode S, TSFieldId) {
      TSSymbol K = kindOf(S);
      SyntaxNode Decorated{};
      if (K == G.DecoratedDef)
        Decorated = S, S = fieldOf(S, G.FDefinition), K = kindOf(S);
      if (K == G.FunctionDef) {
        int N = addFunction(Mod, S, Decorated, -1, Inner, O);
        O.Functions[Index].Nested[O.Functions[N].Name] = N;
      } else if (K == G.ClassDef || K == G.Comment) {
        // Nested classes stay opaque.
      } else if (holdsStatements(K)) {
        Work.push_back(S);
      }
    });
  }
  return Index;
}

void Package::indexBlock(int Mod, SyntaxNode Block, int ClassIdx,
                         const std::string &Prefix, bool TopLevel,
                         IndexOut &O) const {
  const Grammar &G = Grammar::get();
  const Module &M = *Modules[Mod];
  std::string_view Src = M.Source;
  eachChild(Block, true, [&](SyntaxNode S, TSFieldId) {
    TSSymbol K = kindOf(S);
    SyntaxNode Decorated{};
    if (K == G.DecoratedDef) {
      Decorated = S;
      S = fieldOf(S, G.FDefinition);
      K = kindOf(S);
    }
    if (K == G.FunctionDef) {
      int F = addFunction(Mod, S, Decorated, ClassIdx, Prefix, O);
      if (ClassIdx >= 0)
        O.Classes[ClassIdx].Methods[O.Functions[F].Name] = F;
      else
        O.ModFunctions[O.Functions[F].Name] = F;
      return;
    }
    if (K == G.ClassDef) {
      if (ClassIdx >= 0)
        return; // nested classes stay opaque
      Class C;
      C.Name = std::string(textOf(fieldOf(S, G.FName), Src));
      C.QualName = Prefix + "." + C.Name;
      C.Mod = Mod;
      C.Node = S;
      SyntaxNode Sup = fieldOf(S, G.FSuperclasses);
      // Its bases are read by recursive helpers; its methods are scopes of
      // their own and still indexed.
      if (O.TooDeep.count(S.id())) {
        O.Problems.push_back(tooDeep(S, "class '" + C.Name + "'"));
        Sup = SyntaxNode{};
      }
      if (!isNull(Sup))
        eachChild(Sup, true, [&](SyntaxNode B, TSFieldId) {
          std::string D = dottedName(B, Src);
          if (!D.empty())
            C.BaseNames.push_back(D);
        });
      int Idx = (int)O.Classes.size();
      O.Classes.push_back(std::move(C));
      O.ModClasses[O.Classes[Idx].Name] = Idx;
      indexBlock(Mod, fieldOf(S, G.FBody), Idx, O.Classes[Idx].QualName, false,
                 O);
      return;
    }
    if (K == G.ExprStmt) {
      SyntaxNode A = firstChildOf(S);
      if (isNull(A) || kindOf(A) != G.Assignment)
        return;
      SyntaxNode L = fieldOf(A, G.FLeft), R = fieldOf(A, G.FRight);
      if (ClassIdx >= 0) {
        if (!isNull(fieldOf(A, G.FType)) &&
            kindOf(L) == G.Identifier)
          O.Classes[ClassIdx].Fields.emplace_back(textOf(L, Src));
        return;
      }
      // Chained `a = b = value`: every target is bound to the last value.
      std::vector<SyntaxNode> Targets{L};
      while (!isNull(R) && kindOf(R) == G.Assignment) {
        Targets.push_back(fieldOf(R, G.FLeft));
        R = fieldOf(R, G.FRight);
      }
      for (SyntaxNode T : Targets) {
        if (kindOf(T) != G.Identifier)
          continue;
        std::string Name(textOf(T, Src));
        O.Globals.emplace(Name, pos(Mod, T));
        if (!isNull(R) && kindOf(R) == G.None)
          O.NoneGlobals[Name] = pos(Mod, R);
        else if (!isNull(R))
          O.NoneGlobals.erase(Name);
      }
      return;
    }
    if (ClassIdx >= 0)
      return;
    if (K == G.Import) {
      eachChild(S, true, [&](SyntaxNode N, TSFieldId F) {
        if (F != G.FName)
          return;
        if (kindOf(N) == G.AliasedImport) {
          O.Imports[std::string(textOf(fieldOf(N, G.FAlias), Src))] =
              std::string(textOf(fieldOf(N, G.FName), Src));
        } else {
          std::string D(textOf(N, Src));
          std::string Head = D.substr(0, D.find('.'));
          O.Imports[Head] = Head;
        }
      });
      return;
    }
    if (K == G.ImportFrom) {
      std::string Base = importFromModule(S, Src, M.Name, M.IsPackage);
      eachChild(S, true, [&](SyntaxNode N, TSFieldId F) {
        if (kindOf(N) == G.WildcardImport) {
          O.StarImports.push_back(Base);
          return;
        }
        if (F != G.FName)
          return;
        if (kindOf(N) == G.AliasedImport)
          O.Imports[std::string(textOf(fieldOf(N, G.FAlias), Src))] =
              Base + "." + std::string(textOf(fieldOf(N, G.FName), Src));
        else
          O.Imports[std::string(textOf(N, Src))] =
              Base + "." + std::string(textOf(N, Src));
      });
      return;
    }
    // Conditional imports and definitions (try/except ImportError, if
    // TYPE_CHECKING, version checks, a match over the backend) still
    // define the module's names.
    if (K == G.If || K == G.Elif || K == G.Else || K == G.Try ||
        K == G.Except || K == G.Finally || K == G.With || K == G.Block ||
        K == G.ExceptGroup || K == G.Match || K == G.CaseClause) {
      eachChild(S, true, [&](SyntaxNode C, TSFieldId) {
        TSSymbol CK = kindOf(C);
        if (CK == G.Block || CK == G.CaseClause)
          indexBlock(Mod, C, ClassIdx, Prefix, TopLevel, O);
        else if (CK == G.Elif || CK == G.Else || CK == G.Except ||
                 CK == G.Finally || CK == G.ExceptGroup)
          indexBlock(Mod, C, ClassIdx, Prefix, TopLevel, O);
      });
    }
  });
}

void Package::indexModule(int Mod, IndexOut &O) const {
  const Module &M = *Modules[Mod];
  SyntaxNode Root = M.Tree->root();
  O.TooDeep = M.TooDeep ? *M.TooDeep : tooDeepScopes(Root);
  indexBlock(Mod, Root, -1, M.Name, true, O);
  Function Body;
  Body.TooDeep = O.TooDeep.count(TopLevelScope) != 0;
  if (Body.TooDeep)
    O.Problems.push_back(tooDeep(Root, "the top-level code"));
  Body.Name = "<module>";
  Body.QualName = M.Name;
  Body.Mod = Mod;
  Body.Node = Root;
  Body.ModuleBody = true;
  O.Body = (int)O.Functions.size();
  O.Functions.push_back(std::move(Body));
}

void Package::adopt(int Mod, IndexOut &&O) {
  Module &M = *Modules[Mod];
  int FBase = (int)Functions.size(), CBase = (int)Classes.size();
  for (Function &F : O.Functions) {
    if (F.Class >= 0)
      F.Class += CBase;
    for (auto &[Name, Idx] : F.Nested)
      Idx += FBase;
    Functions.push_back(std::move(F));
  }
  for (Class &C : O.Classes) {
    for (auto &[Name, Idx] : C.Methods)
      Idx += FBase;
    Classes.push_back(std::move(C));
  }
  M.Imports = std::move(O.Imports);
  M.Functions = std::move(O.ModFunctions);
  M.Classes = std::move(O.ModClasses);
  M.Globals = std::move(O.Globals);
  M.NoneGlobals = std::move(O.NoneGlobals);
  M.StarImports = std::move(O.StarImports);
  M.Problems = std::move(O.Problems);
  for (auto &[Name, Idx] : M.Functions)
    Idx += FBase;
  for (auto &[Name, Idx] : M.Classes)
    Idx += CBase;
  M.Body = O.Body + FBase;
}

Resolved Package::canonical(const std::string &Qual, int Depth) {
  Resolved R;
  R.Qual = Qual;
  if (Depth > 8)
    return R;
  // The longest prefix that names a scanned module.
  size_t Cut = Qual.size();
  while (true) {
    auto It = ModuleByName.find(Qual.substr(0, Cut));
    if (It != ModuleByName.end()) {
      Module &M = *Modules[It->second];
      if (Cut == Qual.size()) {
        R.Kind = Resolved::Module;
        R.Index = It->second;
        return R;
      }
      std::string Rest = Qual.substr(Cut + 1);
      size_t Dot = Rest.find('.');
      std::string Head = Rest.substr(0, Dot);
      std::string Tail = Dot == std::string::npos ? "" : Rest.substr(Dot + 1);
      auto F = M.Functions.find(Head);
      if (F != M.Functions.end()) {
        if (Tail.empty()) {
          R.Kind = Resolved::Function;
          R.Index = F->second;
          R.Qual = Functions[F->second].QualName;
        }
        return R;
      }
      auto C = M.Classes.find(Head);
      if (C != M.Classes.end()) {
        R.Qual = Classes[C->second].QualName + (Tail.empty() ? "" : "." + Tail);
        if (Tail.empty()) {
          R.Kind = Resolved::Class;
          R.Index = C->second;
        } else if (Tail.find('.') == std::string::npos) {
          int Meth = findMethod(C->second, Tail);
          if (Meth >= 0) {
            R.Kind = Resolved::Function;
            R.Index = Meth;
          }
        }
        return R;
      }
      auto I = M.Imports.find(Head);
      if (I != M.Imports.end() && I->second != Qual.substr(0, Cut + 1 + Head.size()))
        return canonical(I->second + (Tail.empty() ? "" : "." + Tail), Depth + 1);
      if (M.Globals.count(Head)) {
        if (Tail.empty()) {
          R.Kind = Resolved::Global;
          R.Qual = M.Name + "." + Head;
        }
        return R;
      }
      for (const std::string &Star : M.StarImports) {
        Resolved S = canonical(Star + "." + Rest, Depth + 1);
        if (S.Kind != Resolved::External)
          return S;
      }
      return R;
    }
    size_t Dot = Qual.rfind('.', Cut == 0 ? 0 : Cut - 1);
    if (Dot == std::string::npos || Cut == 0)
      return R;
    Cut = Dot;
  }
}

Resolved Package::resolve(
    int Mod, const std::string &Dotted,
    const std::unordered_map<std::string, std::string> *LocalImports) {
  size_t Dot = Dotted.find('.');
  std::string Head = Dotted.substr(0, Dot);
  std::string Tail = Dot == std::string::npos ? "" : Dotted.substr(Dot);
  if (LocalImports) {
    auto It = LocalImports->find(Head);
    if (It != LocalImports->end())
      return canonical(It->second + Tail, 0);
  }
  Module &M = *Modules[Mod];
  {
    std::lock_guard<std::mutex> Lock(M.ResolveMu);
    auto C = M.ResolveCache.find(Dotted);
    if (C != M.ResolveCache.end())
      return C->second;
  }
  Resolved R;
  auto It = M.Imports.find(Head);
  if (It != M.Imports.end())
    R = canonical(It->second + Tail, 0);
  else if (M.Functions.count(Head) || M.Classes.count(Head) ||
           M.Globals.count(Head))
    R = canonical(M.Name + "." + Dotted, 0);
  else {
    R.Qual = Dotted;
    for (const std::string &Star : M.StarImports) {
      Resolved S = canonical(Star + "." + Dotted, 0);
      if (S.Kind != Resolved::External) {
        R = S;
        break;
      }
    }
  }
  std::lock_guard<std::mutex> Lock(M.ResolveMu);
  M.ResolveCache.emplace(Dotted, R);
  return R;
}

void Package::indexAll() {
  for (size_t I = 0; I < Modules.size(); ++I) {
    IndexOut O;
    indexModule(int(I), O);
    adopt(int(I), std::move(O));
  }
  resolveBases();
}

void Package::resolveBases() {
  for (size_t K = 0; K < Classes.size(); ++K) {
    if (Classes[K].BasesResolved)
      continue;
    Classes[K].BasesResolved = true;
    for (const std::string &B : Classes[K].BaseNames) {
      Resolved R = resolve(Classes[K].Mod, B);
      if (R.Kind == Resolved::Class)
        Classes[K].Bases.push_back(R.Index);
    }
  }
}

int Package::findMethod(int C, const std::string &Name, bool SkipSelf) {
  std::vector<int> Work{C};
  std::unordered_set<int> Seen;
  while (!Work.empty()) {
    int K = Work.back();
    Work.erase(Work.begin() + (Work.size() - 1));
    if (!Seen.insert(K).second)
      continue;
    Class &Cl = Classes[K];
    if (!(SkipSelf && K == C)) {
      auto It = Cl.Methods.find(Name);
      if (It != Cl.Methods.end())
        return It->second;
    }
    if (!Cl.BasesResolved) {
      Cl.BasesResolved = true;
      for (const std::string &B : Cl.BaseNames) {
        Resolved R = resolve(Cl.Mod, B);
        if (R.Kind == Resolved::Class)
          Classes[K].Bases.push_back(R.Index);
      }
    }
    // Depth-first, left to right: close enough to the MRO for lookup.
    const std::vector<int> &Bs = Classes[K].Bases;
    for (auto It = Bs.rbegin(); It != Bs.rend(); ++It)
      Work.push_back(*It);
  }
  return -1;
}
