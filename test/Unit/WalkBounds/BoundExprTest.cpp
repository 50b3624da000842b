//===- BoundExprTest.cpp - Symbolic bounds of walk weights ----------------===//
//
// The simplifier and sign rules on known cases, and the interval arithmetic
// against brute force: for random parameter values and per-vertex
// aggregates, and random inputs inside the leaf intervals, the concrete
// value of each weight expression must lie within the evaluated symbolic
// bounds whenever the recorded assumptions hold.
//
//===----------------------------------------------------------------------===//
#include "dialects/Walk/Transforms/BoundExpr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace sluice::walk::bounds;
using EK = Expr::Kind;

namespace {

/// Values of the leaves for one vertex and one parameter setting.
struct Env {
  double wmin = 1, wmax = 1, wsum = 1, degree = 1, numVertices = 10,
         numEdges = 20, massMin = 0, massMax = 1;
  std::vector<double> params;
};

/// An independent evaluator of bound expressions.
double eval(const ExprRef &e, const Env &env) {
  auto op = [&](size_t i) { return eval(e->ops[i], env); };
  switch (e->kind) {
  case EK::Const:
    return e->value;
  case EK::Param:
    return env.params.at(e->index);
  case EK::WeightMax:
    return env.wmax;
  case EK::WeightMin:
    return env.wmin;
  case EK::WeightSum:
    return env.wsum;
  case EK::Degree:
    return env.degree;
  case EK::NumVertices:
    return env.numVertices;
  case EK::NumEdges:
    return env.numEdges;
  case EK::LabelMassMin:
    return env.massMin;
  case EK::LabelMassMax:
    return env.massMax;
  case EK::Add:
    return op(0) + op(1);
  case EK::Sub:
    return op(0) - op(1);
  case EK::Mul:
    return op(0) * op(1);
  case EK::Div:
    return op(0) / op(1);
  case EK::Neg:
    return -op(0);
  case EK::Exp:
    return std::exp(op(0));
  case EK::Log:
    return std::log(op(0));
  case EK::Sqrt:
    return std::sqrt(op(0));
  case EK::Min: {
    double r = op(0);
    for (size_t i = 1; i < e->ops.size(); ++i)
      r = std::min(r, op(i));
    return r;
  }
  case EK::Max: {
    double r = op(0);
    for (size_t i = 1; i < e->ops.size(); ++i)
      r = std::max(r, op(i));
    return r;
  }
  }
  return NAN;
}

bool holds(const std::vector<Assumption> &as, const Env &env) {
  for (const Assumption &a : as) {
    double v = eval(a.expr, env);
    if (a.strict ? !(v > 0) : !(v >= 0))
      return false;
  }
  return true;
}

ExprRef P(int i) { return param(i, i == 0 ? "p" : i == 1 ? "q" : "a"); }
Interval W() { return {leaf(EK::WeightMin), leaf(EK::WeightMax)}; }
Interval point(const ExprRef &e) { return Interval::point(e); }
Interval c(double v) { return point(constant(v)); }

/// One brute-force case: `build` makes the symbolic interval (recording
/// assumptions); `value` computes the concrete weight from the environment
/// and the random engine (for w in [wmin, wmax], branches, random()...).
struct Case {
  const char *name;
  std::function<Interval(std::vector<Assumption> &)> build;
  std::function<double(const Env &, std::mt19937 &)> value;
};

double uniform(std::mt19937 &rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

void checkCase(const Case &k) {
  std::vector<Assumption> as;
  Interval iv = k.build(as);
  std::mt19937 rng(12345);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Env env;
    env.wmin = uniform(rng, 0.1, 2);
    env.wmax = env.wmin + uniform(rng, 0, 3);
    env.degree = std::uniform_int_distribution<int>(1, 50)(rng);
    env.wsum = env.degree * env.wmin; // not used by these cases
    env.params = {uniform(rng, -2, 3), uniform(rng, -2, 3),
                  uniform(rng, -2, 3)};
    if (!holds(as, env))
      continue;
    double lo = iv.lo ? eval(iv.lo, env) : -INFINITY;
    double hi = iv.hi ? eval(iv.hi, env) : INFINITY;
    for (int s = 0; s < 50; ++s) {
      double v = k.value(env, rng);
      if (std::isnan(v))
        continue;
      ++checked;
      double eps = 1e-9 * (1 + std::fabs(v));
      ASSERT_LE(lo, v + eps) << k.name << ": lower bound " << print(iv.lo)
                             << " = " << lo << " above " << v;
      ASSERT_GE(hi, v - eps) << k.name << ": upper bound " << print(iv.hi)
                             << " = " << hi << " below " << v;
    }
  }
  EXPECT_GT(checked, 1000) << k.name << ": too few samples satisfied the "
                           << "assumptions";
}

} // namespace

TEST(BoundExpr, FactorsCommonPositiveTermOutOfMax) {
  ExprRef x = leaf(EK::WeightMax);
  ExprRef m = max({div(x, P(0)), x, div(x, P(1))});
  EXPECT_EQ(print(m), "weight_max(cur) * max(1 / p, 1 / q, 1)");
}

TEST(BoundExpr, MergesConstantsAndDuplicates) {
  EXPECT_EQ(print(max({P(0), constant(1), P(0), constant(3)})), "max(p, 3)");
  EXPECT_EQ(print(min({leaf(EK::Degree), constant(0)})), "0");
  EXPECT_EQ(print(max({leaf(EK::Degree), constant(0)})), "degree(cur)");
  EXPECT_EQ(print(add(mul(P(0), constant(1)), constant(0))), "p");
  EXPECT_EQ(print(div(sub(constant(1), P(2)), leaf(EK::Degree))),
            "(1 - a) / degree(cur)");
}

TEST(BoundExpr, DropsDominatedTerms) {
  ExprRef t = div(P(0), leaf(EK::Degree));
  // max(t, t + max(a, 0)) = t + max(a, 0).
  ExprRef s = max({P(2), constant(0)});
  EXPECT_EQ(print(max({t, add(t, s)})), "p / degree(cur) + max(a, 0)");
  ExprRef n = min({P(2), constant(0)});
  EXPECT_EQ(print(min({t, add(t, n)})), "p / degree(cur) + min(a, 0)");
}

TEST(BoundExpr, Signs) {
  EXPECT_EQ(sign(leaf(EK::WeightMin)), Sign::Pos);
  EXPECT_EQ(sign(P(0)), Sign::Unknown);
  EXPECT_EQ(sign(P(0), {{P(0), true}}), Sign::Pos);
  EXPECT_EQ(sign(div(leaf(EK::WeightMax), P(0)), {{P(0), true}}), Sign::Pos);
  EXPECT_EQ(sign(div(leaf(EK::WeightMax), P(0))), Sign::Unknown);
  EXPECT_EQ(sign(sub(constant(1), leaf(EK::Degree))), Sign::Unknown);
  EXPECT_EQ(sign(max({P(0), constant(0)})), Sign::NonNeg);
  EXPECT_EQ(sign(min({P(0), constant(0)})), Sign::NonPos);
}

TEST(BoundExpr, DivisionByParameterAssumesItPositive) {
  std::vector<Assumption> as;
  Interval r = idiv(W(), point(P(0)), as);
  ASSERT_EQ(as.size(), 1u);
  EXPECT_EQ(print(as[0]), "p > 0");
  EXPECT_EQ(print(r.lo), "weight_min(cur) / p");
  EXPECT_EQ(print(r.hi), "weight_max(cur) / p");
}

TEST(BoundExpr, DivisionByPossiblyZeroIsUnbounded) {
  std::vector<Assumption> as;
  Interval r = idiv(W(), {constant(0), constant(1)}, as); // w / random()
  EXPECT_FALSE(r.hi);
  EXPECT_TRUE(as.empty());
}

TEST(BoundExpr, BruteForce) {
  std::vector<Case> cases = {
      {"node2vec",
       [](std::vector<Assumption> &as) {
         return iunion(idiv(W(), point(P(0)), as),
                       iunion(W(), idiv(W(), point(P(1)), as)));
       },
       [](const Env &e, std::mt19937 &rng) {
         double w = uniform(rng, e.wmin, e.wmax);
         int b = std::uniform_int_distribution<int>(0, 2)(rng);
         return b == 0 ? w / e.params[0] : b == 1 ? w : w / e.params[1];
       }},
      {"ppr2",
       [](std::vector<Assumption> &as) {
         Interval first =
             idiv(isub(c(1), point(P(2))), point(leaf(EK::Degree)), as);
         Interval degPrev{constant(1), nullptr};
         Interval second = idiv(point(P(2)), degPrev, as);
         return iunion(iadd(first, second), first);
       },
       [](const Env &e, std::mt19937 &rng) {
         double a = e.params[2];
         double degPrev = std::uniform_int_distribution<int>(1, 1000)(rng);
         double first = (1 - a) / e.degree;
         return std::uniform_int_distribution<int>(0, 1)(rng)
                    ? first + a / degPrev
                    : first;
       }},
      {"products of unknown signs",
       [](std::vector<Assumption> &as) {
         return imul(isub(point(P(0)), c(1)), isub(W(), point(P(1))), as);
       },
       [](const Env &e, std::mt19937 &rng) {
         double w = uniform(rng, e.wmin, e.wmax);
         return (e.params[0] - 1) * (w - e.params[1]);
       }},
      {"random factor and monotone functions",
       [](std::vector<Assumption> &as) {
         Interval r{constant(0), constant(1)};
         Interval x = imul(W(), r, as);
         return iadd(iunary(EK::Exp, x),
                     iadd(iunary(EK::Sqrt, W()),
                          iabs(isub(point(P(0)), W()), as)));
       },
       [](const Env &e, std::mt19937 &rng) {
         double w = uniform(rng, e.wmin, e.wmax);
         double r = uniform(rng, 0, 1);
         double w2 = uniform(rng, e.wmin, e.wmax);
         double w3 = uniform(rng, e.wmin, e.wmax);
         return std::exp(w * r) + std::sqrt(w2) + std::fabs(e.params[0] - w3);
       }},
      {"min, max and negation",
       [](std::vector<Assumption> &as) {
         return imax(imin(W(), point(P(0))), ineg(point(P(1))));
       },
       [](const Env &e, std::mt19937 &rng) {
         double w = uniform(rng, e.wmin, e.wmax);
         return std::max(std::min(w, e.params[0]), -e.params[1]);
       }},
      {"scaled by a parameter with an unbounded factor",
       [](std::vector<Assumption> &as) {
         Interval steps{constant(0), nullptr};
         return imul(point(P(0)), iadd(W(), steps), as);
       },
       [](const Env &e, std::mt19937 &rng) {
         double w = uniform(rng, e.wmin, e.wmax);
         double step = std::uniform_int_distribution<int>(0, 100)(rng);
         return e.params[0] * (w + step);
       }},
  };
  for (const Case &k : cases)
    checkCase(k);
}
