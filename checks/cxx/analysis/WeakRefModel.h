//===- WeakRefModel.h - Which values are weak references, per TU ----------===//
//
// The shared reasoning about weak references in one translation unit:
//  * conversions: calls that return a non-owning alias of their argument --
//    catalog primitives, from_blob over another tensor's data_ptr() (directly
//    or through a pointer local never changed after its initialisation)
//    without a deleter, for_blob(...)...make_tensor() chains without one,
//    and helpers inferred to return one of those;
//  * summaries: per function, "returns a weak reference" and "converts its
//    parameter i to a weak reference (at this location)", computed bottom-up
//    over the user's functions to a fixpoint (so SCCs converge);
//  * local flow: for each function, a may-analysis on clang's CFG of which
//    locals hold a weak reference at each use, with the conversion it came
//    from.
// Functions in system headers (torch, the standard library) are not
// analysed: their weak-ref behaviour is the catalog's business.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_ANALYSIS_WEAKREFMODEL_H
#define TETHER_CXX_ANALYSIS_WEAKREFMODEL_H

#include "catalog/Catalog.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <optional>
#include <deque>
#include <vector>

namespace tether::cxx {

/// Strip what does not change which object an expression denotes: parens,
/// implicit casts, temporaries, copy/move construction, cleanups.
const clang::Expr *peel(const clang::Expr *E);

/// The blocks of G reachable from the entry, in reverse post-order. Unlike
/// llvm::ReversePostOrderTraversal this skips the null successors clang's
/// CFG uses for edges it proved impossible (`do ... while (0)`, `if (true)`),
/// which the generic traversal would dereference. Dead blocks (the body of
/// `while (false)`) are left out, so no flow analysis lets their facts leak
/// into live code.
std::vector<const clang::CFGBlock *> reversePostOrder(const clang::CFG &G);

/// A position in a function's CFG: element Index of Block.
struct CFGPoint {
  const clang::CFGBlock *Block;
  unsigned Index;
};

/// The visiting order of a forward flow analysis to its fixpoint: every
/// reachable block once, in reverse post-order, then (first in, first out)
/// each block again whenever an edge into it added facts.
class ForwardWorklist {
public:
  explicit ForwardWorklist(const clang::CFG &G);
  /// The next block to visit, or null when the analysis has settled.
  const clang::CFGBlock *next();
  /// B's input grew: visit it again (unless it is already waiting).
  void revisit(const clang::CFGBlock *B);

private:
  std::deque<const clang::CFGBlock *> Work;
  std::vector<bool> Queued;
};

/// The local variable or parameter E names after peel(), if any.
const clang::VarDecl *referencedVar(const clang::Expr *E);

/// A call that makes a weak reference.
struct Conversion {
  enum KindT { Primitive, Helper, Blob } Kind;
  const clang::CallExpr *Call;
  /// The expression whose memory the weak reference aliases (for Blob: the
  /// tensor whose data_ptr() is wrapped).
  const clang::Expr *Source;
  const clang::FunctionDecl *Callee;
};

/// A conversion of parameter Index inside a function, possibly through
/// further helpers.
struct ParamConversion {
  clang::SourceLocation Loc;       ///< where the conversion (or the call
                                   ///< that leads to it) happens
  const clang::FunctionDecl *Via;  ///< the helper called there, or null
};

class WeakRefModel {
public:
  WeakRefModel(clang::ASTContext &Ctx, const CompiledCatalog &Catalog);
  ~WeakRefModel();

  /// Summarise these definitions (the TU's non-system functions).
  void summarize(llvm::ArrayRef<const clang::FunctionDecl *> Definitions);

  std::optional<Conversion> asConversion(const clang::CallExpr *Call) const;
  bool returnsWeak(const clang::FunctionDecl *FD) const;
  /// Parameters FD converts to weak references, by index.
  const llvm::DenseMap<unsigned, ParamConversion> *
  convertedParams(const clang::FunctionDecl *FD) const;

  /// The conversion that made the weak reference E may evaluate to, or null
  /// when E is (on every path) not a weak reference. E must be an
  /// expression of a summarised function.
  const clang::CallExpr *weakOrigin(const clang::Expr *E) const;

  /// The CFG of a summarised function (null when none could be built).
  const clang::CFG *cfgOf(const clang::FunctionDecl *FD) const;
  /// Where statement S is an element of FD's CFG, if it is one (each
  /// function's elements are indexed once, on first use).
  std::optional<CFGPoint> pointOf(const clang::FunctionDecl *FD,
                                  const clang::Stmt *S) const;

  bool isCatalogWeakRef(const clang::FunctionDecl *FD) const;
  bool isCatalogBlob(const clang::FunctionDecl *FD) const;
  clang::ASTContext &context() const { return Ctx; }

private:
  struct FunctionInfo;
  bool analyseFunction(FunctionInfo &Info);
  FunctionInfo *infoFor(const clang::FunctionDecl *FD) const;
  const clang::CallExpr *makerRoot(const clang::CXXMemberCallExpr *Make) const;

  clang::ASTContext &Ctx;
  const CompiledCatalog &Catalog;
  std::vector<std::unique_ptr<FunctionInfo>> Functions;
  llvm::DenseMap<const clang::FunctionDecl *, FunctionInfo *> ByDecl;
  /// Weak origin of each variable use, from the local flow.
  llvm::DenseMap<const clang::DeclRefExpr *, const clang::CallExpr *> UseOrigin;
  mutable llvm::DenseMap<const clang::FunctionDecl *,
                         llvm::DenseMap<const clang::Stmt *, CFGPoint>>
      Points;
  mutable llvm::DenseMap<const clang::FunctionDecl *, bool> WeakRefCache,
      BlobCache;
};

} // namespace tether::cxx

#endif
