//===- BoundExpr.h - Symbolic bounds of walk weights ------------*- C++ -*-===//
//
// The IR-independent half of walk-bounds: symbolic expressions over the
// walk's parameters and the per-vertex aggregates of the current vertex
// (weight_max/min/sum(cur), degree(cur)), intervals of such expressions, and
// the sign reasoning that interval arithmetic needs. The walk-bounds pass
// maps the ops of a weight region onto these and materialises the results
// as regions of walk.walk.
//
// Facts the sign reasoning relies on (documented in docs/dialects/walk.md):
// per-vertex aggregates of the current vertex are positive (a vertex the
// walk samples from has an out-edge, and stored edge weights are taken to be
// positive); parameters have no known sign unless an assumption says so.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_TRANSFORMS_BOUNDEXPR_H
#define SLUICE_DIALECTS_WALK_TRANSFORMS_BOUNDEXPR_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice::walk::bounds {

struct Expr;
/// Expressions are immutable and shared. A null ExprRef in an Interval
/// means "no bound" (-inf for a lower end, +inf for an upper end).
using ExprRef = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind {
    Const,
    Param,       ///< parameter `index` named `name`
    WeightMax,   ///< weight_max(cur)
    WeightMin,   ///< weight_min(cur)
    WeightSum,   ///< weight_sum(cur)
    Degree,      ///< degree(cur)
    NumVertices,
    NumEdges,
    /// min / max over the labels l of list parameter `index` (`name`) of
    /// the sum of the weights of cur's out-edges labelled l: by the target
    /// vertex's label, or (value == 1) by the edge's label. >= 0.
    LabelMassMin,
    LabelMassMax,
    Add, Sub, Mul, Div, Min, Max, Neg, Exp, Log, Sqrt,
  };
  Kind kind = Kind::Const;
  double value = 0;   ///< Const
  int64_t index = 0;  ///< Param
  std::string name;   ///< Param
  std::vector<ExprRef> ops;
};

enum class Sign { Unknown, Pos, NonNeg, Neg, NonPos };

/// Conditions on parameter-only expressions under which a bound holds
/// (`expr > 0`, or `expr >= 0` when not strict).
struct Assumption {
  ExprRef expr;
  bool strict = true;
};

// Constructors; they simplify (constant folding, neutral elements, flat and
// deduplicated min/max, common positive factors out of min/max).
ExprRef constant(double v);
ExprRef param(int64_t index, std::string name);
ExprRef leaf(Expr::Kind kind); ///< WeightMax .. NumEdges
ExprRef labelMass(bool max, int64_t listIndex, std::string listName,
                  bool edgeLabels);
ExprRef add(const ExprRef &a, const ExprRef &b);
ExprRef sub(const ExprRef &a, const ExprRef &b);
ExprRef mul(const ExprRef &a, const ExprRef &b);
ExprRef div(const ExprRef &a, const ExprRef &b);
ExprRef neg(const ExprRef &a);
ExprRef unary(Expr::Kind kind, const ExprRef &a); ///< Exp, Log, Sqrt
ExprRef min(std::vector<ExprRef> terms);
ExprRef max(std::vector<ExprRef> terms);

bool equal(const ExprRef &a, const ExprRef &b);
std::optional<double> constValue(const ExprRef &e);
/// Whether `e` uses only constants, parameters and graph sizes (the same for
/// every vertex: a condition the engine can check once per run).
bool parameterOnly(const ExprRef &e);
/// The sign of `e` given `assumptions`.
Sign sign(const ExprRef &e, const std::vector<Assumption> &assumptions = {});
inline bool nonNegative(Sign s) { return s == Sign::Pos || s == Sign::NonNeg; }

/// "weight_max(cur) * max(1 / p, 1, 1 / q)".
std::string print(const ExprRef &e);
std::string print(const Assumption &a);

/// [lo, hi]; a null end is unbounded.
struct Interval {
  ExprRef lo, hi;
  static Interval point(const ExprRef &e) { return {e, e}; }
  static Interval unbounded() { return {}; }
};

/// Interval arithmetic. Divisions need a divisor whose lower end is
/// positive: when it is a parameter-only expression of unknown sign, an
/// assumption `lo > 0` is added to `assumptions`; otherwise the result is
/// unbounded. Multiplication by a factor of unknown sign whose other
/// operand is unbounded likewise assumes the factor non-negative when it is
/// parameter-only.
Interval iadd(const Interval &a, const Interval &b);
Interval isub(const Interval &a, const Interval &b);
Interval imul(const Interval &a, const Interval &b,
              std::vector<Assumption> &assumptions);
Interval idiv(const Interval &a, const Interval &b,
              std::vector<Assumption> &assumptions);
Interval ineg(const Interval &a);
Interval iunion(const Interval &a, const Interval &b);
Interval imin(const Interval &a, const Interval &b);
Interval imax(const Interval &a, const Interval &b);
/// Monotone functions: exp, sqrt (of the non-negative part), log.
Interval iunary(Expr::Kind kind, const Interval &a);
Interval iabs(const Interval &a, const std::vector<Assumption> &assumptions);

} // namespace sluice::walk::bounds

#endif // SLUICE_DIALECTS_WALK_TRANSFORMS_BOUNDEXPR_H
