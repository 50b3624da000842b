//===- SemaDisdp.cpp - The DisDP option of train jobs ---------------------===//
//
// `parameter_server: "<device>"` on a `train` job plans it as DisDP's
// disaggregated ZeRO-3 (docs/parallel.md, "DisDP"). The option schema
// already checks that it is a non-empty string and only on transformer
// train jobs; here: not with Optimus-CC's `compress` (which compresses
// 3D-parallel traffic). Whether the device exists, is a cpu and reaches a
// reducing switch is the planner's check (the topology is flat only then).
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

using namespace sluice;
using namespace sluice::sema;

void Sema::checkParameterServer(const std::map<std::string, ast::Expr *> &given,
                                ast::Expr *ps) {
  auto c = given.find("compress");
  if (!ps || c == given.end() || !c->second)
    return;
  if (const Value *on = valueOf(c->second))
    if (on->kind == Value::Kind::Bool && on->b)
      error(ps->range)
          << "option 'parameter_server' does not combine with 'compress: "
             "true' (DisDP plans ZeRO-3 data parallelism; Optimus-CC "
             "compresses 3D-parallel traffic)";
}
