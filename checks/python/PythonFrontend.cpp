//===- PythonFrontend.cpp - The four tether checks over Python packages ---===//
//
// Pipeline: discover files; read and parse them in parallel (one tree-sitter
// parse per file); index modules; walk every function, callees first and
// in parallel (Schedule.h); judge the capture facts package-wide; drop what
// NOLINT / noqa comments suppress.
//
//===----------------------------------------------------------------------===//
#include "PythonFrontend.h"
#include "Checks.h"
#include "Model.h"
#include "Schedule.h"
#include "Sources.h"
#include "Suppression.h"
#include "Syntax.h"
#include "TreeAlloc.h"
#include "Walker.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include <memory>

using namespace tether;
using namespace tether::python;

namespace {

struct Loaded {
  std::string Text;
  TSTree *Tree = nullptr;
  std::string Problem;
  SourceLayout Layout;
  std::string Name;
  bool IsPackage = false;
};

struct ParserDeleter {
  void operator()(TSParser *P) const { ts_parser_delete(P); }
};

TSParser *threadParser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> Parser;
  if (!Parser) {
    Parser.reset(ts_parser_new());
    ts_parser_set_language(Parser.get(), Grammar::get().Lang);
  }
  return Parser.get();
}

std::string at(TSPoint P) {
  return "line " + std::to_string(P.row + 1) + ", column " +
         std::to_string(P.column + 1);
}

bool isErrorNode(TSNode N) {
  return ts_node_symbol(N) == (TSSymbol)-1; // ts_builtin_sym_error
}

/// A Python 2 statement (print / exec) among the statements of the tree.
bool findPython2(TSNode Root, TSPoint &Where) {
  const Grammar &G = Grammar::get();
  std::vector<TSNode> Work{Root};
  while (!Work.empty()) {
    TSNode N = Work.back();
    Work.pop_back();
    bool Found = false;
    forEachChild(N, true, [&](TSNode C, TSFieldId) {
      if (Found)
        return;
      TSSymbol K = ts_node_symbol(C);
      if (K == G.PrintStmt || K == G.ExecStmt) {
        Where = ts_node_start_point(C);
        Found = true;
      } else if (K == G.Block || K == G.FunctionDef || K == G.ClassDef ||
                 K == G.DecoratedDef || K == G.If || K == G.Elif ||
                 K == G.Else || K == G.For || K == G.While || K == G.Try ||
                 K == G.Except || K == G.Finally || K == G.With ||
                 isErrorNode(C)) {
        Work.push_back(C);
      }
    });
    if (Found)
      return true;
  }
  return false;
}

/// The first syntax error (an ERROR or a MISSING node) of a tree with one.
TSPoint firstError(TSNode N) {
  while (true) {
    if (isErrorNode(N) || ts_node_is_missing(N))
      return ts_node_start_point(N);
    TSNode Next{};
    bool Found = false;
    forEachChild(N, false, [&](TSNode C, TSFieldId) {
      if (!Found && (ts_node_has_error(C) || ts_node_is_missing(C))) {
        Next = C;
        Found = true;
      }
    });
    if (!Found)
      return ts_node_start_point(N);
    N = Next;
  }
}

void load(const std::string &Path, Loaded &L) {
  if (!readSource(Path, L.Text, L.Problem, L.Layout))
    return;
  L.Name = moduleNameFor(Path, L.IsPackage);
  TSParser *Parser = threadParser();
  TSTree *T = ts_parser_parse_string(Parser, nullptr, L.Text.data(),
                                     (uint32_t)L.Text.size());
  if (!T) {
    L.Problem = "the parser gave up on this file; skipped";
    return;
  }
  TSNode Root = ts_tree_root_node(T);
  TSPoint Py2;
  // Only a source that spells print or exec can hold such a statement.
  bool IsPy2 = (L.Text.find("print") != std::string::npos ||
                L.Text.find("exec") != std::string::npos) &&
               findPython2(Root, Py2);
  if (ts_node_has_error(Root)) {
    TSPoint E = firstError(Root);
    L.Problem = "syntax error at " + at(E) +
                (IsPy2 ? " (Python 2 source? a print statement is at " +
                             at(Py2) + "); only Python 3 is analysed"
                       : "; not analysed");
    ts_tree_delete(T);
    return;
  }
  if (IsPy2) {
    L.Problem = "Python 2 source (print/exec statement at " + at(Py2) +
                "); only Python 3 is analysed";
    ts_tree_delete(T);
    return;
  }
  L.Tree = T;
}

} // namespace

Result tether::python::analyze(const std::vector<std::string> &Paths,
                               CatalogProvider &Catalogs, unsigned Jobs) {
  installTreeAllocator();
  Result R;
  Discovery D = discover(Paths);
  R.Problems = std::move(D.Problems);

  // Catalogs first: a malformed .tether.yaml stops the scan.
  std::vector<std::shared_ptr<const CompiledCatalog>> Cats(D.Files.size());
  for (size_t I = 0; I < D.Files.size(); ++I) {
    auto C = Catalogs.forFile(D.Files[I]);
    if (!C) {
      R.FatalError = llvm::toString(C.takeError());
      return R;
    }
    Cats[I] = *C;
  }

  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
  std::vector<Loaded> Files(D.Files.size());
  for (size_t I = 0; I < D.Files.size(); ++I)
    Pool.async([&, I] { load(D.Files[I], Files[I]); });
  Pool.wait();

  Package P;
  for (size_t I = 0; I < D.Files.size(); ++I) {
    Loaded &L = Files[I];
    if (!L.Tree) {
      R.Problems.push_back({D.Files[I], L.Problem});
      continue;
    }
    auto M = std::make_unique<Module>();
    M->Path = D.Files[I];
    M->Name = std::move(L.Name);
    M->IsPackage = L.IsPackage;
    M->Source = std::move(L.Text);
    M->Layout = L.Layout;
    M->Tree = L.Tree;
    M->Cat = Cats[I];
    int Idx = (int)P.Modules.size();
    P.ModuleByName.emplace(M->Name, Idx);
    P.Modules.push_back(std::move(M));
  }
  R.FilesRead = (unsigned)P.Modules.size();
  std::vector<Package::IndexOut> Indexed(P.Modules.size());
  for (size_t I = 0; I < P.Modules.size(); ++I)
    Pool.async([&, I] { P.indexModule((int)I, Indexed[I]); });
  Pool.wait();
  size_t NumFunctions = 0;
  for (const Package::IndexOut &O : Indexed)
    NumFunctions += O.Functions.size();
  P.Functions.reserve(NumFunctions);
  for (size_t I = 0; I < P.Modules.size(); ++I)
    P.adopt((int)I, std::move(Indexed[I]));
  analyzeFunctions(P, Pool);
  // The trees are done with: free them while the package checks run.
  for (auto &M : P.Modules)
    Pool.async([T = M->Tree] { ts_tree_delete(T); });
  for (auto &M : P.Modules)
    M->Tree = nullptr;
  for (Function &F : P.Functions)
    for (Finding &Fi : F.F.Findings)
      P.Findings.push_back(std::move(Fi));
  runPackageChecks(P);
  Pool.wait();

  // NOLINT / noqa, parsed only for files with findings.
  std::unordered_map<std::string, std::unique_ptr<Suppressions>> Supp;
  std::unordered_map<std::string, const Module *> ByPath;
  for (auto &M : P.Modules)
    ByPath.emplace(M->Path, M.get());
  for (Finding &F : P.Findings) {
    auto &S = Supp[F.Loc.File];
    if (!S) {
      auto It = ByPath.find(F.Loc.File);
      S = std::make_unique<Suppressions>(
          It == ByPath.end() ? std::string_view() : It->second->Source);
    }
    if (!S->suppressed(F.Loc.Line, F.Check))
      R.Findings.push_back(std::move(F));
  }
  return R;
}
