//===- Lsp.h - `tether lsp`: a minimal language server on stdio -----------===//
//
// For Python files in editors (clangd, through tether-clangd, covers C++):
// initialize, didOpen/didChange/didSave/didClose, didChangeWatchedFiles,
// publishDiagnostics with the notes as related information, shutdown/exit.
//
// After every change (an edit, a save, a close, a file changed on disk) the
// documents whose findings can depend on other files are analysed again,
// and each one whose diagnostics changed is published again; the edited
// document always is.
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

/// What the analysis may want to know besides "analyse this"; each member
/// may be empty.
struct DocumentEvents {
  /// The editor's text of Path, or null once the document is closed.
  std::function<void(llvm::StringRef Path, const std::string *Text)> TextChanged;
  /// Path changed on disk (a watched-file event).
  std::function<void(llvm::StringRef Path)> FileChanged;
  /// Whether Path's findings can change when another file changes (a Python
  /// module, analysed with its package); such documents are analysed again
  /// after every change.
  std::function<bool(llvm::StringRef Path)> DependsOnOthers;
};

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
            const DocumentAnalyzer &Analyze, DocumentEvents Events = {})
      : Out(Out), Log(Log), Analyze(Analyze), Events(std::move(Events)) {}
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
  /// Analyse Uri and publish its diagnostics, unless they equal the last
  /// ones published and Always is false.
  void publish(const std::string &Uri, bool Always = true);
  /// After a change to Changed (empty: files on disk): Changed published,
  /// then every other open document that depends on others, if changed.
  void refresh(const std::string &Changed);
  void textChanged(const std::string &Uri);
  void watchedFilesChanged(const llvm::json::Object *Params);

  llvm::raw_ostream &Out, &Log;
  const DocumentAnalyzer &Analyze;
  DocumentEvents Events;
  std::map<std::string, std::string> Open; // URI -> text
  std::map<std::string, bool> Saved;       // URI -> text equals the file
  std::map<std::string, std::string> Published; // URI -> diagnostics (JSON)
  bool CanRegisterWatchers = false; ///< The client registers dynamically.
  bool ShutdownRequested = false;
  std::optional<int> ExitCode;
};

/// Serves LSP over In/Out until `exit` or end of input. Returns the exit
/// status: 0 after shutdown+exit, 1 when the client vanished or exited
/// without shutdown.
int serveLsp(std::FILE *In, std::FILE *Out, const DocumentAnalyzer &Analyze,
             DocumentEvents Events = {});

/// file:// URIs <-> paths (percent-decoding, as editors send them).
std::string uriToPath(llvm::StringRef Uri);
std::string pathToUri(llvm::StringRef Path);
/// Path as a URI path: every byte but letters, digits and "/-._~"
/// percent-encoded (what pathToUri puts after "file://"; SARIF's
/// repository-relative URIs are this alone).
std::string percentEncodePath(llvm::StringRef Path);

} // namespace tether

#endif
