//===- TUAnalysis.cpp -----------------------------------------------------===//
#include "TUAnalysis.h"
#include "engine/Engine.h"
#include "lower/Lower.h"
#include <cassert>
#include <map>
#include <mutex>

using namespace clang;
using namespace tether;
using namespace tether::cxx;

namespace {
struct Registry {
  std::mutex Lock;
  std::map<std::pair<const ASTContext *, std::string>,
           std::weak_ptr<TUAnalysis>>
      Entries;
};
Registry &registry() {
  static Registry R;
  return R;
}

struct SinkHolder {
  std::mutex Lock;
  ProgramSink Sink;
};
SinkHolder &sinkHolder() {
  static SinkHolder H;
  return H;
}
} // namespace

void tether::cxx::setProgramSink(ProgramSink Sink) {
  SinkHolder &H = sinkHolder();
  std::lock_guard<std::mutex> G(H.Lock);
  H.Sink = std::move(Sink);
}

/// Hand P to the sink if one is set and P has code. Not only a TU that
/// binds or defines what others call: one of internal functions only may
/// begin a capture and call into another TU, or touch a class or global
/// another TU shares.
static void offer(engine::Program &&P) {
  SinkHolder &H = sinkHolder();
  ProgramSink Sink;
  {
    std::lock_guard<std::mutex> G(H.Lock);
    Sink = H.Sink;
  }
  if (!Sink || (P.Bindings.empty() && P.Functions.empty()))
    return;
  Sink(std::move(P));
}

std::shared_ptr<TUAnalysis>
TUAnalysis::acquire(ASTContext &Ctx,
                    std::shared_ptr<const CompiledCatalog> Catalog) {
  Registry &R = registry();
  std::string Key = catalogKey(Catalog->Source);
  std::lock_guard<std::mutex> G(R.Lock);
  // Entries whose TU every check has left are dead: drop them, so that a
  // new ASTContext at the same address starts afresh.
  for (auto It = R.Entries.begin(); It != R.Entries.end();)
    It = It->second.expired() ? R.Entries.erase(It) : std::next(It);
  auto &Slot = R.Entries[{&Ctx, std::move(Key)}];
  if (auto Live = Slot.lock())
    return Live;
  auto Fresh = std::make_shared<TUAnalysis>(Ctx, std::move(Catalog));
  Slot = Fresh;
  return Fresh;
}

TUAnalysis::TUAnalysis(ASTContext &Ctx,
                       std::shared_ptr<const CompiledCatalog> Catalog)
    : Ctx(Ctx), Catalog(std::move(Catalog)) {}
TUAnalysis::~TUAnalysis() = default;

const std::vector<Finding> &TUAnalysis::findings() {
  if (!Found) {
    LoweredTU L = lowerTranslationUnit(Ctx, *Catalog);
    engine::Options O;
    std::shared_ptr<const CompiledCatalog> Cat = Catalog;
    O.IsWorkspaceName = [Cat](uint32_t, llvm::StringRef Name) {
      return Cat->WorkspaceNames.matches(Name.lower());
    };
    Found = std::make_unique<std::vector<Finding>>(
        engine::analyze(L.Program, std::move(O)));
    offer(std::move(L.Program));
  }
  return *Found;
}
