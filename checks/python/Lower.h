//===- Lower.h - The Python frontend's lowering into the engine's IR ------===//
//
// Every function of an indexed package (and every module body) becomes an
// engine::Function (engine/Ir.h; what it contains is docs/engine.md, "What a
// lowering emits"). The lowering decides what names mean -- which call
// reaches which in-tree function, which call is a weak-ref primitive, which
// `with` opens a capture -- and nothing else: no lifetime, capture or join
// reasoning happens here.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_LOWER_H
#define TETHER_PYTHON_LOWER_H

#include "Model.h"
#include "engine/Ir.h"
#include <functional>
#include <memory>

namespace llvm {
class ThreadPoolInterface;
}

namespace tether::python {

/// Lower the whole package. FnId i is P.Functions[i] and ClassId i is
/// P.Classes[i]; Program::Files[i] is P.Modules[i]->Path. Needs the package
/// indexed (indexModule + adopt) with resolveBases() done; reads each
/// module's tree and catalog, changes nothing. With a pool, functions are
/// lowered in parallel (each into its own slot: the result is the same).
/// Reuse, when given, may fill a function's slot from an earlier lowering of
/// the same text (PackageCache.h) and return true; that function is then
/// not lowered again.
/// Types, when given, holds what the lowering read of the package's types
/// (LowerImpl.h's PackageTypes): when it is not null on entry, it must come
/// from a lowering of a package with the same interface (packageInterface,
/// PackageCache.h), and it is used instead of reading the package again.
/// Done, when given, is called once for each module with functions, as soon
/// as the last of them is lowered (on the thread that lowered it): the
/// lowering reads that module's tree no more, and the caller may free it
/// (the trees are a third of a run's memory at the end of the lowering).
using ReuseLowered = std::function<bool(engine::FnId, engine::Function &)>;
using ModuleLowered = std::function<void(int Mod)>;
struct PackageTypes;
engine::Program lowerPackage(Package &P,
                             llvm::ThreadPoolInterface *Pool = nullptr,
                             const ReuseLowered &Reuse = nullptr,
                             std::shared_ptr<PackageTypes> *Types = nullptr,
                             const ModuleLowered &Done = nullptr);

} // namespace tether::python

#endif
