//===- CxxFrontend.cpp ----------------------------------------------------===//
//
// One clang-tidy run per translation unit, in parallel (-j), each with its own
// ClangTidyContext so NOLINT handling, check globs and option files behave
// exactly as in clang-tidy.
//
//===----------------------------------------------------------------------===//
#include "CxxFrontend.h"
#include "LineTable.h"
#include "ResourceDir.h"
#include "Progress.h"
#include "cxx/analysis/TUAnalysis.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <map>
#include <mutex>

using namespace tether;
using namespace clang;
using namespace clang::tidy;
using tooling::CompilationDatabase;

extern volatile int TetherModuleAnchorSource;
// Keeps the statically linked module (and its registration) in the binary.
[[maybe_unused]] static int TetherModuleAnchor = TetherModuleAnchorSource;

namespace {
/// A compilation database loaded once and shared by every file that finds
/// it: a large compile_commands.json is megabytes of JSON, and parsing it
/// again for each translation unit (once to check the commands, once to run)
/// cost more than the analysis of a small TU. Lookups are serialised, as the
/// -j threads share it.
struct LoadedDatabase {
  std::unique_ptr<CompilationDatabase> DB; // null: none in that directory
  std::string Err;
  std::mutex Mu;
};

class SharedDatabase : public CompilationDatabase {
public:
  explicit SharedDatabase(std::shared_ptr<LoadedDatabase> L) : L(std::move(L)) {}
  std::vector<tooling::CompileCommand>
  getCompileCommands(StringRef File) const override {
    std::lock_guard<std::mutex> Lock(L->Mu);
    return L->DB->getCompileCommands(File);
  }
  std::vector<std::string> getAllFiles() const override {
    std::lock_guard<std::mutex> Lock(L->Mu);
    return L->DB->getAllFiles();
  }
  std::vector<tooling::CompileCommand> getAllCompileCommands() const override {
    std::lock_guard<std::mutex> Lock(L->Mu);
    return L->DB->getAllCompileCommands();
  }

private:
  std::shared_ptr<LoadedDatabase> L;
};

} // namespace

struct tether::DatabaseCache {
  std::mutex Mu;
  std::map<std::string, std::shared_ptr<LoadedDatabase>> Loaded;
};

std::shared_ptr<DatabaseCache> tether::makeDatabaseCache() {
  return std::make_shared<DatabaseCache>();
}

namespace {
/// The database Load makes for Key: loaded on first use when the run shares
/// databases, else every time.
std::unique_ptr<CompilationDatabase> cachedDatabase(
    DatabaseCache *Cache, const std::string &Key, std::string &Err,
    llvm::function_ref<std::unique_ptr<CompilationDatabase>(std::string &)> Load) {
  if (!Cache)
    return Load(Err);
  std::shared_ptr<LoadedDatabase> L;
  {
    std::lock_guard<std::mutex> Lock(Cache->Mu);
    auto &Slot = Cache->Loaded[Key];
    if (!Slot) {
      Slot = std::make_shared<LoadedDatabase>();
      Slot->DB = Load(Slot->Err);
    }
    L = Slot;
  }
  if (!L->DB) {
    Err = L->Err;
    return nullptr;
  }
  return std::make_unique<SharedDatabase>(std::move(L));
}

/// The nearest compile_commands.json / compile_flags.txt in a directory
/// above File or in its build/ subdirectory, the places clangd looks, so a
/// pre-commit hook run from the repository root finds build/.
std::unique_ptr<CompilationDatabase>
findDatabaseAbove(DatabaseCache *Cache, StringRef File, std::string &Err) {
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  for (StringRef Dir = llvm::sys::path::parent_path(Abs); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Build(Dir);
    llvm::sys::path::append(Build, "build");
    for (StringRef Candidate : {Dir, StringRef(Build)}) {
      std::string Ignored;
      if (auto DB = cachedDatabase(
              Cache, "dir:" + Candidate.str(), Ignored, [&](std::string &E) {
                return CompilationDatabase::loadFromDirectory(Candidate, E);
              }))
        return DB;
    }
  }
  Err = "no compilation database found";
  return nullptr;
}

/// The compile database for one file: the "--" arguments, -p, or the nearest
/// one above the file. (A JSON database interpolates commands for files it
/// does not list, headers included, as clangd does.)
std::unique_ptr<CompilationDatabase> databaseFor(const std::string &File,
                                                 const CxxOptions &Opts,
                                                 std::string &Err) {
  std::unique_ptr<CompilationDatabase> DB;
  if (Opts.HaveFixedArgs)
    DB = std::make_unique<tooling::FixedCompilationDatabase>(".",
                                                             Opts.FixedArgs);
  else if (!Opts.BuildPath.empty())
    DB = cachedDatabase(Opts.Databases.get(), "auto:" + Opts.BuildPath, Err,
                        [&](std::string &E) {
      return CompilationDatabase::autoDetectFromDirectory(Opts.BuildPath, E);
    });
  else
    DB = findDatabaseAbove(Opts.Databases.get(), File, Err);
  if (!DB)
    return nullptr;
  // Built outside LLVM's bin/, the driver would guess the resource dir
  // (builtin headers) wrong.
  auto Adjusted = std::make_unique<tooling::ArgumentsAdjustingCompilations>(
      std::move(DB));
  Adjusted->appendArgumentsAdjuster(
      [](const tooling::CommandLineArguments &Args, StringRef) {
        for (const std::string &A : Args)
          if (StringRef(A).starts_with("-resource-dir"))
            return Args;
        tooling::CommandLineArguments Out = Args;
        Out.insert(Out.begin() + (Out.empty() ? 0 : 1),
                   "-resource-dir=" + clangResourceDir());
        return Out;
      });
  return Adjusted;
}

std::unique_ptr<ClangTidyOptionsProvider> optionsFor(const CxxOptions &Opts) {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,tether-*";
  ClangTidyOptions Override;
  // Appended after any .clang-tidy's Checks: only tether checks run here.
  Override.Checks = "-*," + Opts.Checks;
  if (!Opts.ConfigFile.empty())
    Override.CheckOptions["TetherConfig"] =
        ClangTidyOptions::ClangTidyValue(Opts.ConfigFile);
  return std::make_unique<FileOptionsProvider>(
      ClangTidyGlobalOptions(), Defaults, Override,
      llvm::vfs::getRealFileSystem());
}

std::string displayPath(StringRef P) { return LineTable::displayPath(P); }

/// File as clang reported it: relative paths (headers found through a
/// relative -I) are relative to the compile command's directory.
Location locate(LineTable &Lines, StringRef File, unsigned Offset,
                StringRef BuildDirectory) {
  llvm::SmallString<256> Path(File);
  if (llvm::sys::path::is_relative(Path) && !BuildDirectory.empty())
    llvm::sys::path::make_absolute(BuildDirectory, Path);
  Location L;
  L.File = displayPath(Path);
  auto [Line, Col] = Lines.lineAndColumn(Path, Offset);
  L.Line = Line;
  L.Column = Col;
  return L;
}
} // namespace

llvm::Error tether::checkCompileCommands(
    const std::vector<std::string> &Files, const CxxOptions &Opts,
    llvm::function_ref<bool(const std::string &)> MayLeaveOut,
    std::vector<std::string> *LeftOut) {
  for (const std::string &F : Files) {
    std::string Err;
    auto DB = databaseFor(F, Opts, Err);
    llvm::SmallString<256> Abs(F);
    llvm::sys::fs::make_absolute(Abs);
    if ((!DB || DB->getCompileCommands(Abs).empty()) && MayLeaveOut &&
        MayLeaveOut(F)) {
      LeftOut->push_back(F);
      continue;
    }
    if (!DB) {
      if (!Opts.BuildPath.empty())
        // clang's message spans several lines; the contract is one.
        return llvm::createStringError(
            Opts.BuildPath + ": no compilation database (no "
                             "compile_commands.json or compile_flags.txt in "
                             "this directory or above it)");
      return llvm::createStringError(
          F + ": no compile_commands.json or compile_flags.txt found above "
              "this file (or in a build/ beside one of its parent "
              "directories); pass -p BUILD_DIR or compiler flags after --");
    }
    if (DB->getCompileCommands(Abs).empty())
      return llvm::createStringError(
          F + ": not in the compilation database" +
          (Opts.BuildPath.empty() ? "" : " of " + Opts.BuildPath));
  }
  return llvm::Error::success();
}

CxxResult tether::runCxx(const std::vector<std::string> &Files,
                         const CxxOptions &Opts) {
  CxxResult Result;
  std::mutex Lock;
  LineTable Lines;

  auto RunOne = [&](const std::string &File) {
    if (Opts.Steps)
      Opts.Steps->start(displayPath(File));
    std::string Err;
    auto DB = databaseFor(File, Opts, Err);
    llvm::SmallString<256> Abs(File);
    llvm::sys::fs::make_absolute(Abs);
    ClangTidyContext Context(optionsFor(Opts), false, false, false);
    // A physical file system of its own: ClangTool sets the working
    // directory of its file system to each compile command's directory, and
    // on the shared real file system that is a process-wide chdir, which
    // would race with the other -j threads.
    auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
        llvm::vfs::createPhysicalFileSystem());
    std::vector<ClangTidyError> Errors =
        runClangTidy(Context, *DB, {std::string(Abs)}, FS, Opts.Fix,
                     /*EnableCheckProfile=*/false, "", /*Quiet=*/true);

    std::lock_guard<std::mutex> G(Lock);
    for (const ClangTidyError &E : Errors) {
      const tooling::DiagnosticMessage &M = E.Message;
      if (StringRef(E.DiagnosticName).starts_with("clang-diagnostic-") ||
          E.DiagLevel == tooling::Diagnostic::Error) {
        if (E.DiagLevel != tooling::Diagnostic::Error)
          continue;
        std::string Where = M.FilePath.empty()
                                ? displayPath(Abs)
                                : [&] {
                                    Location L = locate(Lines, M.FilePath,
                                                        M.FileOffset,
                                                        E.BuildDirectory);
                                    return L.File + ":" +
                                           std::to_string(L.Line) + ":" +
                                           std::to_string(L.Column);
                                  }();
        Result.Errors.push_back(Where + ": error: " + M.Message);
        continue;
      }
      Finding F;
      F.Check = E.DiagnosticName;
      F.Loc = locate(Lines, M.FilePath, M.FileOffset, E.BuildDirectory);
      F.Message = M.Message;
      for (const tooling::DiagnosticMessage &N : E.Notes)
        F.Notes.push_back(
            {locate(Lines, N.FilePath, N.FileOffset, E.BuildDirectory),
             N.Message});
      for (const auto &[Path, Reps] : M.Fix)
        for (const tooling::Replacement &R : Reps)
          F.Fixes.push_back({std::string(R.getFilePath()), R.getOffset(),
                             R.getLength(), std::string(R.getReplacementText())});
      Result.Findings.push_back(std::move(F));
    }
  };

  if (Opts.KeepPrograms)
    cxx::setProgramSink([&](engine::Program &&P) {
      // Notes into C++ bodies read like the C++ findings' locations.
      for (std::string &Path : P.Files)
        Path = displayPath(Path);
      std::lock_guard<std::mutex> G(Lock);
      Result.Programs.push_back(std::move(P));
    });
  if (Opts.Jobs <= 1 || Files.size() <= 1) {
    for (const std::string &F : Files)
      RunOne(F);
  } else {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Opts.Jobs));
    for (const std::string &F : Files)
      Pool.async([&RunOne, F] { RunOne(F); });
    Pool.wait();
  }
  if (Opts.KeepPrograms)
    cxx::setProgramSink(nullptr);
  std::sort(Result.Programs.begin(), Result.Programs.end(),
            [](const engine::Program &A, const engine::Program &B) {
              return A.Files < B.Files;
            });
  return Result;
}

std::vector<std::string> tether::listCxxChecks(const std::string &Glob) {
  ClangTidyOptions O = ClangTidyOptions::getDefaults();
  O.Checks = "-*," + Glob;
  return getCheckNames(O, false, false);
}
