//===- main.cpp - The tether command line ---------------------------------===//
//
//   tether check [options] PATH... [-- COMPILER_ARGS]
//
// Exit status: 0 no findings, 1 findings, 2 usage, configuration or input
// error (one line on stderr).
//
//===----------------------------------------------------------------------===//
#include "CxxFrontend.h"
#include "Inputs.h"
#include "LineTable.h"
#include "Output.h"
#include "catalog/Catalog.h"
#include "clang-tidy/GlobList.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>
#ifdef TETHER_HAVE_PYTHON
#include "python/PythonFrontend.h"
#endif

using namespace tether;
namespace cl = llvm::cl;

static cl::OptionCategory TetherCat("tether options");
static cl::SubCommand CheckCmd("check", "Analyse C++ and Python files");

static cl::list<std::string> Paths(cl::Positional, cl::desc("<path>..."),
                                   cl::sub(CheckCmd), cl::cat(TetherCat));
enum class Format { Text, Json };
static cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "clang-style diagnostics"),
               clEnumValN(Format::Json, "json", "tether JSON, version 1")),
    cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string>
    Checks("checks", cl::desc("Checks to run, clang-tidy glob syntax"),
           cl::init("tether-*"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string>
    ConfigFile("config", cl::desc("A .tether.yaml applied after the ones "
                                  "found upward from each file"),
               cl::value_desc("file"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<std::string>
    BuildPath("p", cl::desc("Directory with compile_commands.json"),
              cl::value_desc("dir"), cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<unsigned> Jobs("j", cl::desc("Parallel jobs (0: all cores)"),
                              cl::init(1), cl::sub(CheckCmd),
                              cl::cat(TetherCat));
static cl::opt<bool> Fix("fix", cl::desc("Apply unambiguous fix-its (C++)"),
                         cl::sub(CheckCmd), cl::cat(TetherCat));
static cl::opt<bool> ListChecks("list-checks",
                                cl::desc("List the enabled checks and exit"),
                                cl::sub(CheckCmd), cl::cat(TetherCat));

static int fail(const llvm::Twine &Msg) {
  llvm::errs() << "tether: error: " << Msg << "\n";
  return 2;
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
  if (!ConfigFile.empty())
    if (auto C = Catalog::load(ConfigFile); !C)
      return fail(llvm::toString(C.takeError()));
  auto Inputs = collectInputs(Paths);
  if (!Inputs)
    return fail(llvm::toString(Inputs.takeError()));
  CatalogProvider Catalogs(ConfigFile);
  for (const std::string &F : Inputs->Cxx)
    if (auto C = Catalogs.forFile(F); !C)
      return fail(llvm::toString(C.takeError()));
  if (!Inputs->Cxx.empty())
    if (llvm::Error E = checkCompileCommands(Inputs->Cxx, CxxOpts))
      return fail(llvm::toString(std::move(E)));

  std::vector<Finding> Findings;
  bool InputErrors = false;
  if (!Inputs->Cxx.empty()) {
    CxxResult R = runCxx(Inputs->Cxx, CxxOpts);
    for (const std::string &E : R.Errors)
      llvm::errs() << "tether: " << E << "\n";
    InputErrors |= !R.Errors.empty();
    Findings.insert(Findings.end(), R.Findings.begin(), R.Findings.end());
  }
  if (!Inputs->Python.empty()) {
#ifdef TETHER_HAVE_PYTHON
    python::Result R = python::analyze(Inputs->Python, Catalogs, CxxOpts.Jobs);
    if (!R.FatalError.empty())
      return fail(R.FatalError);
    for (const python::FileProblem &P : R.Problems)
      llvm::errs() << "tether: " << LineTable::displayPath(P.File) << ": "
                   << P.Message << "\n";
    // Unreadable files are reported and skipped; the run is an error only
    // when nothing at all could be read.
    if (R.FilesRead == 0 && !R.Problems.empty())
      InputErrors = true;
    for (Finding &F : R.Findings)
      if (Filter.contains(F.Check))
        Findings.push_back(std::move(F));
#else
    return fail("this tether was built without the Python frontend");
#endif
  }

  std::sort(Findings.begin(), Findings.end());
  Findings.erase(std::unique(Findings.begin(), Findings.end(),
                             [](const Finding &A, const Finding &B) {
                               return !(A < B) && !(B < A);
                             }),
                 Findings.end());
  if (OutputFormat == Format::Json)
    writeJson(llvm::outs(), Findings);
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
  std::string Errors;
  llvm::raw_string_ostream ErrOS(Errors);
  if (!cl::ParseCommandLineOptions(
          OwnArgc, argv,
          "tether: workspace-lifetime checks around graph capture\n\n"
          "  tether check [options] PATH... [-- COMPILER_ARGS]\n",
          &ErrOS)) {
    llvm::StringRef First = llvm::StringRef(Errors).trim().split('\n').first;
    return fail(First.empty() ? "invalid command line" : First);
  }
  if (!CheckCmd) {
    llvm::errs() << "usage: tether check [options] PATH... [-- COMPILER_ARGS]"
                    "\n       (tether check --help for the options)\n";
    return 2;
  }
  CxxOpts.Checks = Checks;
  CxxOpts.ConfigFile = ConfigFile;
  CxxOpts.BuildPath = BuildPath;
  CxxOpts.Jobs = Jobs == 0 ? llvm::hardware_concurrency().compute_thread_count()
                           : unsigned(Jobs);
  CxxOpts.Fix = Fix;
  return runCheck(CxxOpts);
}
