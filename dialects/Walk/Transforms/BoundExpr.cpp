//===- BoundExpr.cpp - Symbolic bounds of walk weights --------------------===//
#include "dialects/Walk/Transforms/BoundExpr.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>

using namespace sluice::walk::bounds;
using K = Expr::Kind;

namespace {

ExprRef make(K kind, std::vector<ExprRef> ops) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->ops = std::move(ops);
  return e;
}

} // namespace

//===----------------------------------------------------------------------===//
// Constructors
//===----------------------------------------------------------------------===//

ExprRef sluice::walk::bounds::constant(double v) {
  auto e = std::make_shared<Expr>();
  e->kind = K::Const;
  e->value = v == 0 ? 0.0 : v; // no -0
  return e;
}

ExprRef sluice::walk::bounds::param(int64_t index, std::string name) {
  auto e = std::make_shared<Expr>();
  e->kind = K::Param;
  e->index = index;
  e->name = std::move(name);
  return e;
}

ExprRef sluice::walk::bounds::leaf(K kind) { return make(kind, {}); }

ExprRef sluice::walk::bounds::labelMass(bool max, int64_t listIndex,
                                        std::string listName,
                                        bool edgeLabels) {
  auto e = std::make_shared<Expr>();
  e->kind = max ? K::LabelMassMax : K::LabelMassMin;
  e->index = listIndex;
  e->name = std::move(listName);
  e->value = edgeLabels ? 1.0 : 0.0;
  return e;
}

std::optional<double> sluice::walk::bounds::constValue(const ExprRef &e) {
  if (e && e->kind == K::Const)
    return e->value;
  return std::nullopt;
}

ExprRef sluice::walk::bounds::add(const ExprRef &a, const ExprRef &b) {
  auto x = constValue(a), y = constValue(b);
  if (x && y)
    return constant(*x + *y);
  if (x && *x == 0)
    return b;
  if (y && *y == 0)
    return a;
  return make(K::Add, {a, b});
}

ExprRef sluice::walk::bounds::sub(const ExprRef &a, const ExprRef &b) {
  auto x = constValue(a), y = constValue(b);
  if (x && y)
    return constant(*x - *y);
  if (y && *y == 0)
    return a;
  if (equal(a, b))
    return constant(0);
  return make(K::Sub, {a, b});
}

ExprRef sluice::walk::bounds::mul(const ExprRef &a, const ExprRef &b) {
  auto x = constValue(a), y = constValue(b);
  if (x && y)
    return constant(*x * *y);
  if ((x && *x == 0) || (y && *y == 0))
    return constant(0);
  if (x && *x == 1)
    return b;
  if (y && *y == 1)
    return a;
  // x * (c / x) = c for x > 0 (degree(cur) * (1 / degree(cur))).
  for (auto [u, v] : {std::pair{a, b}, std::pair{b, a}})
    if (v->kind == K::Div && equal(v->ops[1], u) && sign(u) == Sign::Pos)
      return v->ops[0];
  // Keep constants on the right: w * 2.
  if (x)
    return make(K::Mul, {b, a});
  return make(K::Mul, {a, b});
}

ExprRef sluice::walk::bounds::div(const ExprRef &a, const ExprRef &b) {
  auto x = constValue(a), y = constValue(b);
  if (x && y && *y != 0)
    return constant(*x / *y);
  if (x && *x == 0)
    return constant(0);
  if (y && *y == 1)
    return a;
  if (equal(a, b))
    return constant(1);
  return make(K::Div, {a, b});
}

ExprRef sluice::walk::bounds::neg(const ExprRef &a) {
  if (auto x = constValue(a))
    return constant(-*x);
  if (a->kind == K::Neg)
    return a->ops[0];
  return make(K::Neg, {a});
}

ExprRef sluice::walk::bounds::unary(K kind, const ExprRef &a) {
  if (auto x = constValue(a)) {
    double r = kind == K::Exp ? std::exp(*x)
               : kind == K::Log ? std::log(*x)
                                : std::sqrt(*x);
    if (std::isfinite(r))
      return constant(r);
  }
  return make(kind, {a});
}

/// Splits `term` into factor * coefficient for factoring min/max:
/// X * c, c * X, X / c (coefficient 1 / c) and X (coefficient 1).
static std::vector<std::pair<ExprRef, ExprRef>> factorings(const ExprRef &t) {
  std::vector<std::pair<ExprRef, ExprRef>> out;
  if (t->kind == K::Mul) {
    out.push_back({t->ops[0], t->ops[1]});
    out.push_back({t->ops[1], t->ops[0]});
  } else if (t->kind == K::Div) {
    out.push_back({t->ops[0], div(constant(1), t->ops[1])});
  }
  out.push_back({t, constant(1)});
  return out;
}

static ExprRef minMax(K kind, std::vector<ExprRef> terms) {
  bool isMax = kind == K::Max;
  // Flatten.
  std::vector<ExprRef> flat;
  for (const ExprRef &t : terms) {
    if (t->kind == kind)
      flat.insert(flat.end(), t->ops.begin(), t->ops.end());
    else
      flat.push_back(t);
  }
  // Merge constants, deduplicate.
  std::optional<double> c;
  std::vector<ExprRef> rest;
  for (const ExprRef &t : flat) {
    if (auto v = constValue(t)) {
      c = c ? (isMax ? std::max(*c, *v) : std::min(*c, *v)) : *v;
      continue;
    }
    if (std::none_of(rest.begin(), rest.end(),
                     [&](const ExprRef &r) { return equal(r, t); }))
      rest.push_back(t);
  }
  // Against a constant c: under a max, terms <= 0 are dropped when c >= 0,
  // and c is dropped when c <= 0 and some term is >= 0; under a min,
  // symmetrically.
  if (c && !rest.empty()) {
    auto nonPos = [](const ExprRef &t) {
      Sign x = sign(t);
      return x == Sign::Neg || x == Sign::NonPos;
    };
    auto nonNeg = [](const ExprRef &t) { return nonNegative(sign(t)); };
    std::vector<ExprRef> kept;
    bool dropC = false;
    for (const ExprRef &t : rest) {
      bool below = nonPos(t) && *c >= 0, above = nonNeg(t) && *c <= 0;
      if (isMax ? below : above)
        continue; // the constant wins against this term
      if (isMax ? above : below)
        dropC = true; // this term wins against the constant
      kept.push_back(t);
    }
    rest = kept;
    if (dropC && !rest.empty())
      c.reset();
  }
  // max(t, t + s) = t + s for s >= 0; min(t, t + s) = t + s for s <= 0.
  std::vector<ExprRef> kept;
  for (const ExprRef &t : rest) {
    bool dominated = false;
    for (const ExprRef &u : rest) {
      if (u->kind != K::Add)
        continue;
      for (int k = 0; k < 2 && !dominated; ++k) {
        if (!equal(u->ops[k], t))
          continue;
        Sign s = sign(u->ops[1 - k]);
        dominated = isMax ? nonNegative(s)
                          : (s == Sign::Neg || s == Sign::NonPos);
      }
    }
    if (!dominated)
      kept.push_back(t);
  }
  rest = kept;
  if (c)
    rest.push_back(constant(*c));
  if (rest.empty())
    return constant(0);
  if (rest.size() == 1)
    return rest[0];
  // A common non-negative factor: max(X / p, X, X / q) = X * max(1/p, 1, 1/q).
  for (const auto &[x, unused] : factorings(rest[0])) {
    (void)unused;
    if (constValue(x) || !nonNegative(sign(x)))
      continue;
    std::vector<ExprRef> coeffs;
    for (const ExprRef &t : rest) {
      for (const auto &[y, coeff] : factorings(t))
        if (equal(x, y)) {
          coeffs.push_back(coeff);
          break;
        }
    }
    if (coeffs.size() == rest.size())
      return mul(x, minMax(kind, coeffs));
  }
  return make(kind, rest);
}

ExprRef sluice::walk::bounds::min(std::vector<ExprRef> terms) {
  return minMax(K::Min, std::move(terms));
}
ExprRef sluice::walk::bounds::max(std::vector<ExprRef> terms) {
  return minMax(K::Max, std::move(terms));
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

bool sluice::walk::bounds::equal(const ExprRef &a, const ExprRef &b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->ops.size() != b->ops.size())
    return false;
  if (a->kind == K::Const && a->value != b->value)
    return false;
  if ((a->kind == K::Param || a->kind == K::LabelMassMin ||
       a->kind == K::LabelMassMax) &&
      (a->index != b->index || a->value != b->value))
    return false;
  for (size_t i = 0; i < a->ops.size(); ++i)
    if (!equal(a->ops[i], b->ops[i]))
      return false;
  return true;
}

bool sluice::walk::bounds::parameterOnly(const ExprRef &e) {
  switch (e->kind) {
  case K::WeightMax:
  case K::WeightMin:
  case K::WeightSum:
  case K::Degree:
  case K::LabelMassMin:
  case K::LabelMassMax:
    return false;
  default:
    for (const ExprRef &o : e->ops)
      if (!parameterOnly(o))
        return false;
    return true;
  }
}

static Sign negate(Sign s) {
  switch (s) {
  case Sign::Pos:
    return Sign::Neg;
  case Sign::NonNeg:
    return Sign::NonPos;
  case Sign::Neg:
    return Sign::Pos;
  case Sign::NonPos:
    return Sign::NonNeg;
  case Sign::Unknown:
    return Sign::Unknown;
  }
  return Sign::Unknown;
}

static Sign product(Sign a, Sign b) {
  auto pos = [](Sign s) { return s == Sign::Pos; };
  auto nonneg = [](Sign s) { return nonNegative(s); };
  auto negs = [](Sign s) { return s == Sign::Neg || s == Sign::NonPos; };
  if (pos(a) && pos(b))
    return Sign::Pos;
  if (a == Sign::Neg && b == Sign::Neg)
    return Sign::Pos;
  if (nonneg(a) && nonneg(b))
    return Sign::NonNeg;
  if (negs(a) && negs(b))
    return Sign::NonNeg;
  if ((nonneg(a) && negs(b)) || (negs(a) && nonneg(b)))
    return (pos(a) || a == Sign::Neg) && (pos(b) || b == Sign::Neg)
               ? Sign::Neg
               : Sign::NonPos;
  return Sign::Unknown;
}

Sign sluice::walk::bounds::sign(const ExprRef &e,
                                const std::vector<Assumption> &assumptions) {
  for (const Assumption &a : assumptions)
    if (equal(a.expr, e))
      return a.strict ? Sign::Pos : Sign::NonNeg;
  auto s = [&](size_t i) { return sign(e->ops[i], assumptions); };
  switch (e->kind) {
  case K::Const:
    return e->value > 0 ? Sign::Pos : e->value < 0 ? Sign::Neg : Sign::NonNeg;
  case K::Param:
    return Sign::Unknown;
  case K::WeightMax:
  case K::WeightMin:
  case K::WeightSum:
  case K::Degree:
  case K::NumVertices:
  case K::NumEdges:
    return Sign::Pos;
  case K::LabelMassMin:
  case K::LabelMassMax:
    return Sign::NonNeg; // no edge may carry the label
  case K::Add: {
    Sign a = s(0), b = s(1);
    if (nonNegative(a) && nonNegative(b))
      return a == Sign::Pos || b == Sign::Pos ? Sign::Pos : Sign::NonNeg;
    Sign na = negate(a), nb = negate(b);
    if (nonNegative(na) && nonNegative(nb))
      return na == Sign::Pos || nb == Sign::Pos ? Sign::Neg : Sign::NonPos;
    return Sign::Unknown;
  }
  case K::Sub: {
    auto x = std::make_shared<Expr>();
    x->kind = K::Add;
    x->ops = {e->ops[0], neg(e->ops[1])};
    return sign(x, assumptions);
  }
  case K::Mul:
    return product(s(0), s(1));
  case K::Div: {
    Sign b = s(1);
    if (b != Sign::Pos && b != Sign::Neg)
      return Sign::Unknown; // the divisor may be zero
    return product(s(0), b);
  }
  case K::Min: {
    bool allPos = true, allNonNeg = true, anyNeg = false, anyNonPos = false;
    for (size_t i = 0; i < e->ops.size(); ++i) {
      Sign x = s(i);
      allPos &= x == Sign::Pos;
      allNonNeg &= nonNegative(x);
      anyNeg |= x == Sign::Neg;
      anyNonPos |= x == Sign::NonPos || x == Sign::Neg ||
                   constValue(e->ops[i]) == 0.0;
    }
    return allPos      ? Sign::Pos
           : allNonNeg ? Sign::NonNeg
           : anyNeg    ? Sign::Neg
           : anyNonPos ? Sign::NonPos
                       : Sign::Unknown;
  }
  case K::Max: {
    bool anyPos = false, anyNonNeg = false, allNeg = true, allNonPos = true;
    for (size_t i = 0; i < e->ops.size(); ++i) {
      Sign x = s(i);
      anyPos |= x == Sign::Pos;
      anyNonNeg |= nonNegative(x);
      allNeg &= x == Sign::Neg;
      allNonPos &= x == Sign::Neg || x == Sign::NonPos;
    }
    return anyPos      ? Sign::Pos
           : anyNonNeg ? Sign::NonNeg
           : allNeg    ? Sign::Neg
           : allNonPos ? Sign::NonPos
                       : Sign::Unknown;
  }
  case K::Neg:
    return negate(s(0));
  case K::Exp:
    return Sign::Pos;
  case K::Sqrt:
    return Sign::NonNeg;
  case K::Log:
    return Sign::Unknown;
  }
  return Sign::Unknown;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static int precedence(const ExprRef &e) {
  switch (e->kind) {
  case K::Add:
  case K::Sub:
    return 1;
  case K::Mul:
  case K::Div:
    return 2;
  case K::Neg:
    return 3;
  default:
    return 4;
  }
}

static void printTo(const ExprRef &e, llvm::raw_ostream &os) {
  auto operand = [&](const ExprRef &o, int minPrec) {
    bool parens = precedence(o) < minPrec;
    if (parens)
      os << "(";
    printTo(o, os);
    if (parens)
      os << ")";
  };
  switch (e->kind) {
  case K::Const:
    os << llvm::format("%g", e->value);
    return;
  case K::Param:
    os << e->name;
    return;
  case K::WeightMax:
    os << "weight_max(cur)";
    return;
  case K::WeightMin:
    os << "weight_min(cur)";
    return;
  case K::WeightSum:
    os << "weight_sum(cur)";
    return;
  case K::Degree:
    os << "degree(cur)";
    return;
  case K::NumVertices:
    os << "num_vertices";
    return;
  case K::NumEdges:
    os << "num_edges";
    return;
  case K::LabelMassMin:
  case K::LabelMassMax:
    os << (e->kind == K::LabelMassMin ? "min" : "max") << "(l in " << e->name
       << ": weight_sum(cur, " << (e->value ? "edge_label" : "label(next)")
       << " == l))";
    return;
  case K::Add:
  case K::Sub:
    operand(e->ops[0], 1);
    os << (e->kind == K::Add ? " + " : " - ");
    operand(e->ops[1], 2);
    return;
  case K::Mul:
  case K::Div:
    operand(e->ops[0], 2);
    os << (e->kind == K::Mul ? " * " : " / ");
    operand(e->ops[1], 3);
    return;
  case K::Neg:
    os << "-";
    operand(e->ops[0], 3);
    return;
  case K::Min:
  case K::Max:
  case K::Exp:
  case K::Log:
  case K::Sqrt: {
    os << (e->kind == K::Min   ? "min("
           : e->kind == K::Max ? "max("
           : e->kind == K::Exp ? "exp("
           : e->kind == K::Log ? "log("
                               : "sqrt(");
    for (size_t i = 0; i < e->ops.size(); ++i) {
      if (i)
        os << ", ";
      printTo(e->ops[i], os);
    }
    os << ")";
    return;
  }
  }
}

std::string sluice::walk::bounds::print(const ExprRef &e) {
  if (!e)
    return "inf";
  std::string s;
  llvm::raw_string_ostream os(s);
  printTo(e, os);
  return s;
}

std::string sluice::walk::bounds::print(const Assumption &a) {
  return print(a.expr) + (a.strict ? " > 0" : " >= 0");
}

//===----------------------------------------------------------------------===//
// Interval arithmetic
//===----------------------------------------------------------------------===//

Interval sluice::walk::bounds::iadd(const Interval &a, const Interval &b) {
  Interval r;
  if (a.lo && b.lo)
    r.lo = add(a.lo, b.lo);
  if (a.hi && b.hi)
    r.hi = add(a.hi, b.hi);
  return r;
}

Interval sluice::walk::bounds::isub(const Interval &a, const Interval &b) {
  Interval r;
  if (a.lo && b.hi)
    r.lo = sub(a.lo, b.hi);
  if (a.hi && b.lo)
    r.hi = sub(a.hi, b.lo);
  return r;
}

Interval sluice::walk::bounds::ineg(const Interval &a) {
  Interval r;
  if (a.hi)
    r.lo = neg(a.hi);
  if (a.lo)
    r.hi = neg(a.lo);
  return r;
}

static bool finite(const Interval &a) { return a.lo && a.hi; }

/// The sign of `e`, assuming it non-negative (or positive when `strict`)
/// when it is parameter-only and its sign is unknown and `assume` is set.
static Sign signOrAssume(const ExprRef &e, std::vector<Assumption> &as,
                         bool strict, bool assume) {
  Sign s = sign(e, as);
  if (s != Sign::Unknown || !assume || !parameterOnly(e))
    return s;
  as.push_back({e, strict});
  return strict ? Sign::Pos : Sign::NonNeg;
}

Interval sluice::walk::bounds::imul(const Interval &a, const Interval &b,
                                    std::vector<Assumption> &as) {
  bool aPoint = a.lo && a.hi && equal(a.lo, a.hi);
  bool bPoint = b.lo && b.hi && equal(b.lo, b.hi);
  if (a.lo && b.lo && nonNegative(sign(a.lo, as)) &&
      nonNegative(sign(b.lo, as))) {
    Interval r;
    r.lo = mul(a.lo, b.lo);
    if (a.hi && b.hi)
      r.hi = mul(a.hi, b.hi);
    return r;
  }
  // A point factor x: [x * lo, x * hi] for x >= 0.
  for (auto [p, o, isPoint] : {std::tuple{&a, &b, aPoint},
                               std::tuple{&b, &a, bPoint}}) {
    if (!isPoint)
      continue;
    Sign s = signOrAssume(p->lo, as, /*strict=*/false, !finite(*o));
    if (nonNegative(s)) {
      Interval r;
      if (o->lo)
        r.lo = mul(o->lo, p->lo);
      if (o->hi)
        r.hi = mul(o->hi, p->lo);
      return r;
    }
  }
  if (!finite(a) || !finite(b))
    return Interval::unbounded();
  std::vector<ExprRef> corners = {mul(a.lo, b.lo), mul(a.lo, b.hi),
                                  mul(a.hi, b.lo), mul(a.hi, b.hi)};
  return {min(corners), max(corners)};
}

Interval sluice::walk::bounds::idiv(const Interval &a, const Interval &b,
                                    std::vector<Assumption> &as) {
  if (!b.lo)
    return Interval::unbounded();
  Sign bs = signOrAssume(b.lo, as, /*strict=*/true, /*assume=*/true);
  if (bs != Sign::Pos)
    return Interval::unbounded();
  bool aNonNeg = a.lo && nonNegative(sign(a.lo, as));
  Interval r;
  if (b.hi) {
    if (aNonNeg) {
      r.lo = div(a.lo, b.hi);
      if (a.hi)
        r.hi = div(a.hi, b.lo);
      return r;
    }
    if (!finite(a))
      return Interval::unbounded();
    r.lo = min({div(a.lo, b.lo), div(a.lo, b.hi)});
    r.hi = max({div(a.hi, b.lo), div(a.hi, b.hi)});
    return r;
  }
  // b in [lo, +inf): a / b lies between 0 and a / lo.
  if (aNonNeg)
    r.lo = constant(0);
  else if (a.lo)
    r.lo = min({div(a.lo, b.lo), constant(0)});
  if (a.hi)
    r.hi = max({div(a.hi, b.lo), constant(0)});
  return r;
}

Interval sluice::walk::bounds::iunion(const Interval &a, const Interval &b) {
  Interval r;
  if (a.lo && b.lo)
    r.lo = min({a.lo, b.lo});
  if (a.hi && b.hi)
    r.hi = max({a.hi, b.hi});
  return r;
}

Interval sluice::walk::bounds::imin(const Interval &a, const Interval &b) {
  Interval r;
  if (a.lo && b.lo)
    r.lo = min({a.lo, b.lo});
  if (a.hi && b.hi)
    r.hi = min({a.hi, b.hi});
  else
    r.hi = a.hi ? a.hi : b.hi;
  return r;
}

Interval sluice::walk::bounds::imax(const Interval &a, const Interval &b) {
  Interval r;
  if (a.hi && b.hi)
    r.hi = max({a.hi, b.hi});
  if (a.lo && b.lo)
    r.lo = max({a.lo, b.lo});
  else
    r.lo = a.lo ? a.lo : b.lo;
  return r;
}

Interval sluice::walk::bounds::iunary(K kind, const Interval &a) {
  Interval r;
  switch (kind) {
  case K::Exp:
    r.lo = a.lo ? unary(K::Exp, a.lo) : constant(0);
    if (a.hi)
      r.hi = unary(K::Exp, a.hi);
    return r;
  case K::Sqrt:
    r.lo = a.lo && nonNegative(sign(a.lo)) ? unary(K::Sqrt, a.lo)
                                           : constant(0);
    if (a.hi)
      r.hi = unary(K::Sqrt, max({a.hi, constant(0)}));
    return r;
  case K::Log:
    if (a.lo && sign(a.lo) == Sign::Pos)
      r.lo = unary(K::Log, a.lo);
    if (a.hi && sign(a.hi) == Sign::Pos)
      r.hi = unary(K::Log, a.hi);
    return r;
  default:
    return Interval::unbounded();
  }
}

Interval sluice::walk::bounds::iabs(const Interval &a,
                                    const std::vector<Assumption> &as) {
  if (a.lo && nonNegative(sign(a.lo, as)))
    return a;
  Interval r;
  r.lo = constant(0);
  if (finite(a))
    r.hi = max({neg(a.lo), a.hi});
  return r;
}
