//===- ConfigFuzzer.cpp - Bytes -> .tether.yaml and the check options -----===//
//
// An input is a .tether.yaml document, optionally followed by a line "#--"
// and clang-tidy check option lines "Name=value" (WeakRefFunctions=a;b,
// CapturePairs=begin=end;...). The document is found upward from a source
// file by CatalogProvider, as for every analysed file; the options go
// through Catalog::appendList/appendPairs into the provider's Extra, as
// TetherCheck's constructor puts them. The effective catalog is compiled and
// matched against a few names taken from the input.
//
// Checked beyond "no crash, leak or UB": an error is one line, and names
// either the file with a line and column or the check option at fault.
//
//===----------------------------------------------------------------------===//
#include "catalog/Catalog.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tether;
using llvm::StringRef;

namespace {
/// A directory on tmpfs holding the .tether.yaml under test, removed at
/// exit.
struct Scratch {
  std::string Dir, Config, Source;
  Scratch() {
    llvm::SmallString<128> D("/dev/shm/tether-fuzz-config-XXXXXX");
    if (!::mkdtemp(D.data())) {
      std::perror("fuzz-config: mkdtemp");
      std::abort();
    }
    Dir = D.str().str();
    Config = Dir + "/" + CatalogProvider::ConfigFileName;
    Source = Dir + "/a.py";
  }
  ~Scratch() {
    llvm::sys::fs::remove(Config);
    llvm::sys::fs::remove(Dir);
  }
};

/// The option names TetherCheck reads and the catalog field each extends.
void addOption(Catalog &Extra, StringRef Name, StringRef Value) {
  if (Name == "CapturePairs")
    return Catalog::appendPairs(Extra.CapturePairs, Value);
  if (Name == "TaskUpdatePairs")
    return Catalog::appendPairs(Extra.TaskUpdatePairs, Value);
  if (Name == "SessionPairs")
    return Catalog::appendPairs(Extra.SessionPairs, Value);
  std::vector<std::string> *Field =
      llvm::StringSwitch<std::vector<std::string> *>(Name)
          .Case("CaptureGuards", &Extra.CaptureGuards)
          .Case("TaskUpdateCalls", &Extra.TaskUpdateCalls)
          .Case("SessionPredicates", &Extra.SessionPredicates)
          .Case("WeakRefFunctions", &Extra.WeakRefFunctions)
          .Case("BlobFunctions", &Extra.BlobFunctions)
          .Case("WorkspaceProducers", &Extra.WorkspaceProducers)
          .Case("WorkspaceNames", &Extra.WorkspaceNames)
          .Case("StreamSwitches", &Extra.StreamSwitches)
          .Case("StreamSyncs", &Extra.StreamSyncs)
          .Default(nullptr);
  if (Field)
    Catalog::appendList(*Field, Value);
}

[[noreturn]] void fail(const char *What, StringRef Message) {
  llvm::errs() << "fuzz-config: " << What << ": [" << Message << "]\n";
  std::abort();
}

/// "PREFIX<digits>:<digits>: <something>"
bool namesLineAndColumn(StringRef Message, StringRef Prefix) {
  if (!Message.consume_front(Prefix))
    return false;
  unsigned Line, Col;
  if (Message.consumeInteger(10, Line) || !Message.consume_front(":") ||
      Message.consumeInteger(10, Col) || !Message.consume_front(": "))
    return false;
  return Line > 0 && Col > 0 && !Message.empty();
}

void probe(const CompiledCatalog &C, StringRef Name) {
  const NameSet *Sets[] = {
      &C.CaptureBegins,    &C.CaptureEnds,        &C.CaptureGuards,
      &C.CaptureContexts,  &C.CapturePredicates,  &C.WeakRefFunctions,
      &C.BlobFunctions,    &C.WorkspaceProducers, &C.WorkspaceNames,
      &C.StreamSwitches,   &C.StreamSyncs};
  for (const NameSet *S : Sets)
    (void)S->matches(Name);
  (void)C.endFor(Name);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static Scratch S;
  StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto [Yaml, Options] = Input.split("\n#--\n");

  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(S.Config, EC);
    if (EC)
      fail("cannot write", S.Config);
    OS << Yaml;
  }
  Catalog Extra;
  llvm::SmallVector<StringRef, 8> Lines;
  Options.split(Lines, '\n');
  for (StringRef L : Lines) {
    auto [Name, Value] = L.split('=');
    addOption(Extra, Name.trim(), Value);
  }

  CatalogProvider Provider("", std::move(Extra));
  auto C = Provider.forFile(S.Source);
  if (!C) {
    std::string Msg = llvm::toString(C.takeError());
    if (Msg.find_first_of("\n\r") != std::string::npos)
      fail("error of more than one line", Msg);
    if (!namesLineAndColumn(Msg, S.Config + ":") &&
        !StringRef(Msg).starts_with("check option "))
      fail("error naming neither file:line:col nor an option", Msg);
    return 0;
  }
  // Names as the frontends meet them: short qualified identifiers.
  probe(**C, "torch.npu.graph");
  probe(**C, "c10_npu::NPUGraph::capture_begin");
  // A few words of the input, so its own patterns meet names they may
  // match; few and short, because matching every default pattern against
  // every suffix is what an execution spends most on.
  llvm::SmallVector<StringRef, 4> Words;
  Input.split(Words, ' ', 3, /*KeepEmpty=*/false);
  for (StringRef W : Words)
    probe(**C, W.trim().take_front(32));
  return 0;
}
