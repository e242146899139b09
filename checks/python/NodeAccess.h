//===- NodeAccess.h - Null-safe node access for the walks -----------------===//
//
// The lowering and Package read trees the validation pass (Validate.h)
// accepted, but a shape the grammar allows and no check foresaw must not
// crash them: tree-sitter's accessors dereference a null node (a field that
// is not there). These wrappers answer "nothing" for a null node instead:
// no kind, no text, no children, no fields.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_NODEACCESS_H
#define TETHER_PYTHON_NODEACCESS_H

#include "Syntax.h"

namespace tether::python {

/// The kind a null node reports: no symbol of the grammar (0 is the end
/// token, which symbols looked up by a name the grammar lacks also get;
/// 0xFFFF is ERROR).
inline constexpr TSSymbol NoKind = 0xFFFE;

inline TSSymbol kindOf(SyntaxNode N) {
  return isNull(N) ? NoKind : symbolOf(N);
}

inline SyntaxNode fieldOf(SyntaxNode N, TSFieldId F) {
  return isNull(N) ? SyntaxNode{} : childByField(N, F);
}

inline std::string_view textOf(SyntaxNode N, std::string_view Src) {
  return isNull(N) ? std::string_view() : nodeText(N, Src);
}

template <typename Fn> void eachChild(SyntaxNode N, bool NamedOnly, Fn &&F) {
  if (!isNull(N))
    forEachChild(N, NamedOnly, F);
}

inline SyntaxNode firstChildOf(SyntaxNode N) {
  return isNull(N) ? SyntaxNode{} : firstNamedChild(N);
}

inline std::string keyOf(SyntaxNode N, std::string_view Src) {
  return isNull(N) ? std::string() : exprKey(N, Src);
}

} // namespace tether::python

#endif
