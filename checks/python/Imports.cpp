//===- Imports.cpp - The modules a file imports, found on disk ------------===//
#include "Imports.h"
#include "Syntax.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace tether::python;

namespace {

std::string parentOf(const std::string &Name) {
  size_t Dot = Name.rfind('.');
  return Dot == std::string::npos ? std::string() : Name.substr(0, Dot);
}

// a.b.c -> a, a.b, a.b.c: importing a submodule runs its packages too.
void addWithParents(const std::string &Name, std::vector<std::string> &Out) {
  for (size_t Dot = Name.find('.'); Dot != std::string::npos;
       Dot = Name.find('.', Dot + 1))
    Out.push_back(Name.substr(0, Dot));
  if (!Name.empty())
    Out.push_back(Name);
}

std::string fromBase(TSNode S, std::string_view Src, const std::string &Module,
                     bool IsPackage) {
  const Grammar &G = Grammar::get();
  TSNode MN = field(S, G.FModuleName);
  if (ts_node_is_null(MN))
    return {};
  if (ts_node_symbol(MN) != G.RelativeImport)
    return std::string(nodeText(MN, Src));
  std::string Pkg = IsPackage ? Module : parentOf(Module);
  std::string Rest;
  forEachChild(MN, true, [&](TSNode C, TSFieldId) {
    if (ts_node_symbol(C) == G.ImportPrefix) {
      for (size_t I = 1; I < nodeText(C, Src).size(); ++I)
        Pkg = parentOf(Pkg);
    } else if (ts_node_symbol(C) == G.DottedName) {
      Rest = std::string(nodeText(C, Src));
    }
  });
  return Pkg.empty() ? Rest : (Rest.empty() ? Pkg : Pkg + "." + Rest);
}

} // namespace

std::vector<std::string>
tether::python::importedModules(TSNode Root, std::string_view Src,
                                const std::string &Module, bool IsPackage) {
  const Grammar &G = Grammar::get();
  std::vector<std::string> Out;
  std::vector<TSNode> Work{Root};
  while (!Work.empty()) {
    TSNode N = Work.back();
    Work.pop_back();
    TSSymbol K = ts_node_symbol(N);
    if (K == G.Import) {
      forEachChild(N, true, [&](TSNode C, TSFieldId F) {
        if (F != G.FName)
          return;
        TSNode Name = ts_node_symbol(C) == G.AliasedImport ? field(C, G.FName) : C;
        addWithParents(std::string(nodeText(Name, Src)), Out);
      });
      continue;
    }
    if (K == G.ImportFrom) {
      std::string Base = fromBase(N, Src, Module, IsPackage);
      addWithParents(Base, Out);
      forEachChild(N, true, [&](TSNode C, TSFieldId F) {
        if (F != G.FName || Base.empty())
          return;
        TSNode Name = ts_node_symbol(C) == G.AliasedImport ? field(C, G.FName) : C;
        Out.push_back(Base + "." + std::string(nodeText(Name, Src)));
      });
      continue;
    }
    // Imports sit in statements and blocks; expressions hold none.
    forEachChild(N, true, [&](TSNode C, TSFieldId) {
      TSSymbol CK = ts_node_symbol(C);
      if (CK == G.Import || CK == G.ImportFrom || CK == G.Block ||
          CK == G.FunctionDef || CK == G.ClassDef || CK == G.DecoratedDef ||
          CK == G.If || CK == G.Elif || CK == G.Else || CK == G.For ||
          CK == G.While || CK == G.Try || CK == G.Except || CK == G.Finally ||
          CK == G.With || CK == G.ExceptGroup)
        Work.push_back(C);
    });
  }
  return Out;
}

std::string tether::python::modulePath(const std::string &Root,
                                       const std::string &Name) {
  if (Name.empty())
    return {};
  llvm::SmallString<256> P(Root);
  for (llvm::StringRef Part : llvm::split(Name, '.')) {
    if (Part.empty())
      return {};
    llvm::sys::path::append(P, Part);
  }
  llvm::SmallString<256> File(P);
  File += ".py";
  if (llvm::sys::fs::is_regular_file(File))
    return File.str().str();
  llvm::sys::path::append(P, "__init__.py");
  if (llvm::sys::fs::is_regular_file(P))
    return P.str().str();
  return {};
}
