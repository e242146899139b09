//===- Output.h - Text, JSON and SARIF renderings of findings -------------===//
#ifndef TETHER_TOOL_OUTPUT_H
#define TETHER_TOOL_OUTPUT_H

#include "common/Finding.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace tether {

/// clang style: "file:line:col: warning: message [check]" and note lines.
void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings);

/// {"version": 1, "diagnostics": [...]} as in DESIGN.md's contract.
void writeJson(llvm::raw_ostream &OS, const std::vector<Finding> &Findings);

} // namespace tether

#endif
