//===- Lsp.cpp ------------------------------------------------------------===//
#include "Lsp.h"
#include "Filters.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace tether;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string tether::uriToPath(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return "";
  std::string Out;
  for (size_t I = 0; I < Uri.size(); ++I) {
    unsigned Byte;
    if (Uri[I] == '%' && I + 2 < Uri.size() &&
        !Uri.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Out += char(Byte);
      I += 2;
    } else {
      Out += Uri[I];
    }
  }
  return Out;
}

std::string tether::pathToUri(llvm::StringRef Path) {
  return "file://" + percentEncodePath(Path);
}

std::string tether::percentEncodePath(llvm::StringRef Path) {
  std::string Out;
  for (char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Out += C;
    else
      Out += llvm::formatv("%{0:X2}", (unsigned char)C).str();
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// LspReader
//===----------------------------------------------------------------------===//
bool LspReader::readLine(std::string &Line) {
  Line.clear();
  int C;
  while ((C = std::getc(In)) != EOF) {
    if (C == '\n')
      return true;
    if (Line.size() < MaxHeaderLine)
      Line += char(C);
  }
  return false;
}

std::optional<LspFrame> LspReader::next() {
  static constexpr llvm::StringLiteral LengthHeader = "content-length:";
  std::optional<unsigned long long> Length;
  bool SawHeader = false;
  std::string Line;
  while (true) {
    if (!readLine(Line))
      return std::nullopt;
    llvm::StringRef L = llvm::StringRef(Line).rtrim('\r');
    if (L.empty()) {
      if (SawHeader)
        break;
      continue; // stray blank line between messages
    }
    SawHeader = true;
    // Searched anywhere in the line: after a frame without a valid length,
    // its unframed body runs into the next frame's header on one line, and
    // this is where the reader finds its footing again.
    size_t At = L.find_insensitive(LengthHeader);
    if (At == llvm::StringRef::npos)
      continue; // Content-Type and the like
    unsigned long long N;
    if (L.substr(At + LengthHeader.size()).trim().getAsInteger(10, N))
      Length.reset(); // negative, not a number, or beyond 64 bits
    else
      Length = N;
  }
  LspFrame F;
  if (!Length) {
    F.Kind = LspFrame::NoLength;
    return F;
  }
  F.Length = *Length;
  if (*Length > MaxMessageBytes)
    F.Kind = LspFrame::TooLarge;
  // Read in chunks, so that memory follows the bytes that really arrive,
  // not the length a header claims.
  char Chunk[1 << 16];
  for (unsigned long long Left = *Length; Left;) {
    size_t Want = size_t(std::min<unsigned long long>(Left, sizeof(Chunk)));
    size_t Got = std::fread(Chunk, 1, Want, In);
    if (F.Kind == LspFrame::Message)
      F.Body.append(Chunk, Got);
    if (Got != Want)
      return std::nullopt; // the client went away mid-frame
    Left -= Got;
  }
  return F;
}

//===----------------------------------------------------------------------===//
// LspServer
//===----------------------------------------------------------------------===//
void LspServer::send(Value Msg) {
  std::string Body;
  llvm::raw_string_ostream(Body) << Msg;
  Out << "Content-Length: " << Body.size() << "\r\n\r\n" << Body;
  Out.flush();
}

void LspServer::reply(const Value &Id, Value Result) {
  send(Object{{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
}

void LspServer::replyError(const Value &Id, int Code,
                           llvm::StringRef Message) {
  send(Object{{"jsonrpc", "2.0"},
              {"id", Id},
              {"error", Object{{"code", Code}, {"message", Message}}}});
}

static Object position(unsigned Line, unsigned Column) {
  // LSP positions are 0-based; tether's are 1-based (0 when unknown).
  return Object{{"line", Line ? Line - 1 : 0},
                {"character", Column ? Column - 1 : 0}};
}

static Object range(const Location &L) {
  return Object{{"start", position(L.Line, L.Column)},
                {"end", position(L.Line, L.Column + 1)}};
}

void LspServer::publish(const std::string &Uri, bool Always) {
  std::string Path = uriToPath(Uri);
  Array Diags;
  auto It = Open.find(Uri);
  if (It != Open.end() && !Path.empty()) {
    std::string Key = canonicalPath(Path);
    for (const Finding &F : Analyze(Path, It->second, Saved[Uri])) {
      if (canonicalPath(F.Loc.File) != Key)
        continue;
      Array Related;
      for (const Note &N : F.Notes)
        Related.push_back(Object{
            {"location", Object{{"uri", pathToUri(canonicalPath(N.Loc.File))},
                                {"range", range(N.Loc)}}},
            {"message", N.Message}});
      Object D{{"range", range(F.Loc)},
               {"severity", F.Severity == "error" ? 1 : 2},
               {"code", F.Check},
               {"source", "tether"},
               {"message", F.Message}};
      if (!Related.empty())
        D["relatedInformation"] = std::move(Related);
      Diags.push_back(std::move(D));
    }
  }
  std::string Key;
  llvm::raw_string_ostream(Key) << Value(Array(Diags));
  if (It == Open.end()) {
    Published.erase(Uri);
  } else {
    std::string &Last = Published[Uri];
    if (!Always && Last == Key)
      return;
    Last = std::move(Key);
  }
  send(Object{{"jsonrpc", "2.0"},
              {"method", "textDocument/publishDiagnostics"},
              {"params", Object{{"uri", Uri}, {"diagnostics", std::move(Diags)}}}});
}

void LspServer::refresh(const std::string &Changed) {
  if (Open.count(Changed))
    publish(Changed);
  if (!Events.DependsOnOthers)
    return;
  for (const auto &[Uri, Text] : Open) // publish() leaves Open as it is
    if (Uri != Changed && Events.DependsOnOthers(uriToPath(Uri)))
      publish(Uri, /*Always=*/false);
}

void LspServer::textChanged(const std::string &Uri) {
  std::string Path = uriToPath(Uri);
  if (!Events.TextChanged || Path.empty())
    return;
  auto It = Open.find(Uri);
  Events.TextChanged(Path, It == Open.end() ? nullptr : &It->second);
}

void LspServer::watchedFilesChanged(const Object *Params) {
  const Array *Changes = Params ? Params->getArray("changes") : nullptr;
  if (!Changes)
    return;
  for (const Value &C : *Changes)
    if (const Object *O = C.getAsObject())
      if (auto Uri = O->getString("uri")) {
        std::string Path = uriToPath(*Uri);
        if (!Path.empty() && Events.FileChanged)
          Events.FileChanged(Path);
      }
  refresh("");
}

void LspServer::handleMessage(const Object &Msg) {
  std::optional<llvm::StringRef> Method = Msg.getString("method");
  const Value *Id = Msg.get("id");
  if (!Method)
    return; // a response to a request we never sent
  if (Id && Id->kind() != Value::String && Id->kind() != Value::Number &&
      Id->kind() != Value::Null) {
    replyError(nullptr, -32600, "a request id must be a number or a string");
    return;
  }
  if (ShutdownRequested && *Method != "exit") {
    if (Id) // the specification's answer to requests after shutdown
      replyError(*Id, -32600, "the server is shutting down");
    return;
  }
  const Object *Params = Msg.getObject("params");
  const Object *Doc = Params ? Params->getObject("textDocument") : nullptr;
  std::string Uri = Doc && Doc->getString("uri") ? Doc->getString("uri")->str()
                                                 : std::string();

  // Requests must carry an id; without one there is nobody to answer.
  if (!Id && (*Method == "initialize" || *Method == "shutdown"))
    return;
  if (*Method == "initialize") {
    const Object *Caps = Params ? Params->getObject("capabilities") : nullptr;
    const Object *Ws = Caps ? Caps->getObject("workspace") : nullptr;
    const Object *Watch = Ws ? Ws->getObject("didChangeWatchedFiles") : nullptr;
    CanRegisterWatchers =
        Watch && Watch->getBoolean("dynamicRegistration").value_or(false);
    Object Sync{{"openClose", true},
                {"change", 1}, // full text
                {"save", Object{{"includeText", false}}}};
    reply(*Id, Object{{"capabilities", Object{{"textDocumentSync", std::move(Sync)}}},
                      {"serverInfo", Object{{"name", "tether"}}}});
  } else if (*Method == "shutdown") {
    ShutdownRequested = true;
    reply(*Id, nullptr);
  } else if (*Method == "exit") {
    ExitCode = ShutdownRequested ? 0 : 1;
  } else if (*Method == "initialized") {
    // Files edited outside the editor (a checkout, another tool) change
    // the findings of open documents; a client that cannot be asked still
    // sends what it watches anyway, and the analysis checks modification
    // times at every request.
    if (CanRegisterWatchers)
      send(Object{
          {"jsonrpc", "2.0"},
          {"id", "tether-watch"},
          {"method", "client/registerCapability"},
          {"params",
           Object{{"registrations",
                   Array{Object{
                       {"id", "tether-watched-files"},
                       {"method", "workspace/didChangeWatchedFiles"},
                       {"registerOptions",
                        Object{{"watchers",
                                Array{Object{{"globPattern", "**/*.py"}},
                                      Object{{"globPattern",
                                              "**/.tether.yaml"}}}}}}}}}}}});
  } else if (*Method == "textDocument/didOpen" && !Uri.empty()) {
    Open[Uri] = Doc->getString("text").value_or("").str();
    Saved[Uri] = true;
    textChanged(Uri);
    refresh(Uri);
  } else if (*Method == "textDocument/didChange" && !Uri.empty()) {
    const Array *Changes = Params->getArray("contentChanges");
    if (Changes && !Changes->empty())
      if (const Object *Last = Changes->back().getAsObject())
        if (auto Text = Last->getString("text")) {
          Open[Uri] = Text->str();
          Saved[Uri] = false;
          textChanged(Uri);
          refresh(Uri);
        }
  } else if (*Method == "textDocument/didSave" && !Uri.empty()) {
    Saved[Uri] = true;
    refresh(Uri);
  } else if (*Method == "textDocument/didClose" && !Uri.empty()) {
    Open.erase(Uri);
    Saved.erase(Uri);
    textChanged(Uri);
    publish(Uri); // clears the editor's diagnostics
    refresh("");  // the others now see the file on disk
  } else if (*Method == "workspace/didChangeWatchedFiles") {
    watchedFilesChanged(Params);
  } else if (Id) {
    replyError(*Id, -32601, ("unsupported method " + *Method).str());
  }
}

/// Whether Body nests arrays and objects deeper than Max, counted outside
/// strings (a quick pass; malformed JSON is for the parser to report).
static bool nestsDeeperThan(llvm::StringRef Body, unsigned Max) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Body.size(); ++I) {
    char C = Body[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Max)
        return true;
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return false;
}

void LspServer::handle(const LspFrame &Frame) {
  switch (Frame.Kind) {
  case LspFrame::NoLength:
    Log << "tether lsp: skipped a message without a valid Content-Length "
           "header\n";
    return;
  case LspFrame::TooLarge: {
    std::string Size = llvm::formatv("{0} bytes (the limit is {1})",
                                     Frame.Length, LspReader::MaxMessageBytes);
    Log << "tether lsp: dropped a message of " << Size << "\n";
    replyError(nullptr, -32600, "message too large: " + Size);
    return;
  }
  case LspFrame::Message:
    break;
  }
  if (nestsDeeperThan(Frame.Body, MaxJsonDepth)) {
    replyError(nullptr, -32700,
               llvm::formatv("JSON nested deeper than {0} levels",
                             MaxJsonDepth).str());
    return;
  }
  auto Parsed = llvm::json::parse(Frame.Body);
  if (!Parsed) {
    replyError(nullptr, -32700, llvm::toString(Parsed.takeError()));
    return;
  }
  if (const Object *Msg = Parsed->getAsObject())
    handleMessage(*Msg);
  else
    replyError(nullptr, -32600, "a message must be a JSON object");
}

int tether::serveLsp(std::FILE *In, std::FILE *Out,
                     const DocumentAnalyzer &Analyze, DocumentEvents Events) {
  llvm::raw_fd_ostream OS(fileno(Out), /*shouldClose=*/false);
  LspReader Reader(In);
  LspServer Server(OS, llvm::errs(), Analyze, std::move(Events));
  while (!Server.exitCode()) {
    std::optional<LspFrame> Frame = Reader.next();
    if (!Frame)
      return 1; // the client went away without exit
    Server.handle(*Frame);
    if (OS.has_error()) { // nobody reads our answers any more
      OS.clear_error();
      return 1;
    }
  }
  return *Server.exitCode();
}
