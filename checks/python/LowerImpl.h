//===- LowerImpl.h - What the lowering's files share ----------------------===//
//
// TypeTable: the in-tree classes the code states for attributes, globals,
// parameters and returns (annotations, constructors assigned in __init__),
// computed once per package before any function is lowered.
// FnLowerer: one function's lowering; its statements are in LowerStmt.cpp,
// its expressions in LowerExpr.cpp, its calls in LowerCall.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_LOWERIMPL_H
#define TETHER_PYTHON_LOWERIMPL_H

#include "Lower.h"
#include "NodeAccess.h"
#include "engine/Builder.h"

#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <memory>
#include <string>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tether::python {

/// Grammar symbols and fields only the lowering needs.
struct LowerSyntax {
  TSSymbol BinaryOp, UnaryOp, GenericType, UnionType, MemberType, TypeParam,
      Float, Ellipsis, Nonlocal, KeywordSeparator, PositionalSeparator,
      ConcatenatedString, Pass, Set;
  TSFieldId FReturnType;
  static const LowerSyntax &get();
};

/// What the code states about a value's class: an instance of Cls, or a
/// container whose elements are instances of Elem.
struct TypeInfo {
  engine::ClassId Cls = -1;
  engine::ClassId Elem = -1;
  /// An attribute set from a method's parameter (`self.ctx = ctx`): it
  /// holds what the object was handed, which other objects may have been
  /// handed too (Ir.h, Inst::Class on a Read).
  bool Handed = false;
  bool empty() const { return Cls < 0 && Elem < 0; }
};

/// What TypeTable reads of a package: each class's attributes, the
/// module globals, each function's return and classmethod flag. It depends
/// only on the package's interface (packageInterface, PackageCache.h), so a
/// language server keeps it while an edit leaves the interface unchanged.
struct PackageTypes {
  std::vector<std::unordered_map<std::string, TypeInfo>> Attrs;
  std::unordered_map<std::string, TypeInfo> Globals;
  std::vector<TypeInfo> Returns;
  std::vector<char> ClassMethods; // not vector<bool>: written in parallel
};

class TypeTable {
public:
  /// Known: what an earlier build() read of a package with the same
  /// interface; null to read P.
  explicit TypeTable(Package &P, std::shared_ptr<PackageTypes> Known = nullptr)
      : P(P), Handed(Known != nullptr),
        T(Known ? std::move(Known) : std::make_shared<PackageTypes>()) {}
  /// Read every class body, __init__ and module top level once, on Pool's
  /// threads when given; nothing when the table was handed what it holds.
  void build(llvm::ThreadPoolInterface *Pool = nullptr);
  /// The class an annotation names: `C`, `"C"`, `Optional[C]`, `C | None`,
  /// elements of `list[C]`, values of `dict[K, C]`.
  TypeInfo annotation(int Mod, SyntaxNode Ann,
                      const std::unordered_map<std::string, std::string>
                          *LocalImports = nullptr) const;
  /// Attribute Name of an instance of C (or of its bases).
  TypeInfo attr(engine::ClassId C, const std::string &Name) const;
  TypeInfo global(const std::string &Qual) const;
  TypeInfo returns(engine::FnId F) const;
  /// A method decorated @classmethod (its parameter 0 is the class).
  bool isClassMethod(engine::FnId F) const;
  const std::shared_ptr<PackageTypes> &facts() const { return T; }

private:
  void readClass(engine::ClassId C);
  void readModule(int Mod,
                  std::vector<std::pair<std::string, TypeInfo>> &Found) const;
  engine::ClassId classOf(int Mod, const std::string &Dotted,
                          const std::unordered_map<std::string, std::string>
                              *LocalImports) const;
  Package &P;
  bool Handed;
  std::shared_ptr<PackageTypes> T;
};

/// The parameters of a definition as Function::Params lists them (one entry
/// each, `*args`, `**kwargs` and a bare `*` included), with their spelling
/// and annotation.
struct ParamDecl {
  std::string Name; ///< As spelled ("x", "*args", "*").
  SyntaxNode Type{};    ///< The annotation, or a null node.
};
std::vector<ParamDecl> paramDecls(SyntaxNode Params, std::string_view Src);
/// Whether a decorated_definition carries the decorator Name.
bool hasDecorator(SyntaxNode Decorated, std::string_view Src, llvm::StringRef Name);

/// A callable held in a variable: an in-tree function, maybe bound to a
/// receiver (a bound method) or to leading arguments (functools.partial).
struct FnRef {
  engine::FnId Fn = -1;
  engine::VarId Self = engine::NoVar; ///< Bound receiver, for parameter 0.
  bool SkipFirst = false; ///< A classmethod: parameter 0 is the class.
  std::vector<engine::VarId> Pos;
  std::vector<std::pair<std::string, engine::VarId>> Kw;
};

/// What the lowering knows of a variable (never the engine's business).
struct VarInfo {
  llvm::SmallVector<engine::ClassId, 1> Cls;  ///< Instance of.
  llvm::SmallVector<engine::ClassId, 1> Elem; ///< Elements are instances of.
  std::vector<FnRef> Fns;                     ///< Callables it holds.
  /// Callables its elements hold (`for f in (self.a, self.b): f(x)`).
  std::vector<FnRef> ElemFns;
  /// A capture context manager kept to be entered by hand
  /// (`cm = torch.cuda.graph(g)`, then `cm.__enter__()`), and the graph it
  /// captures into.
  bool CaptureContext = false;
  /// A list or tuple literal: its elements' values, in order.
  std::vector<engine::VarId> LiteralElems;
  engine::VarId ContextGraph = engine::NoVar;
  llvm::SmallVector<engine::ClassId, 1> ClassObj; ///< Classes it holds.
  bool Truth = false; ///< Made by a Test / Not: a truth value.
  /// Made by a tensor factory or a workspace producer (device memory): its
  /// in-place methods (`copy_`, `add_`, torch's trailing underscore) are
  /// operations on it.
  bool Tensor = false;
  /// A view of a container (`d.items()`, `enumerate(xs)`): iterating it
  /// visits ViewOf's elements.
  enum ViewT : uint8_t { NoView, Values, Items, Keys, Enumerate } View = NoView;
  engine::VarId ViewOf = engine::NoVar; ///< The container a view is of.
};

/// Add R to a small set of callables (at most 8, as a value's classes).
inline void addCallable(std::vector<FnRef> &Fns, FnRef R) {
  if (Fns.size() < 8 &&
      std::none_of(Fns.begin(), Fns.end(), [&](const FnRef &X) {
        return X.Fn == R.Fn && X.Self == R.Self && X.Pos == R.Pos;
      }))
    Fns.push_back(std::move(R));
}

/// Append X to a small set (a value is rarely of more classes than 8).
template <typename T, typename U> void addUnique(T &Vec, const U &X) {
  if (Vec.size() < 8 && std::find(Vec.begin(), Vec.end(), X) == Vec.end())
    Vec.push_back(X);
}

/// An argument of a call as written.
struct CallArg {
  SyntaxNode Whole{}; ///< With its keyword.
  SyntaxNode Value{};
  std::string Keyword;
  bool Splat = false;
  engine::VarId V = engine::NoVar;
};

/// The first argument is written plainly (no keyword, no splat).
inline bool firstPlain(const std::vector<CallArg> &As) {
  return !As.empty() && !As[0].Splat && As[0].Keyword.empty();
}
/// Exactly N arguments, each written plainly.
inline bool positionalOnly(const std::vector<CallArg> &As, size_t N) {
  return As.size() == N && std::all_of(As.begin(), As.end(), [](const CallArg &A) {
           return !A.Splat && A.Keyword.empty();
         });
}

class FnLowerer {
public:
  FnLowerer(Package &P, const TypeTable &Types, engine::Program &Prog,
            engine::FnId Fn);
  void run();

private:
  // --- statements (LowerStmt.cpp) -------------------------------------
  void block(SyntaxNode Block);
  void stmt(SyntaxNode S, SyntaxNode Next);
  void ifChain(SyntaxNode If);
  void forLoop(SyntaxNode S);
  void whileLoop(SyntaxNode S);
  void tryStmt(SyntaxNode S);
  void withStmt(SyntaxNode S, SyntaxNode Next);
  void returnStmt(SyntaxNode S);
  void raiseStmt(SyntaxNode S);
  void deleteStmt(SyntaxNode S);
  void importStmt(SyntaxNode S);
  void matchStmt(SyntaxNode S);
  /// Close the regions opened since depth Depth (a return, raise, break or
  /// continue leaves them).
  void leaveRegions(size_t Depth, engine::SrcLoc At);

  // --- expressions (LowerExpr.cpp) ------------------------------------
  engine::VarId expr(SyntaxNode N);
  engine::VarId exprKind(SyntaxNode N);
  engine::VarId name(SyntaxNode N);
  engine::VarId attribute(SyntaxNode N);
  engine::VarId subscript(SyntaxNode N);
  engine::VarId literal(SyntaxNode N);
  engine::VarId dictionary(SyntaxNode N);
  engine::VarId comprehension(SyntaxNode N);
  engine::VarId conditional(SyntaxNode N);
  engine::VarId boolValue(SyntaxNode N);
  /// Branch to T when N holds, else to F (short-circuit `and`/`or`/`not`).
  void cond(SyntaxNode N, uint32_t T, uint32_t F);
  /// cond() for a statement's condition: its branches are at the whole
  /// condition (`not ctx.capturing`), where today's notes put a predicate
  /// region's begin.
  void condition(SyntaxNode N, uint32_t T, uint32_t F);
  engine::SrcLoc branchLoc(SyntaxNode N) const;
  /// A Test for a comparison it can read, or NoVar.
  engine::VarId comparisonTest(SyntaxNode N, bool &Negated);
  void assign(SyntaxNode Target, engine::VarId V);
  void bindName(const std::string &Name, engine::VarId V, SyntaxNode At);
  /// Bind a loop / comprehension target to an element of Iter's value.
  void bindElement(SyntaxNode Target, engine::VarId Iter, SyntaxNode At);
  std::string constKey(SyntaxNode Sub) const;
  /// Whether a key names a layer (`layer_id`, `self.layer_name`).
  bool namesLayer(SyntaxNode Key) const;
  engine::VarId globalRead(const std::string &Qual, SyntaxNode At);
  /// Whether a proper prefix of Dotted names a module global
  /// (`mod.CACHE.get`): the rest is read through that object.
  bool throughGlobal(const std::string &Dotted);
  engine::VarId local(const std::string &Name);
  void copyTo(engine::VarId Dst, engine::VarId From, SyntaxNode At);
  /// A new variable holding what From holds (a view, an alias).
  engine::VarId aliasOf(engine::VarId From, SyntaxNode At);
  /// Branch on a value's truth: a Test's, or `x` is not None.
  void branchOn(engine::VarId V, SyntaxNode N, uint32_t T, uint32_t F);
  void throwOut(engine::SrcLoc At);

  // --- calls (LowerCall.cpp) ------------------------------------------
  engine::VarId call(SyntaxNode N);
  engine::VarId callOne(SyntaxNode N, engine::VarId CalleeV);
  /// A call at N of F with As (callOne's, or a mapper's function on its
  /// tree).
  engine::VarId callWith(SyntaxNode N, SyntaxNode F, std::vector<CallArg> As,
                         engine::VarId CalleeV);
  std::vector<CallArg> callArgs(SyntaxNode Args);
  bool containerMethod(const std::string &Method, engine::VarId Recv,
                       SyntaxNode RecvNode, std::vector<CallArg> &As, SyntaxNode N,
                       engine::VarId &Out);
  engine::VarId weakRef(std::vector<CallArg> &As, SyntaxNode N,
                        const std::string &Spelled);
  engine::VarId construct(engine::ClassId C, std::vector<CallArg> &As,
                          SyntaxNode N, const std::string &Spelled);
  engine::Inst &emitCall(engine::VarId Dst, const std::vector<FnRef> &Refs,
                         std::vector<CallArg> &As, SyntaxNode N,
                         const std::string &Spelled);
  /// A call of C++ functions bound into Python (engine/Link.h), or NoVar
  /// when Qual names none.
  engine::VarId boundCall(const std::string &Qual, std::vector<CallArg> &As,
                          SyntaxNode N, const std::string &Spelled);
  engine::CallTarget target(const FnRef &R, const std::vector<CallArg> &As);
  engine::VarId externalOp(std::vector<CallArg> &As, SyntaxNode N,
                           const std::string &Spelled, bool NoMemory);
  engine::VarId inPlaceOp(engine::VarId Recv, std::vector<CallArg> &As,
                          SyntaxNode N, const std::string &Spelled);
  /// A `Use` of each argument that is not a literal.
  void useArgs(const std::vector<CallArg> &As, const std::string &Spelled);
  /// A number, string, True, False or None: no memory.
  bool isLiteral(SyntaxNode Value) const;
  void lowerArgs(std::vector<CallArg> &As);

  // --- helpers ---------------------------------------------------------
  engine::SrcLoc loc(SyntaxNode N) const;
  engine::SrcLoc endLoc(SyntaxNode N) const;
  engine::VarId temp() { return newVar(std::string()); }
  engine::VarId newVar(std::string Name);
  engine::VarId constant(SyntaxNode At);
  /// A truth value: Test K of A (NoVar for a place test, whose place the
  /// caller sets) at N, named Name in messages; its variable into Dst.
  engine::Inst &test(engine::TestKind K, engine::VarId A, SyntaxNode N,
                     engine::VarId &Dst, llvm::StringRef Name = "");
  engine::Inst &emit(engine::Op K, SyntaxNode At) { return B.emit(K, loc(At)); }
  VarInfo &info(engine::VarId V) { return Info[size_t(V)]; }
  void merge(engine::VarId Into, engine::VarId From);
  void addClass(engine::VarId V, TypeInfo T);
  std::string text(SyntaxNode N) const { return std::string(textOf(N, Src)); }
  std::string key(SyntaxNode N) const { return keyOf(N, Src); }
  Resolved resolve(const std::string &Dotted) {
    return P.resolve(Mod, Dotted, LocalImports.empty() ? nullptr : &LocalImports);
  }
  bool isLocalName(const std::string &N) const {
    return Scoped.count(N) ||
           (!FnIsModule && LocalNames.count(N) && !GlobalDecl.count(N));
  }
  bool isSelf(SyntaxNode N) const;
  void collectLocals(SyntaxNode Body);
  void collectTargets(SyntaxNode T);
  bool workspaceName(const std::string &Name) const;
  /// When V was just allocated as a tensor, an allocation bound to a
  /// workspace name (docs/engine.md) makes it a workspace.
  void markWorkspace(engine::VarId V, const std::string &BoundTo);

  Package &P;
  const TypeTable &Types;
  engine::Program &Prog;
  engine::FnId FnIdx;
  const Function &Fn;
  engine::Function &Out;
  engine::FunctionBuilder B;
  int Mod;
  Module &M;
  std::string_view Src;
  const CompiledCatalog &Cat;
  const Grammar &G = Grammar::get();
  const LowerSyntax &L = LowerSyntax::get();
  bool FnIsModule;

  std::vector<VarInfo> Info;
  std::unordered_map<std::string, engine::VarId> Locals;
  std::unordered_set<std::string> LocalNames, GlobalDecl, ParamNames;
  /// Names a comprehension binds, local even in a module body.
  std::unordered_set<std::string> Scoped;
  /// Module body: what the code stored in each global, for calls on it.
  std::unordered_map<std::string, engine::VarId> GlobalVals;
  std::unordered_map<std::string, std::string> LocalImports;
  engine::VarId SelfVar = engine::NoVar;
  /// The last Alloc Tensor per variable (block, index), for markWorkspace.
  std::unordered_map<engine::VarId, std::pair<uint32_t, size_t>> LastAlloc;
  /// What sized an Alloc with SizedByCaller: the parameters passed as its
  /// sizes, and whether a field of self did.
  struct Sizing {
    std::set<std::string> Params;
    bool BySelf = false;
  };
  std::map<std::pair<uint32_t, size_t>, Sizing> AllocSizing;
  /// The plain arguments of a call of in-tree code, by its result.
  std::unordered_map<engine::VarId, llvm::SmallVector<engine::VarId, 2>>
      InTreeCallArgs;
  /// A slot keyed by every parameter that sized the memory stored there
  /// (`ws[n] = torch.empty(n, 4096)`) holds the size its key asks for.
  void keyCarriesSize(engine::VarId V, SyntaxNode Subscript);

  /// Open regions, innermost last: what a return or raise closes.
  struct OpenRegion {
    engine::RegionKind Kind = engine::RegionKind::Capture;
    std::string Key;
    /// `with obj:` over an object of an in-tree class: no region of the
    /// catalog's (Kind and Key unused), but obj's `__exit__` (these methods,
    /// bound to obj) runs wherever the block is left.
    std::vector<FnRef> Exit;
    SyntaxNode Item{};
  };
  /// The in-tree methods Method of Obj's classes, bound to Obj (a
  /// classmethod to its class).
  std::vector<FnRef> methodsOf(engine::VarId Obj, const char *Method);
  std::vector<OpenRegion> Regions;
  struct Loop {
    uint32_t Continue, Break;
    size_t RegionDepth;
  };
  std::vector<Loop> Loops;
  /// Enclosing try bodies: where a raise inside goes.
  struct Handler {
    uint32_t Dispatch;
    size_t RegionDepth;
  };
  std::vector<Handler> Handlers;
  /// The statement condition being lowered (see condition()).
  engine::SrcLoc CondAt;
};

} // namespace tether::python

#endif
