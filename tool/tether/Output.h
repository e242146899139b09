//===- Output.h - Text, JSON and SARIF renderings of findings -------------===//
#ifndef TETHER_TOOL_OUTPUT_H
#define TETHER_TOOL_OUTPUT_H

#include "common/Finding.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace tether {

/// clang style: "file:line:col: warning: message [check]" and note lines.
void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings);

/// {"version": 1, "tool": {"name", "version"}, "diagnostics": [...]}: the
/// shape of DESIGN.md's contract, plus the version of tether that wrote it.
void writeJson(llvm::raw_ostream &OS, const std::vector<Finding> &Findings);

/// SARIF 2.1.0: one rule per enabled check (help URI
/// HelpUriBase/<check>.md), one result per finding with its notes as related
/// locations and Fingerprints[i] as the partial fingerprint of Findings[i].
void writeSarif(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                const std::vector<std::string> &Fingerprints,
                const std::vector<std::string> &EnabledChecks,
                llvm::StringRef HelpUriBase);

} // namespace tether

#endif
