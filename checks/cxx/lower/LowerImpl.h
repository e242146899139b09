//===- LowerImpl.h - What the parts of the C++ lowering share -------------===//
//
// TULowering holds what is known about the whole translation unit (which
// definitions are lowered and under which FnId, the in-TU classes, the
// overriders of each virtual method, the catalog); FunctionLowering turns
// one definition's CFG into one engine::Function. Expression lowering
// (LowerExpr.cpp) and call classification (Callees.cpp) are members of
// FunctionLowering, split by concern.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_CXX_LOWER_LOWERIMPL_H
#define TETHER_CXX_LOWER_LOWERIMPL_H

#include "engine/Builder.h"
#include "lower/Lower.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include <optional>

namespace tether::cxx::lower {

using engine::NoVar;
using engine::VarId;

class TULowering {
public:
  TULowering(clang::ASTContext &Ctx, const CompiledCatalog &Cat, LoweredTU &Out)
      : Ctx(Ctx), Cat(Cat), Out(Out) {}

  void run();

  engine::SrcLoc loc(clang::SourceLocation L);
  /// The in-TU class of a record (also through one pointer or reference),
  /// or -1.
  engine::ClassId classOf(clang::QualType T);
  /// The in-tree class of the elements of a standard sequence of T
  /// (`std::vector<Layer *>`, `std::array<std::shared_ptr<Layer>, N>`), or -1.
  engine::ClassId elementClassOf(clang::QualType T);
  engine::ClassId classOf(const clang::CXXRecordDecl *RD);
  /// The class a member refers to when the member holds a reference its
  /// object was handed (Ir.h, Inst::Class on a Read), else -1: a reference
  /// member, or a pointer or std::shared_ptr member that some constructor
  /// initialises, or some method assigns, from a parameter. Such an object
  /// may be shared by every holder (the context every layer is given).
  engine::ClassId handedInClass(const clang::FieldDecl *Fld);
  /// The lowered function of a definition, or -1.
  engine::FnId fnOf(const clang::FunctionDecl *FD) const;
  /// Every lowered function a call of M may reach: M's definition and, for
  /// a virtual call, each in-TU override.
  std::vector<engine::FnId> targetsOf(const clang::FunctionDecl *M,
                                      bool Virtual) const;
  bool inSystemHeader(clang::SourceLocation L) const;
  /// Function::Link of a definition: its mangled name when other
  /// translation units can call it, else empty.
  std::string linkName(const clang::FunctionDecl *FD);

  clang::ASTContext &Ctx;
  const CompiledCatalog &Cat;
  LoweredTU &Out;

private:
  void collect();
  void nameFunctions();
  void indexOverrides();
  /// Program::Bindings: what the TU binds into Python (Bindings.cpp).
  void findBindings();

  llvm::StringMap<uint32_t> FileIds;
  llvm::DenseMap<const clang::CXXMethodDecl *, std::vector<engine::FnId>>
      Overriders;
  std::vector<std::unique_ptr<clang::CFG>> Cfgs;
  std::unique_ptr<clang::ASTNameGenerator> Mangler;
  llvm::DenseMap<const clang::FieldDecl *, engine::ClassId> Handed;
};

/// The value an expression evaluated to: a variable, or a place not read
/// yet (its read is emitted when a value is needed; a store or a container
/// method uses the place itself).
struct Val {
  VarId V = NoVar;
  bool HasPlace = false;
  engine::PlaceRef P;
  bool MayBeAbsent = false; ///< a `find` result
  bool Iterator = false;    ///< an iterator into P's container
  bool Truth = false;       ///< V is a truth value (Test / Not)
  /// P is a member holding a reference its object was handed to an
  /// instance of this class (TULowering::handedInClass): the read says so.
  engine::ClassId Handed = -1;
};

class FunctionLowering {
public:
  FunctionLowering(TULowering &TU, const clang::FunctionDecl *FD,
                   const clang::CFG &G, engine::Function &F);
  void run();

private:
  // LowerFunction.cpp: blocks, elements, lifetimes, terminators.
  void params();
  void lowerBlock(const clang::CFGBlock *B);
  void element(const clang::CFGElement &E);
  void terminate(const clang::CFGBlock *B);
  uint32_t blockFor(const clang::CFGBlock *B);
  void declare(const clang::VarDecl *V, const clang::Stmt *S);
  bool bindPairMember(const clang::VarDecl *V);
  void lifetimeEnds(const clang::VarDecl *V, const clang::Stmt *Trigger);
  void initializer(const clang::CXXCtorInitializer *I);
  void indexMemberTemps();
  void flushKills();
  void indexConditionals();

  // LowerExpr.cpp: one expression whose operands are lowered already.
  void expr(const clang::Expr *E);
  void declRef(const clang::DeclRefExpr *E);
  void memberBinding(const clang::DeclRefExpr *E, const clang::BindingDecl *BD);
  void member(const clang::MemberExpr *E);
  void unary(const clang::UnaryOperator *E);
  void binary(const clang::BinaryOperator *E);
  void assign(const clang::Expr *E, const clang::Expr *L, const clang::Expr *R);
  /// X stored into the lvalue L: a place's store, or a local's copy.
  void storeTo(const clang::Expr *L, VarId X, clang::SourceLocation At);
  void compare(const clang::Expr *E, const clang::Expr *L, const clang::Expr *R,
               bool Equal, bool Ordering);
  void construct(const clang::CXXConstructExpr *E);
  void closure(const clang::LambdaExpr *L);
  void aggregate(const clang::InitListExpr *IL, const clang::CXXRecordDecl *RD);
  /// A fresh object or container made at At (Alloc of kind K, class C).
  VarId fresh(const clang::Expr *At, engine::AllocKind K,
              engine::ClassId C = -1, llvm::StringRef Name = "");
  /// Base's element, or field Name (spelled Spelling), takes X's value.
  void storeElement(VarId Base, VarId X, clang::SourceLocation At);
  void storeField(VarId Base, llvm::StringRef Name, llvm::StringRef Spelling,
                  VarId X, clang::SourceLocation At);
  bool inLambda() const;

  // Callees.cpp: what a call means.
  void call(const clang::CallExpr *E);
  void callBody(const clang::CallExpr *E);
  std::optional<FixIt> dropConversion(const clang::CallExpr *E);
  bool catalogCall(const clang::CallExpr *E, const clang::FunctionDecl *FD);
  bool rawMemoryCall(const clang::CallExpr *E, llvm::StringRef Name);
  bool containerCall(const clang::CallExpr *E, const clang::CXXMethodDecl *M,
                     const clang::Expr *Obj);
  bool tensorMethod(const clang::CallExpr *E, const clang::CXXMethodDecl *M,
                    const clang::Expr *Obj);
  /// A call of in-TU definitions: Result (when given) gets its value.
  void userCall(const clang::Expr *Result, clang::SourceLocation Loc,
                const clang::FunctionDecl *FD, VarId Recv,
                llvm::ArrayRef<const clang::Expr *> Args,
                llvm::ArrayRef<engine::FnId> Targets);
  void externalCall(const clang::CallExpr *E, const clang::FunctionDecl *FD,
                    const clang::Expr *Obj,
                    llvm::ArrayRef<const clang::Expr *> Args);
  /// A lambda of this TU that A hands to library code (directly, or as
  /// the std::function a parameter converts it to) may run there: its body
  /// is called at the call, on what the closure captured.
  void handedClosure(const clang::CallExpr *E, const clang::Expr *A);
  void unknownCall(const clang::CallExpr *E,
                   llvm::ArrayRef<const clang::Expr *> Args);
  std::optional<VarId> blobConversion(const clang::CallExpr *E,
                                      const clang::FunctionDecl *FD);
  void alloc(const clang::Expr *E, engine::AllocKind K,
             llvm::ArrayRef<const clang::Expr *> SizeArgs);

  // Values.
  Val *find(const clang::Expr *E);
  VarId value(const clang::Expr *E);
  VarId truth(const clang::Expr *E);
  void set(const clang::Expr *E, VarId V, bool Truth = false);
  void setPlace(const clang::Expr *E, engine::PlaceRef P,
                bool MayBeAbsent = false, bool Iterator = false);
  void alias(const clang::Expr *E, const clang::Expr *Of);
  VarId temp(const clang::Expr *At, engine::Op K);
  engine::Inst &emit(engine::Op K, clang::SourceLocation L);
  engine::PlaceRef element(const clang::Expr *Container,
                           const clang::Expr *Key);
  std::string keySpelling(const clang::Expr *Key);
  std::string spelling(const clang::Expr *E);
  /// The name a value is bound to becomes a workspace when it matches the
  /// catalog: retag the allocation that made V.
  void bindName(VarId V, llvm::StringRef Name);
  /// Whether an allocation's size argument is one caller's (a parameter as
  /// passed, or from the object's own fields).
  bool sizedByCaller(const clang::Expr *E) const;
  /// Stored at the slot of key KeyE, the allocation ValueE made (directly
  /// or through the local it initialised) holds the size its key asks for
  /// when every parameter that sized it is part of the key
  /// (`m.emplace(n, at::empty({n, 4096}))`): no longer sized by the caller.
  void keyCarriesSize(const clang::Expr *ValueE, const clang::Expr *KeyE);
  /// Whether a container key names a layer (`layer_id`, `this->layer_idx`).
  bool namesLayer(const clang::Expr *Key) const;

  TULowering &TU;
  const CompiledCatalog &Cat;
  clang::ASTContext &Ctx;
  const clang::FunctionDecl *FD;
  const clang::CFG &G;
  engine::Function &F;
  engine::FunctionBuilder B;
  VarId This = NoVar;
  bool IsProducer = false; ///< a workspace producer: its allocations are
                           ///< workspaces
  llvm::DenseMap<const clang::CFGBlock *, uint32_t> Blocks;
  llvm::DenseMap<const clang::Expr *, Val> Vals;
  llvm::DenseMap<const clang::VarDecl *, VarId> Vars;
  /// Locals bound to a place: references, iterators, range-for variables.
  llvm::DenseMap<const clang::VarDecl *, Val> Bound;
  /// RAII regions opened by a local (capture guards, stream guards).
  llvm::DenseMap<const clang::VarDecl *, engine::RegionKind> Guards;
  /// The allocation instruction (block, index) that defined a temporary.
  llvm::DenseMap<VarId, std::pair<uint32_t, uint32_t>> AllocOf;
  /// Each arm of a `?:` and the variable both arms copy into.
  llvm::DenseMap<const clang::Expr *, VarId> ArmOf;
  llvm::DenseMap<const clang::Expr *, VarId> Joins;
  llvm::DenseSet<const clang::CXXBindTemporaryExpr *> MemberTemps;
  /// Temporaries whose full expression ended, killed before what follows.
  std::vector<std::pair<VarId, clang::SourceLocation>> PendingKills;
  VarId RetVal = NoVar;
  clang::SourceLocation RetLoc;
  bool Throws = false;
};

/// Strip what does not change which value an expression denotes.
const clang::Expr *peelValue(const clang::Expr *E);
/// peelValue and implicit conversions too: for recognising a shape
/// (`m.end()`, an enumerator, `t.data_ptr()`), never for finding a value.
const clang::Expr *strip(const clang::Expr *E);
bool isTensorType(clang::QualType T);
bool isOptionalType(clang::QualType T);
bool isPair(clang::QualType T);
/// A standard container (map, vector, ...) whose elements are places.
bool isContainerType(clang::QualType T);
/// A standard map (its elements are keyed).
bool isMap(clang::QualType T);
/// Whether the type is or holds a tensor (a container of them).
bool holdsTensor(clang::QualType T, unsigned Depth = 0);
std::string qualifiedName(const clang::NamedDecl *D);
/// The global a static local is: "function::name".
std::string staticLocalName(const clang::VarDecl *V);

} // namespace tether::cxx::lower

#endif
