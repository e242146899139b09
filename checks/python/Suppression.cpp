//===- Suppression.cpp - NOLINT / noqa comments in Python sources ---------===//
#include "Suppression.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/GlobPattern.h"

using namespace tether::python;

/// The comment part of a line: from the first '#' outside a string literal
/// opened on that line (triple-quoted strings spanning lines are rare
/// enough around suppressions to ignore).
static llvm::StringRef commentOf(llvm::StringRef Line) {
  char Quote = 0;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quote) {
      if (C == '\\')
        ++I;
      else if (C == Quote)
        Quote = 0;
    } else if (C == '"' || C == '\'') {
      Quote = C;
    } else if (C == '#') {
      return Line.drop_front(I + 1);
    }
  }
  return {};
}

static std::vector<std::string> splitList(llvm::StringRef L) {
  std::vector<std::string> Out;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  L.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    // flake8 also allows spaces between codes.
    llvm::SmallVector<llvm::StringRef, 2> Words;
    P.split(Words, ' ', -1, false);
    for (llvm::StringRef W : Words) {
      W = W.trim();
      if (!W.empty())
        Out.push_back(W.str());
    }
  }
  return Out;
}

void Suppressions::add(unsigned Line, std::vector<std::string> Patterns) {
  ByLine[Line].push_back(std::move(Patterns));
}

Suppressions::Suppressions(std::string_view Source) {
  llvm::StringRef Rest(Source.data(), Source.size());
  unsigned LineNo = 0;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    ++LineNo;
    if (!Line.contains('#'))
      continue;
    llvm::StringRef C = commentOf(Line);
    if (C.empty())
      continue;
    // NOLINTNEXTLINE before NOLINT: the latter is a prefix of the former.
    size_t At = C.find("NOLINTNEXTLINE");
    if (At != llvm::StringRef::npos) {
      llvm::StringRef After = C.drop_front(At + 14);
      if (After.starts_with("(")) {
        llvm::StringRef Inner = After.drop_front(1).take_until([](char Ch) { return Ch == ')'; });
        add(LineNo + 1, splitList(Inner));
      } else {
        add(LineNo + 1, {});
      }
    } else if ((At = C.find("NOLINT")) != llvm::StringRef::npos) {
      llvm::StringRef After = C.drop_front(At + 6);
      if (After.starts_with("(")) {
        llvm::StringRef Inner = After.drop_front(1).take_until([](char Ch) { return Ch == ')'; });
        add(LineNo, splitList(Inner));
      } else {
        add(LineNo, {});
      }
    }
    std::string Lower = C.lower();
    size_t Q = Lower.find("noqa");
    if (Q != std::string::npos) {
      llvm::StringRef After = C.drop_front(Q + 4);
      if (After.starts_with(":")) {
        llvm::StringRef Codes = After.drop_front(1).take_until([](char Ch) { return Ch == '#'; });
        std::vector<std::string> L = splitList(Codes);
        if (!L.empty())
          add(LineNo, std::move(L));
      } else {
        add(LineNo, {});
      }
    }
  }
}

bool Suppressions::suppressed(unsigned Line, const std::string &Check) const {
  auto It = ByLine.find(Line);
  if (It == ByLine.end())
    return false;
  for (const auto &Patterns : It->second) {
    if (Patterns.empty())
      return true;
    for (const std::string &Pat : Patterns) {
      if (Pat == Check)
        return true;
      auto G = llvm::GlobPattern::create(Pat);
      if (G && G->match(Check))
        return true;
      if (!G)
        llvm::consumeError(G.takeError());
    }
  }
  return false;
}
