//===- Glpk.h - Shared GLPK set-up for the flow LPs ------------*- C++ -*-===//
//
// Private to SluiceFlow: ownership of a glp_prob and the one simplex
// configuration every flow LP uses (no presolve, tight tolerances, scaling,
// GLPK's terminal output silenced), so the LPs cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_GLPK_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_GLPK_H

#include <glpk.h>
#include <memory>

namespace sluice::flow::detail {

struct GlpkProbDeleter {
  void operator()(glp_prob *p) const { glp_delete_prob(p); }
};
using GlpkProb = std::unique_ptr<glp_prob, GlpkProbDeleter>;

/// The simplex parameters every flow LP uses: quiet, no presolve, bound and
/// reduced-cost tolerances 1e-9.
glp_smcp glpkSimplexParams();

/// Scales `lp` and runs the primal simplex, then (with `exact`) GLPK's
/// rational simplex from that basis. Returns GLPK's code (0 on success).
int runGlpkSimplex(glp_prob *lp, bool exact);

} // namespace sluice::flow::detail

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_GLPK_H
