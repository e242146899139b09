//===- Lsp.h - `tether lsp`: a minimal language server on stdio -----------===//
//
// For Python files in editors (clangd, through tether-clangd, covers C++):
// initialize, didOpen/didChange/didSave/didClose, publishDiagnostics with
// the notes as related information, shutdown/exit.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_TOOL_LSP_H
#define TETHER_TOOL_LSP_H

#include "common/Finding.h"
#include "llvm/ADT/StringRef.h"
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace tether {

/// Analyses one document: its path on disk and the editor's current text.
/// Returns findings anywhere; the server keeps those in the document.
using DocumentAnalyzer = std::function<std::vector<Finding>(
    llvm::StringRef Path, llvm::StringRef Text, bool Saved)>;

/// Serves LSP over In/Out until `exit` or end of input. Returns the exit
/// status: 0 after shutdown+exit, 1 when the client vanished or exited
/// without shutdown (as the LSP specification asks).
int serveLsp(std::FILE *In, std::FILE *Out, const DocumentAnalyzer &Analyze);

/// file:// URIs <-> paths (percent-decoding, as editors send them).
std::string uriToPath(llvm::StringRef Uri);
std::string pathToUri(llvm::StringRef Path);
/// Path as a URI path: every byte but letters, digits and "/-._~"
/// percent-encoded (what pathToUri puts after "file://"; SARIF's
/// repository-relative URIs are this alone).
std::string percentEncodePath(llvm::StringRef Path);

} // namespace tether

#endif
