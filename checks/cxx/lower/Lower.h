//===- Lower.h - The C++ frontend: a translation unit into the engine's IR ===//
//
// Every user definition of a translation unit (not in a system header, not
// a template pattern, and accepted by isWholeDefinition) becomes one
// engine::Function, built from clang's CFG: each reachable CFG block gives
// an IR block, its elements are lowered in order, and its successors become
// the terminator. What the code means in the bug class's vocabulary (a
// capture begins, this call makes a weak reference, that member is a place)
// is decided here from the catalog; nothing is reasoned about.
//
// docs/engine.md ("What a lowering emits") is the contract; the C++
// decisions it leaves open are written down there too.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_LOWER_LOWER_H
#define TETHER_CXX_LOWER_LOWER_H

#include "catalog/Catalog.h"
#include "engine/Ir.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include <vector>

namespace tether::cxx {

/// A lowered translation unit, and the way back from the IR to the AST.
struct LoweredTU {
  engine::Program Program;
  /// The definition each function was lowered from, indexed by FnId.
  std::vector<const clang::FunctionDecl *> Decls;
  /// The function lowered from a definition (any redeclaration of it).
  engine::FnId idOf(const clang::FunctionDecl *FD) const;
  const clang::FunctionDecl *declOf(engine::FnId Fn) const {
    return Fn >= 0 && size_t(Fn) < Decls.size() ? Decls[Fn] : nullptr;
  }

  llvm::DenseMap<const clang::FunctionDecl *, engine::FnId> Ids;
  llvm::DenseMap<const clang::CXXRecordDecl *, engine::ClassId> ClassIds;
};

LoweredTU lowerTranslationUnit(clang::ASTContext &Ctx,
                               const CompiledCatalog &Cat);

} // namespace tether::cxx

#endif
