//===- SemaBuiltins.h - The built-in functions of expressions ---*- C++ -*-===//
//
// Private to Sema: what SemaExpr.cpp asks of the built-in functions
// (SemaBuiltins.cpp). isBuiltinFunction is declared in SemaInternal.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_SEMABUILTINS_H
#define SLUICE_FRONTENDS_SLUICE_SEMABUILTINS_H

#include "frontends/sluice/SemaInternal.h"

#include <string>
#include <vector>

namespace sluice::sema {

/// Whether the graph's built-ins (num_vertices, degree, ...) may be used
/// where `s` checks now (walks and algorithms).
bool graphBuiltinsAllowed(const Sema &s);
/// Types a call of a built-in function (reporting a call of anything else):
/// arity, argument types and kinds, where it may be used, the graph options
/// it needs; folds constant arguments.
ast::Type checkBuiltinCall(Sema &s, ast::CallExpr &call);

} // namespace sluice::sema

#endif // SLUICE_FRONTENDS_SLUICE_SEMABUILTINS_H
