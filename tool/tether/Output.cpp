//===- Output.cpp ---------------------------------------------------------===//
#include "Output.h"
#include "llvm/Support/JSON.h"
#include "tether/version.h"

using namespace tether;

static void writeLoc(llvm::raw_ostream &OS, const Location &L) {
  OS << L.File << ":" << L.Line << ":" << L.Column << ": ";
}

void tether::writeText(llvm::raw_ostream &OS,
                       const std::vector<Finding> &Findings) {
  for (const Finding &F : Findings) {
    writeLoc(OS, F.Loc);
    OS << F.Severity << ": " << F.Message << " [" << F.Check << "]\n";
    for (const Note &N : F.Notes) {
      writeLoc(OS, N.Loc);
      OS << "note: " << N.Message << "\n";
    }
  }
}

void tether::writeJson(llvm::raw_ostream &OS,
                       const std::vector<Finding> &Findings) {
  llvm::json::Array Diags;
  for (const Finding &F : Findings) {
    llvm::json::Array Notes;
    for (const Note &N : F.Notes)
      Notes.push_back(llvm::json::Object{{"file", N.Loc.File},
                                         {"line", N.Loc.Line},
                                         {"column", N.Loc.Column},
                                         {"message", N.Message}});
    Diags.push_back(llvm::json::Object{{"check", F.Check},
                                       {"severity", F.Severity},
                                       {"file", F.Loc.File},
                                       {"line", F.Loc.Line},
                                       {"column", F.Loc.Column},
                                       {"message", F.Message},
                                       {"notes", std::move(Notes)}});
  }
  // "version" is the format's version; "tool" names the tether that wrote it.
  llvm::json::Object Root{
      {"version", 1},
      {"tool", llvm::json::Object{{"name", "tether"}, {"version", TETHER_VERSION}}},
      {"diagnostics", std::move(Diags)}};
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
}
