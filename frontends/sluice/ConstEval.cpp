//===- ConstEval.cpp - Compile-time evaluation of expressions -------------===//
#include "frontends/sluice/ConstEval.h"

#include "frontends/sluice/Frontend.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace sluice;
using namespace sluice::ast;

ConstValue ConstValue::ofInt(int64_t v) {
  ConstValue c;
  c.kind = Kind::Int;
  c.i = v;
  return c;
}
ConstValue ConstValue::ofFloat(double v) {
  ConstValue c;
  c.kind = Kind::Float;
  c.f = v;
  return c;
}
ConstValue ConstValue::ofBool(bool v) {
  ConstValue c;
  c.kind = Kind::Bool;
  c.b = v;
  return c;
}
ConstValue ConstValue::ofString(std::string v) {
  ConstValue c;
  c.kind = Kind::String;
  c.s = std::move(v);
  return c;
}
ConstValue ConstValue::ofQuantity(double baseValue, Dim dim, std::string unit) {
  if (dim.isNone())
    return ofFloat(baseValue);
  ConstValue c;
  c.kind = Kind::Quantity;
  c.f = baseValue;
  c.dim = dim;
  c.unit = unit.empty() ? chooseDisplayUnit(baseValue, dim) : std::move(unit);
  return c;
}

double ConstValue::inUnit() const {
  if (kind != Kind::Quantity)
    return f;
  if (auto info = lookupUnit(unit))
    return f / info->factor;
  return f;
}

std::optional<double> ConstValue::asNumber() const {
  switch (kind) {
  case Kind::Int:
    return static_cast<double>(i);
  case Kind::Float:
  case Kind::Quantity:
    return f;
  default:
    return std::nullopt;
  }
}

std::string ConstValue::str() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  switch (kind) {
  case Kind::Int:
    os << i;
    break;
  case Kind::Float:
    os << llvm::format("%g", f);
    break;
  case Kind::Bool:
    os << (b ? "true" : "false");
    break;
  case Kind::String:
    os << '"' << s << '"';
    break;
  case Kind::Word:
    os << s;
    break;
  case Kind::Quantity:
    os << llvm::format("%g", inUnit()) << " " << unit;
    break;
  case Kind::List: {
    os << "[";
    for (size_t k = 0; k < list.size(); ++k)
      os << (k ? ", " : "") << list[k].str();
    os << "]";
    break;
  }
  }
  return out;
}

const ConstValue *ConstEnv::lookup(llvm::StringRef name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

namespace {
/// A diagnostic that may be quiet: streaming into it does nothing then
/// (streaming into an inactive mlir::InFlightDiagnostic trips MLIR's
/// "diagnostic not active" assertion in builds with assertions).
class MaybeDiagnostic {
public:
  MaybeDiagnostic() = default;
  explicit MaybeDiagnostic(mlir::InFlightDiagnostic diag)
      : diag(std::move(diag)) {}
  template <typename T> MaybeDiagnostic &operator<<(T &&value) {
    if (diag)
      *diag << std::forward<T>(value);
    return *this;
  }

private:
  std::optional<mlir::InFlightDiagnostic> diag;
};

class Evaluator {
public:
  Evaluator(const ConstEnv &env, mlir::MLIRContext *ctx)
      : env(env), ctx(ctx) {}

  std::optional<ConstValue> eval(const Expr &e);

private:
  MaybeDiagnostic error(const SourceRange &r) {
    if (!ctx)
      return MaybeDiagnostic(); // quiet
    return MaybeDiagnostic(mlir::emitError(toLocation(ctx, r)));
  }
  std::optional<ConstValue> evalBinary(const BinaryExpr &e);
  std::optional<ConstValue> evalCall(const CallExpr &e);

  const ConstEnv &env;
  mlir::MLIRContext *ctx;
};
} // namespace

std::optional<ConstValue> Evaluator::eval(const Expr &e) {
  switch (e.getKind()) {
  case Expr::Kind::IntLit:
    return ConstValue::ofInt(llvm::cast<IntLitExpr>(e).value);
  case Expr::Kind::FloatLit:
    return ConstValue::ofFloat(llvm::cast<FloatLitExpr>(e).value);
  case Expr::Kind::BoolLit:
    return ConstValue::ofBool(llvm::cast<BoolLitExpr>(e).value);
  case Expr::Kind::StringLit:
    return ConstValue::ofString(llvm::cast<StringLitExpr>(e).value);
  case Expr::Kind::QuantityLit: {
    const auto &q = llvm::cast<QuantityLitExpr>(e);
    auto info = lookupUnit(q.unit);
    if (!info) {
      error(e.range) << "unknown unit '" << q.unit << "'";
      return std::nullopt;
    }
    return ConstValue::ofQuantity(q.value * info->factor, info->dim, q.unit);
  }
  case Expr::Kind::Name: {
    const auto &n = llvm::cast<NameExpr>(e);
    if (const ConstValue *v = env.lookup(n.name))
      return *v;
    error(e.range) << "'" << n.name << "' is not a compile-time constant here";
    return std::nullopt;
  }
  case Expr::Kind::Unary: {
    const auto &u = llvm::cast<UnaryExpr>(e);
    auto v = eval(*u.operand);
    if (!v)
      return std::nullopt;
    if (u.op == UnaryOp::Not) {
      if (v->kind != ConstValue::Kind::Bool) {
        error(u.operand->range) << "operand of 'not' must be bool";
        return std::nullopt;
      }
      v->b = !v->b;
      return v;
    }
    if (v->kind == ConstValue::Kind::Int) {
      if (v->i == INT64_MIN) {
        error(e.range) << "integer overflow in negation";
        return std::nullopt;
      }
      v->i = -v->i;
      return v;
    }
    if (v->kind == ConstValue::Kind::Float ||
        v->kind == ConstValue::Kind::Quantity) {
      v->f = -v->f;
      return v;
    }
    error(u.operand->range) << "operand of '-' must be a number";
    return std::nullopt;
  }
  case Expr::Kind::Binary:
    return evalBinary(llvm::cast<BinaryExpr>(e));
  case Expr::Kind::If: {
    const auto &ie = llvm::cast<IfExpr>(e);
    auto c = eval(*ie.cond);
    if (!c)
      return std::nullopt;
    if (c->kind != ConstValue::Kind::Bool) {
      error(ie.cond->range) << "condition must be bool";
      return std::nullopt;
    }
    return eval(c->b ? *ie.thenExpr : *ie.elseExpr);
  }
  case Expr::Kind::List: {
    ConstValue out;
    out.kind = ConstValue::Kind::List;
    for (const ExprPtr &elt : llvm::cast<ListExpr>(e).elements) {
      auto v = eval(*elt);
      if (!v)
        return std::nullopt;
      out.list.push_back(std::move(*v));
    }
    return out;
  }
  case Expr::Kind::Index: {
    const auto &ix = llvm::cast<IndexExpr>(e);
    auto base = eval(*ix.base);
    auto idx = base ? eval(*ix.index) : std::nullopt;
    if (!base || !idx)
      return std::nullopt;
    if (base->kind != ConstValue::Kind::List ||
        idx->kind != ConstValue::Kind::Int) {
      error(e.range) << "only lists can be indexed, by an integer";
      return std::nullopt;
    }
    if (idx->i < 0 || static_cast<uint64_t>(idx->i) >= base->list.size()) {
      error(ix.index->range) << "index " << idx->i << " out of range for a list of "
                             << base->list.size() << " elements";
      return std::nullopt;
    }
    return base->list[static_cast<size_t>(idx->i)];
  }
  case Expr::Kind::Call:
    return evalCall(llvm::cast<CallExpr>(e));
  case Expr::Kind::Member:
    error(e.range) << "member access is not a compile-time constant";
    return std::nullopt;
  }
  llvm_unreachable("unknown expression kind");
}

std::optional<ConstValue> Evaluator::evalCall(const CallExpr &e) {
  // Pure numeric builtins usable in constant expressions.
  auto one = [&](auto fn) -> std::optional<ConstValue> {
    if (e.args.size() != 1 || !e.args[0].name.empty()) {
      error(e.range) << "'" << e.callee << "' takes one argument";
      return std::nullopt;
    }
    auto v = eval(*e.args[0].value);
    if (!v)
      return std::nullopt;
    auto n = v->asNumber();
    if (!n || v->kind == ConstValue::Kind::Quantity) {
      error(e.args[0].value->range)
          << "'" << e.callee << "' expects a plain number";
      return std::nullopt;
    }
    return ConstValue::ofFloat(fn(*n));
  };
  if (e.callee == "sqrt")
    return one([](double x) { return std::sqrt(x); });
  if (e.callee == "log")
    return one([](double x) { return std::log(x); });
  if (e.callee == "exp")
    return one([](double x) { return std::exp(x); });
  if (e.callee == "abs") {
    if (e.args.size() != 1) {
      error(e.range) << "'abs' takes one argument";
      return std::nullopt;
    }
    auto v = eval(*e.args[0].value);
    if (!v)
      return std::nullopt;
    if (v->kind == ConstValue::Kind::Int) {
      if (v->i == INT64_MIN) {
        error(e.range) << "integer overflow in 'abs'";
        return std::nullopt;
      }
      v->i = v->i < 0 ? -v->i : v->i;
      return v;
    }
    if (!v->asNumber()) {
      error(e.args[0].value->range) << "'abs' expects a number";
      return std::nullopt;
    }
    v->f = std::fabs(v->f);
    return v;
  }
  if (e.callee == "size" || e.callee == "empty") {
    if (e.args.size() != 1) {
      error(e.range) << "'" << e.callee << "' takes one list";
      return std::nullopt;
    }
    auto v = eval(*e.args[0].value);
    if (!v)
      return std::nullopt;
    if (v->kind != ConstValue::Kind::List) {
      error(e.args[0].value->range) << "'" << e.callee << "' expects a list";
      return std::nullopt;
    }
    if (e.callee == "empty")
      return ConstValue::ofBool(v->list.empty());
    return ConstValue::ofInt(static_cast<int64_t>(v->list.size()));
  }
  if (e.callee == "min" || e.callee == "max") {
    if (e.args.empty()) {
      error(e.range) << "'" << e.callee << "' needs at least one argument";
      return std::nullopt;
    }
    std::optional<ConstValue> best;
    for (const Arg &a : e.args) {
      auto v = eval(*a.value);
      if (!v)
        return std::nullopt;
      auto x = v->asNumber();
      if (!x || (best && (v->kind != best->kind || v->dim != best->dim))) {
        error(a.value->range) << "'" << e.callee
                              << "' needs numbers of the same type";
        return std::nullopt;
      }
      if (!best || (e.callee == "min" ? *x < *best->asNumber()
                                      : *x > *best->asNumber()))
        best = std::move(v);
    }
    return best;
  }
  error(e.calleeRange) << "'" << e.callee
                       << "' cannot be evaluated at compile time";
  return std::nullopt;
}

std::optional<ConstValue> Evaluator::evalBinary(const BinaryExpr &e) {
  auto l = eval(*e.lhs);
  if (!l)
    return std::nullopt;
  // Short-circuit logic.
  if (e.op == BinaryOp::And || e.op == BinaryOp::Or) {
    if (l->kind != ConstValue::Kind::Bool) {
      error(e.lhs->range) << "operand of '" << spell(e.op) << "' must be bool";
      return std::nullopt;
    }
    if ((e.op == BinaryOp::And && !l->b) || (e.op == BinaryOp::Or && l->b))
      return l;
    auto r = eval(*e.rhs);
    if (r && r->kind != ConstValue::Kind::Bool) {
      error(e.rhs->range) << "operand of '" << spell(e.op) << "' must be bool";
      return std::nullopt;
    }
    return r;
  }
  auto r = eval(*e.rhs);
  if (!r)
    return std::nullopt;
  using K = ConstValue::Kind;

  // Equality on strings, words and bools.
  if ((e.op == BinaryOp::Eq || e.op == BinaryOp::Ne) && l->kind == r->kind &&
      (l->kind == K::String || l->kind == K::Word || l->kind == K::Bool)) {
    bool eq = l->kind == K::Bool ? l->b == r->b : l->s == r->s;
    return ConstValue::ofBool(e.op == BinaryOp::Eq ? eq : !eq);
  }

  // Integer arithmetic stays exact, with overflow checks.
  if (l->kind == K::Int && r->kind == K::Int) {
    int64_t a = l->i, b = r->i, out = 0;
    switch (e.op) {
    case BinaryOp::Add:
      if (llvm::AddOverflow(a, b, out))
        break;
      return ConstValue::ofInt(out);
    case BinaryOp::Sub:
      if (llvm::SubOverflow(a, b, out))
        break;
      return ConstValue::ofInt(out);
    case BinaryOp::Mul:
      if (llvm::MulOverflow(a, b, out))
        break;
      return ConstValue::ofInt(out);
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (b == 0) {
        error(e.rhs->range) << "division by zero";
        return std::nullopt;
      }
      if (a == INT64_MIN && b == -1)
        break;
      return ConstValue::ofInt(e.op == BinaryOp::Div ? a / b : a % b);
    case BinaryOp::Eq:
      return ConstValue::ofBool(a == b);
    case BinaryOp::Ne:
      return ConstValue::ofBool(a != b);
    case BinaryOp::Lt:
      return ConstValue::ofBool(a < b);
    case BinaryOp::Le:
      return ConstValue::ofBool(a <= b);
    case BinaryOp::Gt:
      return ConstValue::ofBool(a > b);
    case BinaryOp::Ge:
      return ConstValue::ofBool(a >= b);
    default:
      llvm_unreachable("logic operators handled above");
    }
    error(e.range) << "integer overflow in '" << spell(e.op) << "'";
    return std::nullopt;
  }

  auto x = l->asNumber(), y = r->asNumber();
  if (!x || !y) {
    error(e.opRange) << "operands of '" << spell(e.op)
                     << "' must be numbers";
    return std::nullopt;
  }
  Dim dl = l->kind == K::Quantity ? l->dim : Dim();
  Dim dr = r->kind == K::Quantity ? r->dim : Dim();
  auto sameDims = [&]() {
    if (dl == dr)
      return true;
    error(e.opRange) << "'" << spell(e.op) << "' needs operands of the same "
                     << "dimension, got " << dl.name() << " and " << dr.name();
    return false;
  };
  // The unit to display a result in: keep the operand's when one side is a
  // plain number or both share it.
  auto unitFor = [&](const Dim &d) -> std::string {
    if (l->kind == K::Quantity && l->dim == d)
      return l->unit;
    if (r->kind == K::Quantity && r->dim == d)
      return r->unit;
    return std::string();
  };
  switch (e.op) {
  case BinaryOp::Add:
  case BinaryOp::Sub: {
    if (!sameDims())
      return std::nullopt;
    double v = e.op == BinaryOp::Add ? *x + *y : *x - *y;
    return ConstValue::ofQuantity(v, dl, unitFor(dl));
  }
  case BinaryOp::Mul: {
    Dim d = dl * dr;
    return ConstValue::ofQuantity(*x * *y, d, unitFor(d));
  }
  case BinaryOp::Div: {
    if (*y == 0) {
      error(e.rhs->range) << "division by zero";
      return std::nullopt;
    }
    Dim d = dl / dr;
    return ConstValue::ofQuantity(*x / *y, d, unitFor(d));
  }
  case BinaryOp::Mod:
    error(e.opRange) << "'%' needs integer operands";
    return std::nullopt;
  case BinaryOp::Eq:
  case BinaryOp::Ne:
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge: {
    if (!sameDims())
      return std::nullopt;
    bool v = e.op == BinaryOp::Eq   ? *x == *y
             : e.op == BinaryOp::Ne ? *x != *y
             : e.op == BinaryOp::Lt ? *x < *y
             : e.op == BinaryOp::Le ? *x <= *y
             : e.op == BinaryOp::Gt ? *x > *y
                                    : *x >= *y;
    return ConstValue::ofBool(v);
  }
  default:
    llvm_unreachable("logic operators handled above");
  }
}

std::optional<ConstValue> sluice::evaluateConstant(const Expr &expr,
                                                   const ConstEnv &env,
                                                   mlir::MLIRContext *ctx) {
  return Evaluator(env, ctx).eval(expr);
}
