//===- Places.h - Memory abstracted by where it is held -------------------===//
//
// A place is where a tensor handle outlives one call: a global or static
// variable, a data member (all objects of the class are one place), or the
// slots of a container held in one of those (all slots of one container are
// one place; the key is kept for the checks that look at it). Locals bound
// to a place (`auto &cache = get_cache();`, a range-for over a container, an
// iterator from find()) denote that place.
//
// The index records every access to a place in the TU's user functions:
// reads, writes (with the stored value) and clears, each with the statement
// whose capture state applies.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_ANALYSIS_PLACES_H
#define TETHER_CXX_ANALYSIS_PLACES_H

#include "CaptureRegions.h"
#include "clang/AST/ParentMap.h"

namespace tether::cxx {

struct Place {
  const clang::ValueDecl *Decl = nullptr;
  bool Slot = false;
  const clang::Expr *Key = nullptr; ///< the subscript or lookup key, if any
  explicit operator bool() const { return Decl != nullptr; }
};

struct PlaceAccess {
  enum KindT { Read, Write, Clear } Kind;
  const clang::FunctionDecl *Fn;
  const clang::Expr *E;      ///< the whole place expression (e.g. `m[k]`)
  Place P;
  const clang::Expr *Value;  ///< for writes: the value stored, if known
  const clang::Stmt *Whole;  ///< the statement performing the access
};

class Places {
public:
  explicit Places(const CaptureRegions &Regions);
  ~Places();

  /// The place E denotes inside F, if any.
  Place placeOf(const clang::FunctionDecl *F, const clang::Expr *E) const;

  /// All accesses to the place declared by D, in TU order.
  llvm::ArrayRef<PlaceAccess> accesses(const clang::ValueDecl *D) const;
  /// Every declaration that has accesses.
  llvm::ArrayRef<const clang::ValueDecl *> declarations() const {
    return Decls;
  }

  /// Whether the value of E (an expression of F) reaches an operation: an
  /// argument of a call, an in-place method, directly or through a local it
  /// initialises; or is returned and a caller does so. Returns where.
  const clang::Expr *opUse(const clang::FunctionDecl *F, const clang::Expr *E,
                           unsigned Depth = 0) const;

  const clang::ParentMap &parents(const clang::FunctionDecl *F) const;
  /// The parent of E in F, skipping what does not change its value.
  const clang::Stmt *valueParent(const clang::FunctionDecl *F,
                                 const clang::Expr *E) const;

  /// A printable name: `g_ws`, `Class::field_`, with `[]` for slots.
  static std::string name(const Place &P);
  const CaptureRegions &regions() const { return Regions; }

private:
  void index(const clang::FunctionDecl *F);
  const clang::Expr *placeBinding(const clang::VarDecl *V) const;

  const CaptureRegions &Regions;
  mutable llvm::DenseMap<const clang::FunctionDecl *,
                         std::unique_ptr<clang::ParentMap>>
      ParentMaps;
  llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> RangeOf;
  llvm::DenseMap<const clang::VarDecl *, const clang::FunctionDecl *> OwnerOf;
  llvm::DenseMap<const clang::ValueDecl *, std::vector<PlaceAccess>> Accesses;
  std::vector<const clang::ValueDecl *> Decls;
};

/// Whether a method of that name changes which tensor a container or
/// tensor handle holds.
bool isReplacingMethod(llvm::StringRef Name);
bool isClearingMethod(llvm::StringRef Name);
/// Whether the type is (a reference to) an at::Tensor.
bool isTensorType(clang::QualType T);

} // namespace tether::cxx

#endif
