//===- Imports.cpp - The modules a file imports, found on disk ------------===//
#include "Imports.h"
#include "Syntax.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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

} // namespace

std::string tether::python::importFromModule(SyntaxNode S, std::string_view Src,
                                             const std::string &Module,
                                             bool IsPackage) {
  const Grammar &G = Grammar::get();
  SyntaxNode MN = field(S, G.FModuleName);
  if (isNull(MN))
    return {};
  if (symbolOf(MN) != G.RelativeImport)
    return std::string(nodeText(MN, Src));
  std::string Pkg = IsPackage ? Module : parentOf(Module);
  std::string Rest;
  forEachChild(MN, true, [&](SyntaxNode C, TSFieldId) {
    if (symbolOf(C) == G.ImportPrefix) {
      for (size_t I = 1; I < nodeText(C, Src).size(); ++I)
        Pkg = parentOf(Pkg);
    } else if (symbolOf(C) == G.DottedName) {
      Rest = std::string(nodeText(C, Src));
    }
  });
  return Pkg.empty() ? Rest : (Rest.empty() ? Pkg : Pkg + "." + Rest);
}


std::vector<std::string>
tether::python::importedModules(SyntaxNode Root, std::string_view Src,
                                const std::string &Module, bool IsPackage) {
  const Grammar &G = Grammar::get();
  std::vector<std::string> Out;
  findAmongStatements(Root, /*IntoErrors=*/false, [&](SyntaxNode N) {
    TSSymbol K = symbolOf(N);
    if (K == G.Import) {
      forEachChild(N, true, [&](SyntaxNode C, TSFieldId F) {
        if (F != G.FName)
          return;
        SyntaxNode Name = symbolOf(C) == G.AliasedImport ? field(C, G.FName) : C;
        addWithParents(std::string(nodeText(Name, Src)), Out);
      });
    } else if (K == G.ImportFrom) {
      std::string Base = importFromModule(N, Src, Module, IsPackage);
      addWithParents(Base, Out);
      forEachChild(N, true, [&](SyntaxNode C, TSFieldId F) {
        if (F != G.FName || Base.empty())
          return;
        SyntaxNode Name = symbolOf(C) == G.AliasedImport ? field(C, G.FName) : C;
        Out.push_back(Base + "." + std::string(nodeText(Name, Src)));
      });
    }
    return false; // every import, not the first
  });
  return Out;
}

const DirectoryCache::Listing &
DirectoryCache::listing(const std::string &Dir) {
  // Under the lock: folders are few, and a second thread would list the
  // same folder again.
  std::unique_ptr<Listing> &L = Folders[Dir];
  if (L)
    return *L;
  L = std::make_unique<Listing>();
  namespace fs = llvm::sys::fs;
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC, /*follow_symlinks=*/false), End;
       It != End && !EC; It.increment(EC)) {
    fs::file_type T = It->type();
    if (T == fs::file_type::symlink_file) { // links are few: resolve them now
      fs::file_status St;
      T = fs::status(It->path(), St, /*follow=*/true) ? fs::file_type::status_error
                                                       : St.type();
    }
    Kind K = T == fs::file_type::regular_file    ? File
             : T == fs::file_type::directory_file ? Folder
             : T == fs::file_type::status_error   ? Missing
                                                  : Other;
    L->emplace(llvm::sys::path::filename(It->path()).str(), K);
  }
  return *L;
}

DirectoryCache::Kind DirectoryCache::kind(const std::string &Dir,
                                          const std::string &Name) {
  std::lock_guard<std::mutex> Lock(Mu);
  const Listing &L = listing(Dir);
  auto It = L.find(Name);
  return It == L.end() ? Missing : It->second;
}

size_t DirectoryCache::foldersListed() {
  std::lock_guard<std::mutex> Lock(Mu);
  return Folders.size();
}

std::string tether::python::modulePath(DirectoryCache &Dirs,
                                       const std::string &Root,
                                       const std::string &Name) {
  if (Name.empty())
    return {};
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  llvm::StringRef(Name).split(Parts, '.');
  std::string Dir = Root;
  for (size_t I = 0; I + 1 < Parts.size(); ++I) {
    if (Parts[I].empty() || Dirs.kind(Dir, Parts[I].str()) != DirectoryCache::Folder)
      return {};
    Dir += "/" + Parts[I].str();
  }
  std::string Last = Parts.back().str();
  if (Last.empty())
    return {};
  if (Dirs.kind(Dir, Last + ".py") == DirectoryCache::File)
    return Dir + "/" + Last + ".py";
  if (Dirs.kind(Dir, Last) == DirectoryCache::Folder &&
      Dirs.kind(Dir + "/" + Last, "__init__.py") == DirectoryCache::File)
    return Dir + "/" + Last + "/__init__.py";
  return {};
}

namespace {

bool namesAsWord(llvm::StringRef Text, llvm::StringRef Word) {
  for (size_t At = Text.find(Word); At != llvm::StringRef::npos;
       At = Text.find(Word, At + 1)) {
    bool Before = At == 0 || !isIdentChar(Text[At - 1]);
    size_t End = At + Word.size();
    bool After = End >= Text.size() || !isIdentChar(Text[End]);
    if (Before && After)
      return true;
  }
  return false;
}

/// Larger files are not read as possible importers (a generated table, not
/// a module someone edits).
constexpr size_t MaxImporterBytes = 8u << 20;

std::string lastPart(const std::string &Module) {
  size_t Dot = Module.rfind('.');
  return Dot == std::string::npos ? Module : Module.substr(Dot + 1);
}

} // namespace

ImportWords::ImportWords(std::string_view Text)
    : Text(Text), SaysImport(Text.size() <= MaxImporterBytes &&
                 llvm::StringRef(Text).contains("import")) {
  if (!SaysImport)
    return;
  for (size_t I = 0; I < Text.size();) {
    if (!isIdentChar(Text[I])) {
      ++I;
      continue;
    }
    size_t End = I + 1;
    while (End < Text.size() && isIdentChar(Text[End]))
      ++End;
    Words.insert(llvm::StringRef(Text.data() + I, End - I));
    I = End;
  }
}

bool ImportWords::names(llvm::StringRef Word) const {
  if (!Word.empty() && llvm::all_of(Word, isIdentChar))
    return Words.contains(Word);
  return namesAsWord(Text, Word); // not one word: look in the text
}

std::vector<std::string>
tether::python::importersOf(const std::set<std::string> &Roots,
                            std::vector<std::string> Modules,
                            const std::set<std::string> &Skip, size_t Max,
                            const WordsReader &ReadWords) {
  namespace fs = llvm::sys::fs;
  // Every candidate, read once: its text from disk, or its words from
  // ReadWords.
  struct Candidate {
    std::string Path;
    std::unique_ptr<std::string> Text; ///< Read from disk,
    std::shared_ptr<const ImportWords> Words; ///< or else from ReadWords.
    bool saysImport() const {
      return Words ? Words->saysImport()
                   : llvm::StringRef(*Text).contains("import");
    }
    bool names(const std::string &W) const {
      return Words ? Words->names(W) : namesAsWord(*Text, W);
    }
  };
  std::vector<Candidate> Candidates;
  std::set<std::string> Listed;
  for (const std::string &Root : Roots) {
    std::error_code EC;
    for (fs::recursive_directory_iterator It(Root, EC, /*follow=*/false), End;
         It != End && !EC && Candidates.size() < Max; It.increment(EC)) {
      llvm::StringRef Name = llvm::sys::path::filename(It->path());
      if ((Name.starts_with(".") && Name.size() > 1) || Name == "__pycache__") {
        It.no_push();
        continue;
      }
      if (It->type() != fs::file_type::regular_file ||
          llvm::sys::path::extension(It->path()) != ".py" ||
          Skip.count(It->path()) || !Listed.insert(It->path()).second)
        continue;
      if (ReadWords) {
        if (auto Words = ReadWords(It->path()))
          Candidates.push_back({It->path(), nullptr, std::move(Words)});
        continue;
      }
      auto Buf = llvm::MemoryBuffer::getFile(It->path(), /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      if (Buf && (*Buf)->getBufferSize() <= MaxImporterBytes)
        Candidates.push_back(
            {It->path(),
             std::make_unique<std::string>((*Buf)->getBuffer().str()),
             nullptr});
    }
  }
  std::vector<std::string> Out;
  std::vector<bool> Taken(Candidates.size(), false);
  std::set<std::string> Wanted;
  for (const std::string &M : Modules)
    Wanted.insert(lastPart(M));
  for (int Round = 0; Round < 8 && !Wanted.empty(); ++Round) {
    std::set<std::string> Next;
    for (size_t I = 0; I < Candidates.size(); ++I) {
      if (Taken[I])
        continue;
      const Candidate &C = Candidates[I];
      if (!C.saysImport() ||
          llvm::none_of(Wanted, [&](const std::string &W) { return C.names(W); }))
        continue;
      Taken[I] = true;
      Out.push_back(C.Path);
      llvm::StringRef Path = C.Path;
      llvm::StringRef Stem = llvm::sys::path::stem(Path);
      // A package is imported by its folder's name.
      Next.insert(Stem == "__init__"
                      ? llvm::sys::path::filename(llvm::sys::path::parent_path(Path)).str()
                      : Stem.str());
    }
    Wanted = std::move(Next);
  }
  return Out;
}
