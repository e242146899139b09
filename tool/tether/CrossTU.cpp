//===- CrossTU.cpp --------------------------------------------------------===//
#include "CrossTU.h"
#include "clang-tidy/GlobList.h"
#include "clang-tidy/NoLintDirectiveHandler.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "engine/Engine.h"
#include "engine/Link.h"
#include <set>
#include <tuple>

using namespace tether;

namespace {

/// Asks clang-tidy's NOLINT handler about a finding of the whole program
/// (its position is a file, line and column, not a TU's SourceLocation): the
/// file is loaded into a SourceManager of its own and the finding reported
/// as a diagnostic, which the handler inspects as clang-tidy would.
class Nolint : public clang::DiagnosticConsumer {
public:
  bool suppressed(const Finding &F) {
    clang::DiagnosticOptions DO;
    clang::DiagnosticsEngine DE(clang::DiagnosticIDs::create(), DO, this,
                                /*ShouldOwnClient=*/false);
    clang::FileSystemOptions FSO;
    clang::FileManager FM(FSO);
    clang::SourceManager SM(DE, FM);
    auto File = FM.getOptionalFileRef(F.Loc.File);
    if (!File)
      return false;
    clang::FileID Id =
        SM.createFileID(*File, clang::SourceLocation(), clang::SrcMgr::C_User);
    clang::SourceLocation At = SM.translateLineCol(Id, F.Loc.Line, F.Loc.Column);
    DE.setSourceManager(&SM);
    Name = F.Check;
    Suppressed = false;
    unsigned DiagId = DE.getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0");
    DE.Report(At, DiagId) << F.Message;
    DE.setSourceManager(nullptr);
    return Suppressed;
  }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &D) override {
    llvm::SmallVector<clang::tooling::Diagnostic, 1> Errors; // bad NOLINTs:
    // the per-TU run already reported them
    Suppressed = Handler.shouldSuppress(Level, D, Name, Errors,
                                        /*AllowIO=*/true,
                                        /*EnableNoLintBlocks=*/true);
  }

private:
  clang::tidy::NoLintDirectiveHandler Handler;
  std::string Name;
  bool Suppressed = false;
};

} // namespace

std::vector<Finding> tether::crossTUFindings(
    const std::vector<engine::Program> &Units, const std::vector<Finding> &PerTU,
    CatalogProvider &Catalogs, const std::string &ChecksGlob) {
  if (Units.size() < 2)
    return {};
  engine::Program Whole = engine::linkAll(Units);
  engine::Options O;
  O.IsWorkspaceName = [&](uint32_t File, llvm::StringRef Name) {
    if (File >= Whole.Files.size())
      return false;
    auto Cat = Catalogs.forFile(Whole.Files[File]);
    if (!Cat) {
      llvm::consumeError(Cat.takeError()); // reported by the per-TU run
      return false;
    }
    return (*Cat)->WorkspaceNames.matches(Name.lower());
  };
  std::vector<Finding> Found = engine::analyze(Whole, std::move(O));
  std::set<std::tuple<std::string, std::string, unsigned, unsigned>> Seen;
  for (const Finding &F : PerTU)
    Seen.emplace(F.Check, F.Loc.File, F.Loc.Line, F.Loc.Column);
  clang::tidy::GlobList Enabled(ChecksGlob);
  Nolint Suppress;
  std::vector<Finding> Out;
  for (Finding &F : Found) {
    if (!Enabled.contains(F.Check) ||
        !Seen.emplace(F.Check, F.Loc.File, F.Loc.Line, F.Loc.Column).second)
      continue;
    if (Suppress.suppressed(F))
      continue;
    // No TU offers the edit, so none applies it: --fix stays per TU.
    F.Fixes.clear();
    Out.push_back(std::move(F));
  }
  return Out;
}
