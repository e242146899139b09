//===- Symbol.h - A string of the IR, kept once for the whole process ----===//
//
// The IR names things as the code spells them: a place ("workspaces"), its
// key ("0"), a callee ("weak_ref_tensors"), a stream. A package of 200
// modules lowers to some 70 thousand instructions, each with six such
// strings, and the same few thousand spellings recur: held inline as
// std::string they were 192 of an instruction's 320 bytes and the largest
// part of a run's memory. A Symbol is one pointer to the process's only copy
// of its text, so an instruction carries 8 bytes per string and two symbols
// are equal exactly when their pointers are.
//
// The texts are never freed (a language server keeps every spelling it has
// seen: the identifiers of the code it was shown, a few MB at most). They
// are added under a lock (lowering runs on several threads) and read
// without one: an added text never moves.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_SYMBOL_H
#define TETHER_ENGINE_SYMBOL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace tether::engine {

class Symbol {
public:
  Symbol() = default;
  Symbol(llvm::StringRef Text) : S(Text.empty() ? nullptr : intern(Text)) {}
  Symbol(const std::string &Text) : Symbol(llvm::StringRef(Text)) {}
  Symbol(const char *Text) : Symbol(llvm::StringRef(Text)) {}

  const std::string &str() const { return S ? *S : emptyText(); }
  operator const std::string &() const { return str(); }
  operator llvm::StringRef() const { return str(); }
  llvm::StringRef ref() const { return str(); }

  bool empty() const { return !S; }
  void clear() { S = nullptr; }
  const char *c_str() const { return str().c_str(); }

  friend bool operator==(Symbol A, Symbol B) { return A.S == B.S; }
  friend bool operator!=(Symbol A, Symbol B) { return A.S != B.S; }
  friend bool operator==(Symbol A, llvm::StringRef B) { return A.ref() == B; }
  friend bool operator!=(Symbol A, llvm::StringRef B) { return A.ref() != B; }
  friend bool operator==(Symbol A, const char *B) { return A.ref() == B; }
  friend bool operator!=(Symbol A, const char *B) { return A.ref() != B; }
  friend bool operator==(Symbol A, const std::string &B) {
    return A.ref() == B;
  }
  friend bool operator!=(Symbol A, const std::string &B) {
    return A.ref() != B;
  }
  /// By text, so that what is sorted by it does not depend on the order
  /// texts were first seen in.
  friend bool operator<(Symbol A, Symbol B) { return A.ref() < B.ref(); }
  friend std::string operator+(Symbol A, const char *B) { return A.str() + B; }
  friend std::string operator+(const char *A, Symbol B) { return A + B.str(); }
  friend std::string operator+(const std::string &A, Symbol B) {
    return A + B.str();
  }
  friend llvm::raw_ostream &operator<<(llvm::raw_ostream &OS, Symbol A) {
    return OS << A.ref();
  }

private:
  static const std::string *intern(llvm::StringRef Text);
  static const std::string &emptyText();
  const std::string *S = nullptr;
};

} // namespace tether::engine

#endif
