//===- Imports.h - The modules a file imports, found on disk ---------------===//
//
// When only some files of a package are named (a pre-commit hook passes the
// staged ones), the helpers they call live in files that were not named. The
// frontend reads those as context: their summaries and capture effects count,
// their own findings are not reported. These helpers say which modules a
// file imports (at any depth: vLLM-style code imports inside functions to
// break cycles) and where a dotted module name lives under an import root.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_IMPORTS_H
#define TETHER_PYTHON_IMPORTS_H

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

namespace tether::python {

/// Dotted names of the modules the tree may import, absolute: for
/// `import a.b` a and a.b; for `from a.b import c` a, a.b and a.b.c (c may be
/// a submodule); relative imports resolved against Module (a package when
/// IsPackage).
std::vector<std::string> importedModules(TSNode Root, std::string_view Src,
                                         const std::string &Module,
                                         bool IsPackage);

/// The file that holds module Name under the import root Root
/// (Root/a/b.py or Root/a/b/__init__.py), or empty.
std::string modulePath(const std::string &Root, const std::string &Name);

} // namespace tether::python

#endif
