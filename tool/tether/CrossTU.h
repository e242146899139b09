//===- CrossTU.h - The C++ translation units of a run analysed together ---===//
//
// Each TU is analysed on its own by the clang-tidy checks (as in clang-tidy
// and clangd). `tether check` over several TUs then links their lowered
// programs (engine::linkAll: a function one TU only declares is the body
// another defines, by mangled name) and runs the engine once more over the
// whole: a function called inside a capture begun in another TU is analysed
// in capture context. The findings only the whole gives are added, with
// clang-tidy's NOLINT handling applied; the per-TU findings stand as they
// are.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_TOOL_CROSSTU_H
#define TETHER_TOOL_CROSSTU_H

#include "catalog/Catalog.h"
#include "common/Finding.h"
#include "engine/Ir.h"
#include <string>
#include <vector>

namespace tether {

/// The findings of checks matching ChecksGlob that the TUs of Units give
/// together and none of PerTU is (same check, same position).
std::vector<Finding> crossTUFindings(const std::vector<engine::Program> &Units,
                                     const std::vector<Finding> &PerTU,
                                     CatalogProvider &Catalogs,
                                     const std::string &ChecksGlob);

} // namespace tether

#endif
