//===- Lsp.h - `tether lsp`: a minimal language server on stdio -----------===//
//
// For Python files in editors (clangd, through tether-clangd, covers C++):
// initialize, didOpen/didChange/didSave/didClose, publishDiagnostics with
// the notes as related information, shutdown/exit.
//
// Two parts, so that a test or fuzzer can drive the real server in-process:
// LspReader cuts the input into frames, LspServer answers each frame on an
// output stream. serveLsp joins them over stdio.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_TOOL_LSP_H
#define TETHER_TOOL_LSP_H

#include "common/Finding.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tether {

/// Analyses one document: its path on disk and the editor's current text.
/// Returns findings anywhere; the server keeps those in the document.
using DocumentAnalyzer = std::function<std::vector<Finding>(
    llvm::StringRef Path, llvm::StringRef Text, bool Saved)>;

/// One frame of the base protocol: "Content-Length: N" (and other headers),
/// a blank line, N bytes of JSON.
struct LspFrame {
  enum KindType {
    Message,  ///< Body holds the N bytes.
    NoLength, ///< The header block had no valid Content-Length: skipped.
    TooLarge, ///< N exceeds MaxMessageBytes: the body was read and dropped.
  } Kind = Message;
  std::string Body;
  unsigned long long Length = 0; ///< N, for NoLength 0
};

/// Reads frames from a stream. Header lines are bounded; a body larger than
/// MaxMessageBytes is consumed without being stored.
class LspReader {
public:
  explicit LspReader(std::FILE *In) : In(In) {}
  /// The next frame; nullopt at the end of input (a cut-off frame included).
  std::optional<LspFrame> next();

  static constexpr unsigned long long MaxMessageBytes = 64ull << 20;
  static constexpr size_t MaxHeaderLine = 4096;

private:
  /// One header line without its line break; false at the end of input.
  /// Overlong lines are cut at MaxHeaderLine (and so never parse).
  bool readLine(std::string &Line);
  std::FILE *In;
};

/// The protocol state and the answers: one call of handle() per frame.
/// Out receives the framed responses and notifications (flushed after each);
/// Log one line per frame that cannot be answered.
class LspServer {
public:
  LspServer(llvm::raw_ostream &Out, llvm::raw_ostream &Log,
            const DocumentAnalyzer &Analyze)
      : Out(Out), Log(Log), Analyze(Analyze) {}
  void handle(const LspFrame &Frame);
  /// Set by `exit`: 0 after shutdown, else 1 (as the LSP specification asks).
  std::optional<int> exitCode() const { return ExitCode; }

  /// JSON nested deeper than this is refused before parsing (llvm::json
  /// parses and destroys values recursively).
  static constexpr unsigned MaxJsonDepth = 256;

private:
  void handleMessage(const llvm::json::Object &Msg);
  void send(llvm::json::Value Msg);
  void reply(const llvm::json::Value &Id, llvm::json::Value Result);
  void replyError(const llvm::json::Value &Id, int Code,
                  llvm::StringRef Message);
  void publish(const std::string &Uri);

  llvm::raw_ostream &Out, &Log;
  const DocumentAnalyzer &Analyze;
  std::map<std::string, std::string> Open; // URI -> text
  std::map<std::string, bool> Saved;       // URI -> text equals the file
  bool ShutdownRequested = false;
  std::optional<int> ExitCode;
};

/// Serves LSP over In/Out until `exit` or end of input. Returns the exit
/// status: 0 after shutdown+exit, 1 when the client vanished or exited
/// without shutdown.
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
