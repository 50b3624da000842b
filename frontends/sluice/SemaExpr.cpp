//===- SemaExpr.cpp - Types, units and constant folding of expressions ----===//
//
// Checks one expression tree bottom-up: resolves names, types every node
// (ast::Expr::type), checks units, and folds what is constant so that
// declarations can check bounds and signs. Division by zero and i64
// overflow in constant expressions are errors. Calls of the built-in
// functions are SemaBuiltins.cpp's. The rules are listed in Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaBuiltins.h"
#include "frontends/sluice/SemaInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

namespace {

void setValue(Sema &s, ast::Expr *e, Value v) { s.setValue(e, std::move(v)); }

std::string spellOp(ast::BinaryOp op) {
  switch (op) {
  case ast::BinaryOp::Add:
    return "+";
  case ast::BinaryOp::Sub:
    return "-";
  case ast::BinaryOp::Mul:
    return "*";
  case ast::BinaryOp::Div:
    return "/";
  case ast::BinaryOp::Mod:
    return "%";
  case ast::BinaryOp::Eq:
    return "==";
  case ast::BinaryOp::Ne:
    return "!=";
  case ast::BinaryOp::Lt:
    return "<";
  case ast::BinaryOp::Le:
    return "<=";
  case ast::BinaryOp::Gt:
    return ">";
  case ast::BinaryOp::Ge:
    return ">=";
  case ast::BinaryOp::And:
    return "and";
  case ast::BinaryOp::Or:
    return "or";
  }
  llvm_unreachable("unknown binary operator");
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

Type checkName(Sema &s, ast::NameExpr &n, bool allowVertexProp) {
  if (Symbol *sym = s.lookup(n.name)) {
    if (auto it = s.loopReductions.find(sym); it != s.loopReductions.end()) {
      auto diag = s.error(n.range)
                  << "local '" << n.name
                  << "' cannot be read inside the 'vertices' loop that "
                     "reduces into it: the iterations run in parallel and "
                     "their contributions are combined after the loop";
      s.note(diag, it->second->targetRange,
             "'" + n.name + "' is reduced into here");
      return Type::unknown();
    }
    switch (sym->kind) {
    case SymKind::GlobalLet:
      if (!s.ensureChecked(sym->decl)) {
        auto diag = s.error(n.range)
                    << "'" << n.name << "' is defined in terms of itself";
        s.note(diag, sym->range, "'" + n.name + "' is declared here");
        return Type::unknown();
      }
      break;
    case SymKind::State:
      if (s.where != Where::WalkStep) {
        s.error(n.range) << "state variable '" << n.name
                         << "' cannot be used in " << s.whereText
                         << "; only in weight, stop and update";
        return Type::unknown();
      }
      break;
    case SymKind::VertexProp:
      if (!allowVertexProp) {
        s.error(n.range) << "vertex property '" << n.name
                         << "' must be indexed by a vertex, e.g. '" << n.name
                         << "[v]'";
        return Type::unknown();
      }
      break;
    default:
      break;
    }
    if (sym->value)
      setValue(s, &n, *sym->value);
    return sym->type;
  }
  // Builtin values.
  if (n.name == "num_vertices" || n.name == "num_edges") {
    if (!graphBuiltinsAllowed(s)) {
      s.error(n.range) << "'" << n.name << "' cannot be used in "
                       << s.whereText;
      return Type::unknown();
    }
    return Type::of(K::Int);
  }
  if (n.name == "step") {
    if (s.where != Where::WalkStep) {
      s.error(n.range) << "'step' cannot be used in " << s.whereText
                       << "; only in weight, stop and update of a walk";
      return Type::unknown();
    }
    return Type::of(K::Int);
  }
  std::vector<std::string> names = s.visibleNames();
  if (graphBuiltinsAllowed(s)) {
    names.push_back("num_vertices");
    names.push_back("num_edges");
  }
  if (s.where == Where::WalkStep)
    names.push_back("step");
  s.error(n.range) << "unknown name '" << n.name << "'"
                   << s.unknownNameHint(n.name, n.range, names);
  return Type::unknown();
}

//===----------------------------------------------------------------------===//
// Calls

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

Type checkUnary(Sema &s, ast::UnaryExpr &u) {
  Type t = s.check(u.operand.get());
  if (t.isUnknown())
    return t;
  const Value *v = s.valueOf(u.operand.get());
  if (u.op == ast::UnaryOp::Not) {
    if (t.kind != K::Bool) {
      s.error(u.range) << "operand of 'not' must be bool, got " << typeName(t);
      return Type::unknown();
    }
    if (v)
      setValue(s, &u, Value::ofBool(!v->b));
    return t;
  }
  if (!t.isNumeric()) {
    s.error(u.range) << "cannot negate " << typeName(t);
    return Type::unknown();
  }
  if (v) {
    if (v->kind == Value::Kind::Int) {
      if (v->i == INT64_MIN)
        s.error(u.range) << "integer overflow in constant expression";
      else
        setValue(s, &u, Value::ofInt(-v->i));
    } else {
      setValue(s, &u, Value::ofFloat(-v->f));
    }
  }
  return t;
}

/// Folds an arithmetic operator; reports division by zero and overflow.
void foldArith(Sema &s, ast::BinaryExpr &b, const Type &result) {
  const Value *lv = s.valueOf(b.lhs.get());
  const Value *rv = s.valueOf(b.rhs.get());
  bool divides = b.op == ast::BinaryOp::Div || b.op == ast::BinaryOp::Mod;
  if (divides && rv) {
    std::optional<double> r = rv->asNumber();
    if (r && *r == 0) {
      s.error(b.opRange) << (b.op == ast::BinaryOp::Div ? "division" : "modulo")
                         << " by zero";
      return;
    }
  }
  if (!lv || !rv)
    return;
  if (result.kind == K::Int && lv->kind == Value::Kind::Int &&
      rv->kind == Value::Kind::Int) {
    int64_t x = lv->i, y = rv->i, r = 0;
    bool overflow = false;
    switch (b.op) {
    case ast::BinaryOp::Add:
      overflow = llvm::AddOverflow(x, y, r);
      break;
    case ast::BinaryOp::Sub:
      overflow = llvm::SubOverflow(x, y, r);
      break;
    case ast::BinaryOp::Mul:
      overflow = llvm::MulOverflow(x, y, r);
      break;
    case ast::BinaryOp::Div:
    case ast::BinaryOp::Mod:
      if (x == INT64_MIN && y == -1)
        overflow = true;
      else
        r = b.op == ast::BinaryOp::Div ? x / y : x % y;
      break;
    default:
      return;
    }
    if (overflow) {
      s.error(b.opRange) << "integer overflow in constant expression";
      return;
    }
    setValue(s, &b, Value::ofInt(r));
    return;
  }
  std::optional<double> x = lv->asNumber(), y = rv->asNumber();
  if (!x || !y)
    return;
  double r;
  switch (b.op) {
  case ast::BinaryOp::Add:
    r = *x + *y;
    break;
  case ast::BinaryOp::Sub:
    r = *x - *y;
    break;
  case ast::BinaryOp::Mul:
    r = *x * *y;
    break;
  case ast::BinaryOp::Div:
    r = *x / *y;
    break;
  default:
    return;
  }
  if (result.kind == K::Float32)
    r = static_cast<float>(r);
  if (std::isfinite(r))
    setValue(s, &b, Value::ofFloat(r));
}

void foldCompare(Sema &s, ast::BinaryExpr &b) {
  const Value *lv = s.valueOf(b.lhs.get());
  const Value *rv = s.valueOf(b.rhs.get());
  if (!lv || !rv)
    return;
  int cmp;
  if (lv->kind == Value::Kind::Int && rv->kind == Value::Kind::Int) {
    cmp = lv->i < rv->i ? -1 : lv->i > rv->i ? 1 : 0;
  } else if (lv->asNumber() && rv->asNumber()) {
    double x = *lv->asNumber(), y = *rv->asNumber();
    cmp = x < y ? -1 : x > y ? 1 : 0;
  } else if (lv->kind == Value::Kind::Bool && rv->kind == Value::Kind::Bool) {
    cmp = lv->b == rv->b ? 0 : 1;
  } else if (lv->kind == Value::Kind::String &&
             rv->kind == Value::Kind::String) {
    cmp = lv->str().compare(rv->str());
  } else {
    return;
  }
  bool r;
  switch (b.op) {
  case ast::BinaryOp::Eq:
    r = cmp == 0;
    break;
  case ast::BinaryOp::Ne:
    r = cmp != 0;
    break;
  case ast::BinaryOp::Lt:
    r = cmp < 0;
    break;
  case ast::BinaryOp::Le:
    r = cmp <= 0;
    break;
  case ast::BinaryOp::Gt:
    r = cmp > 0;
    break;
  case ast::BinaryOp::Ge:
    r = cmp >= 0;
    break;
  default:
    return;
  }
  setValue(s, &b, Value::ofBool(r));
}

Type checkBinary(Sema &s, ast::BinaryExpr &b) {
  Type l = s.check(b.lhs.get());
  Type r = s.check(b.rhs.get());
  using Op = ast::BinaryOp;
  switch (b.op) {
  case Op::And:
  case Op::Or: {
    bool ok = true;
    for (ast::Expr *e : {b.lhs.get(), b.rhs.get()}) {
      if (!e || e->type.isUnknown() || e->type.kind == K::Bool)
        continue;
      s.error(e->range) << "operand of '" << spellOp(b.op)
                        << "' must be bool, got " << typeName(e->type);
      ok = false;
    }
    if (!ok || l.isUnknown() || r.isUnknown())
      return ok ? Type::of(K::Bool) : Type::unknown();
    const Value *lv = s.valueOf(b.lhs.get());
    const Value *rv = s.valueOf(b.rhs.get());
    if (lv && rv)
      setValue(
          s, &b,
          Value::ofBool(b.op == Op::And ? lv->b && rv->b : lv->b || rv->b));
    return Type::of(K::Bool);
  }
  default:
    break;
  }
  if (l.isUnknown() || r.isUnknown()) {
    // Still report a constant division by zero.
    if (b.op == Op::Div || b.op == Op::Mod)
      foldArith(s, b, Type::unknown());
    bool isCompare = b.op != Op::Add && b.op != Op::Sub && b.op != Op::Mul &&
                     b.op != Op::Div && b.op != Op::Mod;
    return isCompare ? Type::of(K::Bool) : Type::unknown();
  }
  std::string ln = typeName(l), rn = typeName(r);
  switch (b.op) {
  case Op::Add:
  case Op::Sub: {
    if (!l.isNumeric() || !r.isNumeric() || dimOf(l) != dimOf(r)) {
      if (b.op == Op::Add)
        s.error(b.opRange) << "cannot add " << ln << " and " << rn;
      else
        s.error(b.opRange) << "cannot subtract " << rn << " from " << ln;
      return Type::unknown();
    }
    Type t = arithResult(l, r, dimOf(l));
    foldArith(s, b, t);
    return t;
  }
  case Op::Mul:
  case Op::Div: {
    if (!l.isNumeric() || !r.isNumeric()) {
      if (b.op == Op::Mul)
        s.error(b.opRange) << "cannot multiply " << ln << " and " << rn;
      else
        s.error(b.opRange) << "cannot divide " << ln << " by " << rn;
      return Type::unknown();
    }
    Dim d = b.op == Op::Mul ? dimOf(l) * dimOf(r) : dimOf(l) / dimOf(r);
    Type t = arithResult(l, r, d);
    foldArith(s, b, t);
    return t;
  }
  case Op::Mod: {
    if (l.kind != K::Int || r.kind != K::Int) {
      s.error(b.opRange) << "operator '%' needs i64 operands, got " << ln
                         << " and " << rn;
      return Type::unknown();
    }
    Type t = Type::of(K::Int);
    foldArith(s, b, t);
    return t;
  }
  case Op::Eq:
  case Op::Ne:
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge: {
    bool equality = b.op == Op::Eq || b.op == Op::Ne;
    bool ok = false;
    if (l.isNumeric() && r.isNumeric())
      ok = dimOf(l) == dimOf(r);
    else if ((l.kind == K::Vertex &&
              (r.kind == K::Vertex || r.kind == K::Int)) ||
             (r.kind == K::Vertex && l.kind == K::Int))
      ok = true;
    else if (equality && l.kind == r.kind &&
             (l.kind == K::Bool || l.kind == K::String))
      ok = true;
    if (!ok) {
      s.error(b.opRange) << "cannot compare " << ln << " and " << rn
                         << " with '" << spellOp(b.op) << "'";
      return Type::of(K::Bool);
    }
    foldCompare(s, b);
    return Type::of(K::Bool);
  }
  case Op::And:
  case Op::Or:
    break;
  }
  llvm_unreachable("handled above");
}

//===----------------------------------------------------------------------===//
// Compound expressions
//===----------------------------------------------------------------------===//

Type checkIf(Sema &s, ast::IfExpr &e) {
  s.checkCondition(e.cond.get());
  Type t = s.check(e.thenExpr.get());
  Type f = s.check(e.elseExpr.get());
  std::optional<Type> j = join(t, f);
  if (!j) {
    s.error(e.elseExpr->range)
        << "if branches have different types: " << typeName(t) << " and "
        << typeName(f);
    return Type::unknown();
  }
  const Value *c = s.valueOf(e.cond.get());
  if (c && c->kind == Value::Kind::Bool) {
    ast::Expr *chosen = c->b ? e.thenExpr.get() : e.elseExpr.get();
    if (const Value *v = s.valueOf(chosen)) {
      Value cv = convert(*v, chosen->type, *j);
      setValue(s, &e, std::move(cv));
    }
  }
  return *j;
}

Type checkList(Sema &s, ast::ListExpr &l) {
  Type elt = Type::unknown();
  bool ok = true;
  for (ast::ExprPtr &e : l.elements) {
    Type t = s.check(e.get());
    if (!e)
      continue;
    if (t.isUnknown()) {
      ok = false;
      continue;
    }
    std::optional<Type> j = join(elt, t);
    if (!j) {
      s.error(e->range) << "list elements have different types: "
                        << typeName(elt) << " and " << typeName(t);
      ok = false;
      continue;
    }
    elt = *j;
  }
  if (!ok)
    return Type::unknown();
  std::vector<Value> values;
  for (ast::ExprPtr &e : l.elements) {
    const Value *v = e ? s.valueOf(e.get()) : nullptr;
    if (!v)
      return Type::list(elt);
    values.push_back(convert(*v, e->type, elt));
  }
  setValue(s, &l, Value::ofList(std::move(values)));
  return Type::list(elt);
}

Type checkIndex(Sema &s, ast::IndexExpr &e) {
  Type base;
  if (auto *name = llvm::dyn_cast_or_null<ast::NameExpr>(e.base.get())) {
    if (s.enter(name->range)) {
      base = checkName(s, *name, /*allowVertexProp=*/true);
      s.leave();
    }
    name->type = base;
  } else {
    base = s.check(e.base.get());
  }
  Type index = s.check(e.index.get());
  if (base.isUnknown())
    return Type::unknown();
  if (base.kind == K::VertexProp) {
    if (!index.isUnknown() && !assignable(Type::of(K::Vertex), index)) {
      s.error(e.index->range) << "vertex property must be indexed by a "
                                 "vertex, got "
                              << typeName(index);
      return Type::unknown();
    }
    return base.element ? *base.element : Type::unknown();
  }
  if (base.kind == K::List) {
    Type elt = base.element ? *base.element : Type::unknown();
    if (index.isUnknown())
      return elt;
    if (index.kind != K::Int) {
      s.error(e.index->range)
          << "list index must be i64, got " << typeName(index);
      return Type::unknown();
    }
    const Value *lv = s.valueOf(e.base.get());
    const Value *iv = s.valueOf(e.index.get());
    if (iv && (iv->i < 0 ||
               (lv && iv->i >= static_cast<int64_t>(lv->elements().size())))) {
      if (lv)
        s.error(e.index->range)
            << "index " << iv->i << " is out of range for a list of "
            << lv->elements().size() << " elements";
      else
        s.error(e.index->range)
            << "list index must not be negative, got " << iv->i;
      return Type::unknown();
    }
    if (lv && iv) {
      Value v = lv->elements()[static_cast<size_t>(iv->i)];
      setValue(s, &e, std::move(v));
    }
    return elt;
  }
  s.error(e.base->range) << "cannot index a value of type " << typeName(base);
  return Type::unknown();
}

Type checkMember(Sema &s, ast::MemberExpr &m) {
  Type base = s.check(m.base.get());
  if (base.isUnknown())
    return Type::unknown();
  auto *name = llvm::dyn_cast_or_null<ast::NameExpr>(m.base.get());
  Symbol *sym = name ? s.lookup(name->name) : nullptr;
  if (base.kind != K::Model || !sym || sym->kind != SymKind::Model ||
      !sym->decl) {
    s.error(m.range) << "member access needs a model, got " << typeName(base);
    return Type::unknown();
  }
  auto *model = llvm::cast<ast::ModelDecl>(sym->decl);
  if (!s.ensureChecked(model)) {
    s.error(m.range) << "model '" << model->name
                     << "' is defined in terms of itself";
    return Type::unknown();
  }
  std::vector<std::string> names;
  if (model->ctor) {
    for (ast::Arg &a : model->ctor->args) {
      if (a.name.empty())
        continue;
      names.push_back(a.name);
      if (a.name != m.member || !a.value)
        continue;
      if (const Value *v = s.valueOf(a.value.get())) {
        Value copy = *v;
        setValue(s, &m, std::move(copy));
      }
      return a.value->type;
    }
  }
  s.error(m.range) << "model '" << model->name << "' has no argument '"
                   << m.member << "'"
                   << (names.empty() ? std::string()
                                     : "; it has: " + joinNames(names));
  return Type::unknown();
}

Type checkQuantity(Sema &s, ast::QuantityLitExpr &q) {
  std::optional<UnitInfo> unit = lookupUnit(q.unit);
  if (!unit) {
    std::string hint = unitSuggestion(q.unit);
    s.error(q.range) << "unknown unit '" << q.unit << "'"
                     << (hint.empty() ? "; expected one of: " + listUnits()
                                      : hint);
    return Type::unknown();
  }
  double base = q.value * unit->factor;
  if (std::isfinite(base))
    setValue(s, &q, Value::ofFloat(base));
  return Type::quantity(unit->dim);
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Type Sema::check(ast::Expr *e) {
  if (!e)
    return Type::unknown();
  if (!enter(e->range)) {
    e->type = Type::unknown();
    return e->type;
  }
  Type t;
  switch (e->getKind()) {
  case ast::Expr::Kind::IntLit:
    setValue(e, Value::ofInt(llvm::cast<ast::IntLitExpr>(e)->value));
    t = Type::of(K::Int);
    break;
  case ast::Expr::Kind::FloatLit: {
    double v = llvm::cast<ast::FloatLitExpr>(e)->value;
    if (std::isfinite(v))
      setValue(e, Value::ofFloat(v));
    t = Type::of(K::Float);
    break;
  }
  case ast::Expr::Kind::QuantityLit:
    t = checkQuantity(*this, *llvm::cast<ast::QuantityLitExpr>(e));
    break;
  case ast::Expr::Kind::StringLit:
    setValue(e, Value::ofString(llvm::cast<ast::StringLitExpr>(e)->value));
    t = Type::of(K::String);
    break;
  case ast::Expr::Kind::BoolLit:
    setValue(e, Value::ofBool(llvm::cast<ast::BoolLitExpr>(e)->value));
    t = Type::of(K::Bool);
    break;
  case ast::Expr::Kind::Name:
    t = checkName(*this, *llvm::cast<ast::NameExpr>(e),
                  /*allowVertexProp=*/false);
    break;
  case ast::Expr::Kind::Call:
    t = checkBuiltinCall(*this, *llvm::cast<ast::CallExpr>(e));
    break;
  case ast::Expr::Kind::Unary:
    t = checkUnary(*this, *llvm::cast<ast::UnaryExpr>(e));
    break;
  case ast::Expr::Kind::Binary:
    t = checkBinary(*this, *llvm::cast<ast::BinaryExpr>(e));
    break;
  case ast::Expr::Kind::If:
    t = checkIf(*this, *llvm::cast<ast::IfExpr>(e));
    break;
  case ast::Expr::Kind::Index:
    t = checkIndex(*this, *llvm::cast<ast::IndexExpr>(e));
    break;
  case ast::Expr::Kind::Member:
    t = checkMember(*this, *llvm::cast<ast::MemberExpr>(e));
    break;
  case ast::Expr::Kind::List:
    t = checkList(*this, *llvm::cast<ast::ListExpr>(e));
    break;
  }
  leave();
  if (t.isUnknown())
    clearValue(e);
  e->type = t;
  return t;
}

bool Sema::checkAs(ast::Expr *e, const Type &expected,
                   const llvm::Twine &what) {
  Type t = check(e);
  if (!e || assignable(expected, t))
    return true;
  error(e->range) << what << " expects " << typeName(expected) << ", got "
                  << typeName(t);
  return false;
}

void Sema::checkCondition(ast::Expr *e) {
  Type t = check(e);
  if (!t.isUnknown() && t.kind != K::Bool)
    error(e->range) << "condition must be bool, got " << typeName(t);
}

bool Sema::checkVertexSet(ast::Expr *e, const llvm::Twine &what) {
  if (!e)
    return true;
  auto *name = llvm::dyn_cast<ast::NameExpr>(e);
  if (name && name->name == "all" && !lookup("all")) {
    e->type = Type::list(Type::of(K::Vertex));
    return true;
  }
  Type t = check(e);
  bool ok =
      t.isUnknown() || t.kind == K::Vertex || t.kind == K::Int ||
      t.kind == K::Frontier ||
      (t.kind == K::List && (!t.element || t.element->isUnknown() ||
                             assignable(Type::of(K::Vertex), *t.element)));
  if (!ok) {
    error(e->range) << what
                    << " expects 'all', a vertex or a list of vertices, got "
                    << typeName(t);
    return false;
  }
  if (const Value *v = valueOf(e)) {
    std::vector<const Value *> ids;
    if (v->kind == Value::Kind::Int)
      ids.push_back(v);
    for (const Value &elt : v->elements())
      ids.push_back(&elt);
    for (const Value *id : ids)
      if (id->kind == Value::Kind::Int && id->i < 0) {
        error(e->range) << "vertex id must not be negative, got " << id->i;
        return false;
      }
  }
  return true;
}
