//===- main.cpp - The tether command line ---------------------------------===//
//
//   tether check [options] PATH... [-- COMPILER_ARGS]
//   tether lsp [--checks=GLOB] [--config=FILE]
//
// Exit status: 0 no findings, 1 findings, 2 usage, configuration or input
// error (one line on stderr).
//
//===----------------------------------------------------------------------===//
#include "CrossTU.h"
#include "CxxFrontend.h"
#include "Filters.h"
#include "Inputs.h"
#include "LineTable.h"
#include "Lsp.h"
#include "Output.h"
#include "Progress.h"
#include "common/Messages.h"
#include "catalog/Catalog.h"
#include "engine/Link.h"
#include "clang-tidy/GlobList.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <optional>
#include "tether/version.h"
#ifdef TETHER_HAVE_PYTHON
#include "python/PackageCache.h"
#include "python/PythonFrontend.h"
#include "python/ModuleCache.h"
#include "python/ResultCache.h"
#endif

using namespace tether;
namespace cl = llvm::cl;

static cl::OptionCategory TetherCat("tether options");
static cl::SubCommand CheckCmd("check", "Analyse C++ and Python files");
static cl::SubCommand LspCmd("lsp", "Serve diagnostics to an editor over "
                                    "stdio (Language Server Protocol)");

static cl::list<std::string> Paths(cl::Positional, cl::desc("<path>..."),
                                   cl::sub(CheckCmd), cl::cat(TetherCat));
enum class Format { Text, Json, Sarif };
static cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "clang-style diagnostics"),
               clEnumValN(Format::Json, "json", "tether JSON, version 1"),
               clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0")),
    cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string>
    Checks("checks", cl::desc("Checks to run, clang-tidy glob syntax"),
           cl::init("tether-*"), cl::sub(CheckCmd), cl::sub(LspCmd),
           cl::cat(TetherCat));
static cl::opt<std::string>
    ConfigFile("config", cl::desc("A .tether.yaml applied after the ones "
                                  "found upward from each file"),
               cl::value_desc("file"), cl::sub(CheckCmd), cl::sub(LspCmd),
               cl::cat(TetherCat));
static cl::opt<std::string>
    BuildPath("p", cl::desc("Directory with compile_commands.json"),
              cl::value_desc("dir"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<unsigned> Jobs("j", cl::desc("Parallel jobs (default 0: all cores)"),
                              cl::init(0), cl::Prefix, cl::sub(CheckCmd),
                              cl::cat(TetherCat));
static cl::opt<bool> FollowImports(
    "follow-imports",
    cl::desc("Python: also read, as context, the modules the named files "
             "import from their own packages (their findings are not "
             "reported); =false analyses the named files alone"),
    cl::init(true), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> Fix("fix", cl::desc("Apply unambiguous fix-its (C++)"),
                         cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> Quiet(
    "quiet",
    cl::desc("No progress lines (they are shown only when stderr is a "
             "terminal)"),
    cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> ListChecks("list-checks",
                                cl::desc("List the enabled checks and exit"),
                                cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Report findings of these checks (glob) with severity error; "
             "the exit status is 1 on any finding either way"),
    cl::value_desc("glob"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string> DiffRev(
    "diff", cl::desc("Report only findings on lines changed since REV "
                     "(git diff -U0 REV)"),
    cl::value_desc("rev"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string> ChangedLinesFrom(
    "changed-lines-from",
    cl::desc("Report only findings on lines a unified diff (git diff -U0) "
             "adds or changes"),
    cl::value_desc("file"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string> BaselineFile(
    "baseline", cl::desc("Accept the findings recorded in this file"),
    cl::value_desc("file"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> WriteBaseline(
    "write-baseline",
    cl::desc("Record the current findings in the --baseline file and exit 0"),
    cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string> ShardSpec(
    "shard", cl::desc("Analyse only shard I of N (0-based) of the inputs"),
    cl::value_desc("I/N"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string> HelpUriBase(
    "sarif-help-uri",
    cl::desc("Base URI of the check documentation in SARIF rules"),
    cl::init(TETHER_DOCS_URL), cl::value_desc("uri"), cl::sub(CheckCmd),
    cl::cat(TetherCat));

static cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Python: where to keep what each run read and found, so that "
             "a run over unchanged inputs is answered at once (default "
             "$XDG_CACHE_HOME/tether, else ~/.cache/tether; a project may "
             "use .tether_cache)"),
    cl::value_desc("dir"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> NoCache("no-cache",
                             cl::desc("Neither read nor write the cache"),
                             cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> CacheStats(
    "cache-stats",
    cl::desc("Print how many Python scans the cache answered (stderr)"),
    cl::sub(CheckCmd), cl::cat(TetherCat));

static int fail(const llvm::Twine &Msg) {
  llvm::errs() << "tether: error: " << Msg << "\n";
  return 2;
}

/// Where SARIF rules point for help: --sarif-help-uri, else the configured
/// URL; a configured file:// URL (the source tree's docs) is replaced by the
/// installed copy of the docs when this binary runs from an installation.
static std::string helpUriBase() {
  if (HelpUriBase.getNumOccurrences() ||
      !llvm::StringRef(TETHER_DOCS_URL).starts_with("file://"))
    return HelpUriBase;
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
  llvm::SmallString<256> Docs(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe)));
  llvm::sys::path::append(Docs, "share", "doc", "tether");
  llvm::sys::path::append(Docs, "docs", "checks");
  if (!Exe.empty() && llvm::sys::fs::is_directory(Docs))
    return pathToUri(Docs);
  return HelpUriBase;
}

/// The build of tether that runs, for the cache: its version and its
/// executable's path, size and modification time, so that a rebuilt binary
/// (a developer's, a test suite's) never reads what another one recorded.
static std::string buildIdentity() {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
  llvm::sys::fs::file_status St;
  if (Exe.empty() || llvm::sys::fs::status(Exe, St))
    return ""; // unknown: keep nothing
  return std::string(TETHER_VERSION) + " " + Exe + " " +
         std::to_string(St.getSize()) + " " +
         std::to_string(St.getLastModificationTime().time_since_epoch().count());
}

/// Apply the fix-its of the findings to the files on disk.
static int applyFixes(const std::vector<Finding> &Findings) {
  std::map<std::string, clang::tooling::Replacements> ByFile;
  for (const Finding &F : Findings)
    for (const FixIt &X : F.Fixes) {
      clang::tooling::Replacement R(X.File, X.Offset, X.Length, X.Text);
      if (llvm::Error E = ByFile[X.File].add(R))
        llvm::consumeError(std::move(E)); // overlapping duplicate: skip
    }
  for (auto &[File, Reps] : ByFile) {
    auto Buf = llvm::MemoryBuffer::getFile(File);
    if (!Buf)
      return fail(File + ": cannot read for --fix");
    auto New = clang::tooling::applyAllReplacements((*Buf)->getBuffer(), Reps);
    if (!New)
      return fail(File + ": " + llvm::toString(New.takeError()));
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    if (EC)
      return fail(File + ": " + EC.message());
    OS << *New;
  }
  return 0;
}

/// The check names a run may report, for SARIF's rule table.
static std::vector<std::string> enabledChecks() {
  std::vector<std::string> Out = listCxxChecks(Checks);
  clang::tidy::GlobList Filter(Checks);
  for (const char *Name : {msg::WeakRefBeforeCaptureEnd, msg::DoubleWeakRef,
                           msg::WorkspaceSharedAcrossLayers,
                           msg::WeakRefOfMaybeNull,
                           msg::GraphMemoryDiesBeforeReplay})
    if (Filter.contains(Name) && !llvm::is_contained(Out, Name))
      Out.push_back(Name);
  return Out;
}

static void sortUnique(std::vector<Finding> &Findings) {
  std::sort(Findings.begin(), Findings.end());
  Findings.erase(std::unique(Findings.begin(), Findings.end(),
                             [](const Finding &A, const Finding &B) {
                               return !(A < B) && !(B < A);
                             }),
                 Findings.end());
}

/// The selections of a CI run, read and validated before any analysis so
/// that a bad option is a usage error, not a half run.
struct Selection {
  std::optional<ChangedLines> Changed;
  std::optional<Baseline> Accepted;
  Shard Part;
};

static llvm::Expected<Selection> readSelection() {
  Selection S;
  if (!ShardSpec.empty()) {
    auto P = Shard::parse(ShardSpec);
    if (!P)
      return P.takeError();
    S.Part = *P;
  }
  if (!DiffRev.empty() && !ChangedLinesFrom.empty())
    return llvm::createStringError(
        "--diff and --changed-lines-from cannot be combined");
  if (!DiffRev.empty() || !ChangedLinesFrom.empty()) {
    auto C = DiffRev.empty() ? ChangedLines::fromFile(ChangedLinesFrom)
                             : ChangedLines::fromGit(DiffRev);
    if (!C)
      return C.takeError();
    S.Changed = std::move(*C);
  }
  if (WriteBaseline && BaselineFile.empty())
    return llvm::createStringError("--write-baseline needs --baseline=FILE");
  if (!BaselineFile.empty() && !WriteBaseline) {
    auto B = Baseline::load(BaselineFile);
    if (!B)
      return B.takeError();
    S.Accepted = std::move(*B);
  }
  return S;
}

static int runCheck(const CxxOptions &CxxOpts) {
  clang::tidy::GlobList Filter(Checks);
  if (ListChecks) {
    llvm::outs() << "Enabled checks:\n";
    for (const std::string &Name : listCxxChecks(Checks))
      llvm::outs() << "    " << Name << "\n";
    return 0;
  }
  if (Paths.empty())
    return fail("no input paths; usage: tether check [options] PATH... "
                "[-- COMPILER_ARGS]");

  // Configuration errors stop the run before any analysis.
  auto Sel = readSelection();
  if (!Sel)
    return fail(llvm::toString(Sel.takeError()));
  if (!ConfigFile.empty())
    if (auto C = Catalog::load(ConfigFile); !C)
      return fail(llvm::toString(C.takeError()));
  auto Inputs = collectInputs(Paths);
  if (!Inputs)
    return fail(llvm::toString(Inputs.takeError()));
  // A shard analyses its own translation units. Python packages are
  // analysed whole (imports need the whole tree) and the findings split by
  // file below.
  llvm::erase_if(Inputs->Cxx, [&](const std::string &F) {
    return !Sel->Part.owns(LineTable::displayPath(F));
  });
  CatalogProvider Catalogs(ConfigFile);
  for (const std::string &F : Inputs->Cxx)
    if (auto C = Catalogs.forFile(F); !C)
      return fail(llvm::toString(C.takeError()));
  // C/C++ sources found inside a directory (a mixed repository: Python
  // package plus csrc/) need a compile command only when the user gave a
  // way to find one; without -p or "--" those with none are left out, one
  // line per directory. A named file without one stays an error.
  const bool MayLeaveOutFound =
      CxxOpts.BuildPath.empty() && !CxxOpts.HaveFixedArgs;
  std::vector<std::string> LeftOut;
  if (!Inputs->Cxx.empty())
    if (llvm::Error E = checkCompileCommands(
            Inputs->Cxx, CxxOpts,
            [&](const std::string &F) {
              return MayLeaveOutFound && Inputs->CxxFoundIn.count(F);
            },
            &LeftOut))
      return fail(llvm::toString(std::move(E)));
  if (!LeftOut.empty()) {
    std::map<std::string, unsigned> PerDir;
    for (const std::string &F : LeftOut)
      ++PerDir[Inputs->CxxFoundIn.at(F)];
    for (const auto &[Dir, N] : PerDir)
      llvm::errs() << "tether: " << Dir << ": " << N << " C/C++ source"
                   << (N == 1 ? "" : "s")
                   << " with no compile_commands.json or compile_flags.txt "
                      "above; not analysed (pass -p BUILD_DIR or compiler "
                      "flags after --)\n";
    std::set<std::string> Gone(LeftOut.begin(), LeftOut.end());
    llvm::erase_if(Inputs->Cxx,
                   [&](const std::string &F) { return Gone.count(F) != 0; });
    if (Inputs->Cxx.empty() && Inputs->Python.empty())
      return 2; // nothing left to analyse
  }

  // One item per translation unit, and the Python package as one more (it
  // is analysed as a whole).
  Progress Steps(llvm::errs(),
                 !Quiet && llvm::sys::Process::StandardErrIsDisplayed(),
                 Inputs->Cxx.size() + (Inputs->Python.empty() ? 0 : 1));
  std::vector<Finding> Findings;
  bool InputErrors = false;
  // C++ bound into Python, for the Python package of this run.
  engine::Library Bound;
  if (!Inputs->Cxx.empty()) {
    CxxOptions WithSteps = CxxOpts;
    WithSteps.Steps = &Steps;
    // Kept to link: with the Python package, and the TUs with each other.
    WithSteps.KeepPrograms = !Inputs->Python.empty() || Inputs->Cxx.size() > 1;
    CxxResult R = runCxx(Inputs->Cxx, WithSteps);
    if (!Inputs->Python.empty())
      Bound = engine::link(R.Programs);
    std::vector<Finding> Whole =
        crossTUFindings(R.Programs, R.Findings, Catalogs, Checks);
    R.Findings.insert(R.Findings.end(), Whole.begin(), Whole.end());
    Steps.finish();
    for (const std::string &E : R.Errors)
      llvm::errs() << "tether: " << E << "\n";
    InputErrors |= !R.Errors.empty();
    Findings.insert(Findings.end(), R.Findings.begin(), R.Findings.end());
  }
  if (!Inputs->Python.empty()) {
#ifdef TETHER_HAVE_PYTHON
    python::Options PyOpts;
    PyOpts.Jobs = CxxOpts.Jobs;
    PyOpts.FollowImports = FollowImports;
    PyOpts.Foreign = &Bound;
    PyOpts.LeaveToExit = true;
    std::optional<python::ResultCache> Records;
    std::optional<python::ModuleCache> Modules;
    std::string Dir = CacheDir.empty() ? python::ResultCache::defaultDir()
                                       : CacheDir.getValue();
    std::string Build = buildIdentity();
    if (!NoCache && !Dir.empty() && !Build.empty()) {
      Records.emplace(Dir, Build);
      PyOpts.Records = &*Records;
      Modules.emplace(Dir, Build);
      PyOpts.Modules = &*Modules;
    }
    std::string Label = "Python: " + LineTable::displayPath(Inputs->Python[0]);
    if (Inputs->Python.size() > 1)
      Label += " and " + std::to_string(Inputs->Python.size() - 1) + " more";
    Steps.start(Label);
    python::Result R = python::analyze(Inputs->Python, Catalogs, PyOpts);
    Steps.finish();
    if (!R.FatalError.empty())
      return fail(R.FatalError);
    for (const std::string &N : R.Notes)
      llvm::errs() << "tether: " << N << "\n";
    if (CacheStats)
      llvm::errs() << "tether: cache: " << R.ScansFromCache << " of "
                   << R.Scans << " Python scans answered"
                   << (PyOpts.Records ? " from " + Dir : std::string(" (off)"))
                   << "; " << R.ModulesFromCache << " of " << R.Modules
                   << " modules analysed read from it\n";
    for (const python::FileProblem &P : R.Problems)
      llvm::errs() << "tether: " << LineTable::displayPath(P.File) << ": "
                   << P.Message << "\n";
    // Unreadable files are reported and skipped; the run is an error only
    // when nothing at all could be read.
    if (R.FilesRead == 0 && !R.Problems.empty())
      InputErrors = true;
    for (Finding &F : R.Findings)
      if (Filter.contains(F.Check) &&
          Sel->Part.owns(LineTable::displayPath(F.Loc.File)))
        Findings.push_back(std::move(F));
#else
    return fail("this tether was built without the Python frontend");
#endif
  }

  sortUnique(Findings);
  if (Sel->Changed)
    llvm::erase_if(Findings, [&](const Finding &F) {
      return !Sel->Changed->contains(F.Loc);
    });
  if (!WarningsAsErrors.empty()) {
    clang::tidy::GlobList AsErrors(WarningsAsErrors);
    for (Finding &F : Findings)
      if (AsErrors.contains(F.Check))
        F.Severity = "error";
  }
  std::vector<std::string> Prints = fingerprints(Findings);
  if (WriteBaseline) {
    if (llvm::Error E = Baseline::write(BaselineFile, Findings, Prints))
      return fail(llvm::toString(std::move(E)));
    llvm::errs() << "tether: recorded " << Findings.size()
                 << " finding(s) in " << BaselineFile << "\n";
    return InputErrors ? 2 : 0;
  }
  if (Sel->Accepted) {
    std::vector<Finding> Kept;
    std::vector<std::string> KeptPrints;
    for (size_t I = 0; I < Findings.size(); ++I)
      if (!Sel->Accepted->accept(Prints[I])) {
        Kept.push_back(std::move(Findings[I]));
        KeptPrints.push_back(Prints[I]);
      }
    Findings = std::move(Kept);
    Prints = std::move(KeptPrints);
  }

  if (OutputFormat == Format::Json)
    writeJson(llvm::outs(), Findings);
  else if (OutputFormat == Format::Sarif)
    writeSarif(llvm::outs(), Findings, Prints, enabledChecks(), helpUriBase());
  else
    writeText(llvm::outs(), Findings);
  llvm::outs().flush();

  if (Fix)
    if (int RC = applyFixes(Findings))
      return RC;
  if (InputErrors)
    return 2;
  return Findings.empty() ? 0 : 1;
}

/// What `tether lsp` keeps of Python packages between requests.
struct LspPython {
#ifdef TETHER_HAVE_PYTHON
  python::PackageCache Cache;
#endif
};

#ifdef TETHER_HAVE_PYTHON
/// `tether lsp` on a Python document: analysed as `tether check FILE` would
/// analyse it (with the modules it imports under its import roots and the
/// modules of its package that import it), from the editor's text of every
/// open document. The package's texts, trees and lowered functions are kept
/// between requests in Cache; the engine runs again over the package.
static std::vector<Finding> analyzePython(python::PackageCache &Cache,
                                          llvm::StringRef Path,
                                          llvm::StringRef Text) {
  CatalogProvider Catalogs(ConfigFile);
  clang::tidy::GlobList Filter(Checks);
  Cache.setOverlay(Path.str(), Text.str());
  python::Options PyOpts;
  PyOpts.Cache = &Cache;
  auto Start = std::chrono::steady_clock::now();
  python::Result R = python::analyze({Path.str()}, Catalogs, PyOpts);
  auto Ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - Start)
                .count();
  if (!R.FatalError.empty()) {
    llvm::errs() << "tether lsp: " << R.FatalError << "\n";
    return {};
  }
  for (const python::FileProblem &P : R.Problems)
    llvm::errs() << "tether lsp: " << P.File << ": " << P.Message << "\n";
  const python::PackageCache::Stats &S = Cache.Last;
  llvm::errs() << "tether lsp: " << Path << ": " << S.Modules << " modules, "
               << S.Parsed << " parsed, " << S.ModulesLowered << " lowered"
               << (S.InterfaceChanged ? " (interfaces changed)" : "") << ", "
               << S.FunctionsInterpreted << " function(s) interpreted, "
               << Ms << " ms\n";
  std::vector<Finding> Out;
  for (Finding &F : R.Findings)
    if (Filter.contains(F.Check))
      Out.push_back(std::move(F));
  return Out;
}
#endif

/// `tether lsp`: the diagnostics of one open document. C++ files are
/// analysed when saved, with the compile database found as `check` finds it
/// (editors normally get C++ diagnostics from tether-clangd instead).
static std::vector<Finding> analyzeDocument(const CxxOptions &CxxOpts,
                                            LspPython &Py,
                                            llvm::StringRef Path,
                                            llvm::StringRef Text, bool Saved) {
  if (llvm::sys::path::extension(Path) == ".py") {
#ifdef TETHER_HAVE_PYTHON
    return analyzePython(Py.Cache, Path, Text);
#else
    llvm::errs() << "tether lsp: built without the Python frontend\n";
    return {};
#endif
  }
  if (!Saved || !(isCxxSource(Path) || isCxxHeader(Path)))
    return {};
  std::vector<std::string> Files{Path.str()};
  if (llvm::Error E = checkCompileCommands(Files, CxxOpts)) {
    llvm::errs() << "tether lsp: " << llvm::toString(std::move(E)) << "\n";
    return {};
  }
  CxxResult R = runCxx(Files, CxxOpts);
  for (const std::string &E : R.Errors)
    llvm::errs() << "tether lsp: " << E << "\n";
  return R.Findings;
}

static int runLsp(const CxxOptions &CxxOpts) {
  if (!ConfigFile.empty())
    if (auto C = Catalog::load(ConfigFile); !C)
      return fail(llvm::toString(C.takeError()));
  LspPython Py;
  DocumentEvents Events;
  auto IsPython = [](llvm::StringRef Path) {
    return llvm::sys::path::extension(Path) == ".py";
  };
  Events.DependsOnOthers = IsPython;
#ifdef TETHER_HAVE_PYTHON
  Events.TextChanged = [&](llvm::StringRef Path, const std::string *Text) {
    if (!IsPython(Path))
      return;
    if (Text) {
      Py.Cache.setOverlay(Path.str(), *Text);
      return;
    }
    Py.Cache.dropOverlay(Path.str());
    Py.Cache.dropAnalyses({Path.str()});
  };
  Events.FileChanged = [&](llvm::StringRef Path) {
    Py.Cache.forget(Path.str());
  };
#endif
  return serveLsp(
      stdin, stdout,
      [&](llvm::StringRef Path, llvm::StringRef Text, bool Saved) {
        return analyzeDocument(CxxOpts, Py, Path, Text, Saved);
      },
      std::move(Events));
}

/// `tether --version`: tether's own version, and the LLVM whose clang-tidy
/// and clang it was built with (they decide what C++ it can parse).
static void printVersion(llvm::raw_ostream &OS) {
  OS << "tether version " << TETHER_VERSION << "\n"
     << "  built with LLVM " << LLVM_VERSION_STRING << "\n";
}

int main(int argc, const char **argv) {
  // Everything after "--" is compiler arguments, as with clang-tidy.
  CxxOptions CxxOpts;
  int OwnArgc = argc;
  for (int I = 1; I < argc; ++I)
    if (llvm::StringRef(argv[I]) == "--") {
      OwnArgc = I;
      CxxOpts.HaveFixedArgs = true;
      CxxOpts.FixedArgs.assign(argv + I + 1, argv + argc);
      break;
    }
  cl::HideUnrelatedOptions(TetherCat);
  cl::SetVersionPrinter(printVersion);
  std::string Errors;
  llvm::raw_string_ostream ErrOS(Errors);
  if (!cl::ParseCommandLineOptions(
          OwnArgc, argv,
          "tether: workspace-lifetime checks around graph capture\n\n"
          "  tether check [options] PATH... [-- COMPILER_ARGS]\n"
          "  tether lsp [--checks=GLOB] [--config=FILE]\n",
          &ErrOS)) {
    llvm::StringRef First = llvm::StringRef(Errors).trim().split('\n').first;
    return fail(First.empty() ? "invalid command line" : First);
  }
  if (!CheckCmd && !LspCmd) {
    llvm::errs() << "usage: tether check [options] PATH... [-- COMPILER_ARGS]"
                    "\n       tether lsp [--checks=GLOB] [--config=FILE]"
                    "\n       (tether check --help for the options)\n";
    return 2;
  }
  CxxOpts.Checks = Checks;
  CxxOpts.ConfigFile = ConfigFile;
  CxxOpts.BuildPath = BuildPath;
  CxxOpts.Jobs = Jobs == 0 ? llvm::hardware_concurrency().compute_thread_count()
                           : unsigned(Jobs);
  CxxOpts.Fix = Fix;
  if (LspCmd)
    return runLsp(CxxOpts);
  CxxOpts.Databases = makeDatabaseCache(); // one run: load each database once
  return runCheck(CxxOpts);
}
