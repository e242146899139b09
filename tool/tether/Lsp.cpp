//===- Lsp.cpp ------------------------------------------------------------===//
#include "Lsp.h"
#include "Filters.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>

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

namespace {
class Server {
public:
  Server(std::FILE *In, std::FILE *Out, const DocumentAnalyzer &Analyze)
      : In(In), Out(Out), Analyze(Analyze) {}
  int run();

private:
  std::optional<std::string> readMessage();
  void send(Value Msg);
  void reply(const Value &Id, Value Result) {
    send(Object{{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
  }
  void replyError(const Value &Id, int Code, llvm::StringRef Message) {
    send(Object{{"jsonrpc", "2.0"},
                {"id", Id},
                {"error", Object{{"code", Code}, {"message", Message}}}});
  }
  void publish(const std::string &Uri);
  void handle(const Object &Msg);

  std::FILE *In, *Out;
  const DocumentAnalyzer &Analyze;
  std::map<std::string, std::string> Open; // URI -> text
  std::map<std::string, bool> Saved;       // URI -> text equals the file
  bool ShutdownRequested = false;
  std::optional<int> ExitCode;
};

std::optional<std::string> Server::readMessage() {
  size_t Length = 0;
  bool HaveLength = false;
  char Line[1024];
  while (true) {
    if (!std::fgets(Line, sizeof(Line), In))
      return std::nullopt;
    llvm::StringRef L = llvm::StringRef(Line).rtrim("\r\n");
    if (L.empty()) {
      if (HaveLength)
        break;
      continue; // stray blank line between messages
    }
    auto [Name, Val] = L.split(':');
    if (Name.trim().equals_insensitive("content-length"))
      HaveLength = !Val.trim().getAsInteger(10, Length);
  }
  std::string Body(Length, '\0');
  if (std::fread(Body.data(), 1, Length, In) != Length)
    return std::nullopt;
  return Body;
}

void Server::send(Value Msg) {
  std::string Body;
  llvm::raw_string_ostream(Body) << Msg;
  std::fprintf(Out, "Content-Length: %zu\r\n\r\n%s", Body.size(), Body.c_str());
  std::fflush(Out);
}

Object position(unsigned Line, unsigned Column) {
  // LSP positions are 0-based; tether's are 1-based (0 when unknown).
  return Object{{"line", Line ? Line - 1 : 0},
                {"character", Column ? Column - 1 : 0}};
}

Object range(const Location &L) {
  return Object{{"start", position(L.Line, L.Column)},
                {"end", position(L.Line, L.Column + 1)}};
}

void Server::publish(const std::string &Uri) {
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
  send(Object{{"jsonrpc", "2.0"},
              {"method", "textDocument/publishDiagnostics"},
              {"params", Object{{"uri", Uri}, {"diagnostics", std::move(Diags)}}}});
}

void Server::handle(const Object &Msg) {
  std::optional<llvm::StringRef> Method = Msg.getString("method");
  const Value *Id = Msg.get("id");
  if (!Method)
    return; // a response to a request we never sent
  const Object *Params = Msg.getObject("params");
  const Object *Doc = Params ? Params->getObject("textDocument") : nullptr;
  std::string Uri = Doc && Doc->getString("uri") ? Doc->getString("uri")->str()
                                                 : std::string();

  // Requests must carry an id; without one there is nobody to answer.
  if (!Id && (*Method == "initialize" || *Method == "shutdown"))
    return;
  if (*Method == "initialize") {
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
  } else if (*Method == "textDocument/didOpen" && !Uri.empty()) {
    Open[Uri] = Doc->getString("text").value_or("").str();
    Saved[Uri] = true;
    publish(Uri);
  } else if (*Method == "textDocument/didChange" && !Uri.empty()) {
    const Array *Changes = Params->getArray("contentChanges");
    if (Changes && !Changes->empty())
      if (const Object *Last = Changes->back().getAsObject())
        if (auto Text = Last->getString("text")) {
          Open[Uri] = Text->str();
          Saved[Uri] = false;
          publish(Uri);
        }
  } else if (*Method == "textDocument/didSave" && !Uri.empty()) {
    Saved[Uri] = true;
    publish(Uri);
  } else if (*Method == "textDocument/didClose" && !Uri.empty()) {
    Open.erase(Uri);
    Saved.erase(Uri);
    publish(Uri); // clears the editor's diagnostics
  } else if (Id) {
    replyError(*Id, -32601, ("unsupported method " + *Method).str());
  }
}

int Server::run() {
  while (!ExitCode) {
    std::optional<std::string> Body = readMessage();
    if (!Body)
      return 1; // the client went away without exit
    auto Parsed = llvm::json::parse(*Body);
    if (!Parsed) {
      replyError(nullptr, -32700, llvm::toString(Parsed.takeError()));
      continue;
    }
    if (const Object *Msg = Parsed->getAsObject())
      handle(*Msg);
    else
      replyError(nullptr, -32600, "a message must be a JSON object");
  }
  return *ExitCode;
}
} // namespace

int tether::serveLsp(std::FILE *In, std::FILE *Out,
                     const DocumentAnalyzer &Analyze) {
  return Server(In, Out, Analyze).run();
}
