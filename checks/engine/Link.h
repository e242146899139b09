//===- Link.h - Functions of one program that another calls by name ------===//
//
// A C++ extension binds some of its functions into Python (pybind11's
// `m.def`, torch's TORCH_LIBRARY ops). Each translation unit is lowered on
// its own and says which of its functions it binds, under which Python
// name (Program::Bindings). link() gathers, from every unit of one run, the
// bound functions and everything they may call into one library program;
// a Python package appends that library to its own program (append()) and
// lowers a call of a bound name as a call of the bound functions. The one
// engine then reasons through the C++ body like through any callee, and
// its notes point into it.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_LINK_H
#define TETHER_ENGINE_LINK_H

#include "engine/Ir.h"
#include <map>
#include <string>
#include <vector>

namespace tether::engine {

/// One function a bound name stands for, in Library::Code.
struct BoundFunction {
  FnId Fn = -1;
  uint32_t FirstArg = 0; ///< The caller's first argument goes here.
};

struct Library {
  Program Code;
  /// Bound name ("torch.ops.ns.op", "_C.f") to the functions it stands
  /// for: one op may have a kernel per dispatch key.
  std::map<std::string, std::vector<BoundFunction>> ByName;
  bool empty() const { return ByName.empty(); }
  /// The functions a call spelled Qual (fully qualified, as the caller's
  /// frontend resolved it) stands for, or null. `torch.ops.ns.op` and its
  /// overloads (`torch.ops.ns.op.default`) name the op; any other dotted
  /// name names a bound function by its module's and its own name
  /// (`pkg._C.f` and `_C.f` are `_C.f`).
  const std::vector<BoundFunction> *lookup(const std::string &Qual) const;
};

/// The bound functions of Units and all they may call. A binding whose
/// function a unit only declares is found by Function::Link in the unit
/// that defines it; one no unit defines is left out.
Library link(const std::vector<Program> &Units);

/// Every function of Units in one program: a call of a function one unit
/// only declares (Inst::Link) becomes a call of the unit that defines it,
/// one definition is kept per link name, and classes of one name are one
/// class; a Local class or global is its unit's own. The C++ run analyses
/// its translation units together this way.
Program linkAll(const std::vector<Program> &Units);

/// Append From's files, classes and functions to Into, renumbering what
/// refers to them. Returns the id From's function 0 has in Into.
FnId append(Program &Into, const Program &From);

} // namespace tether::engine

#endif
