//===- WholeDefinition.h - Whether a definition's AST can be walked -------===//
//
// clang hands the checks ASTs of code that does not compile: expressions it
// could not build are RecoveryExprs (or are missing), declarations it could
// not complete are marked invalid, and once the error limit is passed it
// stops instantiating templates, so a class can be left with members whose
// types have no definition at all. clang's CFG builder assumes well-formed
// code (it asks incomplete classes for their destructors and crashes), and
// so do the walks of the checks. Like clang's own analysis-based warnings,
// which stay away from code with errors, the checks analyse only the
// definitions this predicate accepts; any other definition is treated as a
// declaration whose body is unknown.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_ANALYSIS_WHOLEDEFINITION_H
#define TETHER_CXX_ANALYSIS_WHOLEDEFINITION_H

#include "clang/AST/Decl.h"

namespace tether::cxx {

/// Whether FD is a finished definition (no block of it closed by the end of
/// the file) whose body, parameters and (for a member) class are free of
/// errors, so that building its CFG and walking its body meets only the
/// nodes well-formed code has.
bool isWholeDefinition(const clang::FunctionDecl *FD);

} // namespace tether::cxx

#endif
