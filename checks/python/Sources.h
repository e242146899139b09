//===- Sources.h - Finding and reading the Python files of a scan ---------===//
//
// Everything that can go wrong with one input file becomes a FileProblem
// with a one-line reason; the scan goes on with the other files.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_SOURCES_H
#define TETHER_PYTHON_SOURCES_H

#include "Model.h"
#include "PythonFrontend.h"
#include <string>
#include <vector>

namespace tether::python {

/// Files above this size are skipped with a problem: they are generated data,
/// not code anyone captures graphs in, and would dominate time and memory.
inline constexpr size_t MaxSourceBytes = 8u << 20;

struct Discovery {
  std::vector<std::string> Files; ///< In a stable order, each real file once.
  std::vector<FileProblem> Problems;
};

/// Expand files and directories (recursively, *.py; hidden folders and
/// __pycache__ skipped; symlinks followed, loops reported, not followed).
Discovery discover(const std::vector<std::string> &Paths);

/// Read a source as UTF-8 text. Returns false and sets Problem when the file
/// is unreadable, too large, binary, or not decodable (PEP 263 latin-1
/// declarations are converted; other encodings are reported). A UTF-8 byte
/// order mark is dropped from Text. Layout says how Text's offsets map to
/// the file's. Line breaks are as normalizeLineBreaks leaves them.
bool readSource(const std::string &Path, std::string &Text,
                std::string &Problem, SourceLayout &Layout);

/// A lone carriage return ends a line for CPython (universal newlines) and
/// for editors, but not for tree-sitter-python, which reads it as a blank
/// and so rejects a file written with old Mac line breaks. Each `\r` not
/// followed by `\n` becomes `\n`: the same length, so every offset and
/// column stays the file's, and lines are counted as CPython counts them.
void normalizeLineBreaks(std::string &Text);

} // namespace tether::python

#endif
