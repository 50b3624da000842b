//===- Glpk.cpp - Shared GLPK set-up for the flow LPs ---------------------===//
#include "compiler/Analysis/Flow/Glpk.h"

glp_smcp sluice::flow::detail::glpkSimplexParams() {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;
  parm.tol_bnd = 1e-9;
  parm.tol_dj = 1e-9;
  return parm;
}

int sluice::flow::detail::runGlpkSimplex(glp_prob *lp, bool exact) {
  glp_smcp parm = glpkSimplexParams();
  // glp_scale_prob reports through GLPK's terminal hook, which msg_lev does
  // not cover; silence it and restore the caller's setting.
  int termOut = glp_term_out(GLP_OFF);
  glp_scale_prob(lp, GLP_SF_AUTO);
  int ret = glp_simplex(lp, &parm);
  if (ret == 0 && exact)
    ret = glp_exact(lp, &parm);
  glp_term_out(termOut);
  return ret;
}
