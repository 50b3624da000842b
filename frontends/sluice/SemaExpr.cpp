//===- SemaExpr.cpp - Types, units and constant folding of expressions ----===//
//
// Checks one expression tree bottom-up: resolves names, types every node
// (ast::Expr::type), checks units, and folds what is constant so that
// declarations can check bounds and signs. Division by zero and i64
// overflow in constant expressions are errors. The rules are listed in
// Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

namespace {

enum class Fn {
  Min,
  Max,
  Abs,
  Sqrt,
  Log,
  Exp,
  Random,
  HasEdge,
  Degree,
  Label,
  EdgeLabel,
  Weight,
  NumVertices,
  NumEdges,
  Id,
  CommonNeighbors,
  Size,
  Empty,
};

struct Builtin {
  llvm::StringRef name;
  Fn fn;
  unsigned where; ///< mask of Where values it may be used in
};

constexpr unsigned kAnywhere = 15;
constexpr unsigned kPerStep = static_cast<unsigned>(Where::WalkStep) |
                              static_cast<unsigned>(Where::Algorithm);
constexpr unsigned kOnGraph =
    kPerStep | static_cast<unsigned>(Where::WalkSetup);

const Builtin kBuiltins[] = {
    {"min", Fn::Min, kAnywhere},
    {"max", Fn::Max, kAnywhere},
    {"abs", Fn::Abs, kAnywhere},
    {"sqrt", Fn::Sqrt, kAnywhere},
    {"log", Fn::Log, kAnywhere},
    {"exp", Fn::Exp, kAnywhere},
    {"size", Fn::Size, kAnywhere},
    {"empty", Fn::Empty, kAnywhere},
    {"random", Fn::Random, kPerStep},
    {"has_edge", Fn::HasEdge, kPerStep},
    {"degree", Fn::Degree, kPerStep},
    {"label", Fn::Label, kPerStep},
    {"edge_label", Fn::EdgeLabel, kPerStep},
    {"weight", Fn::Weight, kPerStep},
    {"num_vertices", Fn::NumVertices, kOnGraph},
    {"num_edges", Fn::NumEdges, kOnGraph},
    {"id", Fn::Id, static_cast<unsigned>(Where::Algorithm)},
    {"common_neighbors", Fn::CommonNeighbors,
     static_cast<unsigned>(Where::Algorithm)},
    {"common_neighbors_below", Fn::CommonNeighbors,
     static_cast<unsigned>(Where::Algorithm)},
};

const Builtin *findBuiltin(llvm::StringRef name) {
  for (const Builtin &b : kBuiltins)
    if (b.name == name)
      return &b;
  return nullptr;
}

std::vector<std::string> builtinNames() {
  std::vector<std::string> names;
  for (const Builtin &b : kBuiltins)
    names.push_back(b.name.str());
  return names;
}

bool allowed(const Sema &s, unsigned mask) {
  return (mask & static_cast<unsigned>(s.where)) != 0;
}

void setValue(Sema &s, ast::Expr *e, Value v) { s.setValue(e, std::move(v)); }

/// Plain numbers (no unit).
bool isPlainNumber(const Type &t) {
  return t.kind == K::Int || t.kind == K::Float;
}

/// The type of a numeric result: i64 if both are i64, else a quantity of
/// `d` (f64 when `d` is none).
Type numericResult(const Type &l, const Type &r, Dim d) {
  if (l.kind == K::Int && r.kind == K::Int)
    return Type::of(K::Int);
  return Type::quantity(d);
}

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
    if (!allowed(s, kOnGraph)) {
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
  if (allowed(s, kOnGraph)) {
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

/// Reports "'f' expects N argument(s), got M" and returns false on a
/// mismatch.
bool expectArity(Sema &s, ast::CallExpr &call, size_t n) {
  if (call.args.size() == n)
    return true;
  s.error(call.range) << "'" << call.callee << "' expects " << n
                      << (n == 1 ? " argument" : " arguments") << ", got "
                      << call.args.size();
  return false;
}

/// Checks that argument `i` (already checked) is a vertex.
bool expectVertex(Sema &s, ast::CallExpr &call, size_t i) {
  ast::Expr *arg = call.args[i].value.get();
  if (!arg || assignable(Type::of(K::Vertex), arg->type))
    return true;
  s.error(arg->range) << "argument " << i + 1 << " of '" << call.callee
                      << "' expects vertex, got " << typeName(arg->type);
  return false;
}

/// label() and edge_label() read labels the graph must be loaded with.
void expectLabels(Sema &s, ast::CallExpr &call, llvm::StringRef option,
                  llvm::StringRef what) {
  ast::GraphDecl *graph = s.currentGraph;
  if (!graph || !graph->source || graph->source->callee != "load")
    return;
  for (const ast::Arg &a : graph->source->args)
    if (a.name == option)
      return;
  auto diag = s.error(call.calleeRange)
              << "'" << call.callee << "' needs " << what << ", but graph '"
              << graph->name << "' is loaded without '" << option << ":'";
  s.note(diag, graph->nameRange,
         "graph '" + graph->name + "' is declared here");
}

/// common_neighbors() merges sorted adjacencies: parallel edges (a graph
/// loaded with `duplicates: keep`) would count a neighbour several times.
void expectSimpleGraph(Sema &s, ast::CallExpr &call) {
  ast::GraphDecl *graph = s.currentGraph;
  if (!graph || !graph->source || graph->source->callee != "load")
    return;
  for (const ast::Arg &a : graph->source->args) {
    auto *word = llvm::dyn_cast_or_null<ast::NameExpr>(a.value.get());
    if (a.name != "duplicates" || !word || word->name != "keep")
      continue;
    auto diag = s.error(call.calleeRange)
                << "'" << call.callee
                << "' counts each common neighbour once and needs a graph "
                   "without parallel edges, but graph '"
                << graph->name << "' is loaded with 'duplicates: keep'";
    s.note(diag, a.value->range, "'duplicates: keep' is here");
    return;
  }
}

Type checkCall(Sema &s, ast::CallExpr &call) {
  const Builtin *b = findBuiltin(call.callee);
  if (!b || !allowed(s, b->where)) {
    for (ast::Arg &a : call.args)
      s.check(a.value.get());
    if (b) {
      s.error(call.calleeRange)
          << "'" << call.callee << "' cannot be used in " << s.whereText;
    } else if (Symbol *sym = s.lookup(call.callee)) {
      auto diag = s.error(call.calleeRange)
                  << "'" << call.callee << "' is " << describeA(sym->kind)
                  << ", not a function";
      s.note(diag, sym->range, "'" + call.callee + "' is declared here");
    } else {
      s.error(call.calleeRange) << "unknown function '" << call.callee << "'"
                                << didYouMean(call.callee, builtinNames());
    }
    return Type::unknown();
  }

  std::vector<Type> types;
  bool ok = true;
  for (ast::Arg &a : call.args) {
    if (!a.name.empty()) {
      s.error(a.nameRange) << "'" << call.callee
                           << "' takes no named arguments";
      ok = false;
    }
    types.push_back(s.check(a.value.get()));
  }
  auto valueAt = [&](size_t i) -> const Value * {
    return s.valueOf(call.args[i].value.get());
  };

  switch (b->fn) {
  case Fn::Min:
  case Fn::Max: {
    if (call.args.size() < 2) {
      s.error(call.range) << "'" << call.callee
                          << "' expects at least 2 arguments, got "
                          << call.args.size();
      return Type::unknown();
    }
    Type result = Type::unknown();
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i].isUnknown()) {
        ok = false;
        continue;
      }
      if (!types[i].isNumeric()) {
        s.error(call.args[i].value->range)
            << "argument " << i + 1 << " of '" << call.callee
            << "' expects a number, got " << typeName(types[i]);
        ok = false;
        continue;
      }
      if (result.isUnknown()) {
        result = types[i];
        continue;
      }
      if (dimOf(result) != dimOf(types[i])) {
        s.error(call.args[i].value->range)
            << "arguments of '" << call.callee
            << "' have different types: " << typeName(result) << " and "
            << typeName(types[i]);
        ok = false;
        continue;
      }
      result = numericResult(result, types[i], dimOf(result));
    }
    if (!ok)
      return Type::unknown();
    // Fold.
    std::optional<Value> folded;
    for (size_t i = 0; i < types.size(); ++i) {
      const Value *v = valueAt(i);
      if (!v)
        return result;
      Value cv = convert(*v, types[i], result);
      if (!folded) {
        folded = cv;
        continue;
      }
      bool takeNew;
      if (cv.kind == Value::Kind::Int && folded->kind == Value::Kind::Int)
        takeNew = b->fn == Fn::Min ? cv.i < folded->i : cv.i > folded->i;
      else
        takeNew = b->fn == Fn::Min ? *cv.asNumber() < *folded->asNumber()
                                   : *cv.asNumber() > *folded->asNumber();
      if (takeNew)
        folded = cv;
    }
    if (folded)
      setValue(s, &call, *folded);
    return result;
  }
  case Fn::Abs: {
    if (!expectArity(s, call, 1) || types[0].isUnknown())
      return Type::unknown();
    if (!types[0].isNumeric()) {
      s.error(call.args[0].value->range)
          << "'abs' expects a number, got " << typeName(types[0]);
      return Type::unknown();
    }
    if (const Value *v = valueAt(0)) {
      if (v->kind == Value::Kind::Int && v->i != INT64_MIN)
        setValue(s, &call, Value::ofInt(v->i < 0 ? -v->i : v->i));
      else if (v->kind == Value::Kind::Float)
        setValue(s, &call, Value::ofFloat(std::fabs(v->f)));
    }
    return types[0];
  }
  case Fn::Sqrt:
  case Fn::Log:
  case Fn::Exp: {
    if (!expectArity(s, call, 1) || types[0].isUnknown())
      return Type::unknown();
    if (!isPlainNumber(types[0])) {
      s.error(call.args[0].value->range)
          << "'" << call.callee << "' expects a plain number (i64 or f64), got "
          << typeName(types[0]);
      return Type::unknown();
    }
    if (const Value *v = valueAt(0)) {
      double x = *v->asNumber();
      if (b->fn == Fn::Sqrt && x < 0) {
        s.error(call.args[0].value->range) << "'sqrt' of a negative number ("
                                           << formatValue(*v, types[0]) << ")";
        return Type::of(K::Float);
      }
      if (b->fn == Fn::Log && x <= 0) {
        s.error(call.args[0].value->range)
            << "'log' of a number that is not positive ("
            << formatValue(*v, types[0]) << ")";
        return Type::of(K::Float);
      }
      double r = b->fn == Fn::Sqrt  ? std::sqrt(x)
                 : b->fn == Fn::Log ? std::log(x)
                                    : std::exp(x);
      if (std::isfinite(r))
        setValue(s, &call, Value::ofFloat(r));
    }
    return Type::of(K::Float);
  }
  case Fn::Random:
    if (!expectArity(s, call, 0))
      return Type::unknown();
    return Type::of(K::Float);
  case Fn::NumVertices:
  case Fn::NumEdges:
    if (!expectArity(s, call, 0))
      return Type::unknown();
    return Type::of(K::Int);
  case Fn::Degree:
  case Fn::Label:
  case Fn::Id:
    if (!expectArity(s, call, 1) || !expectVertex(s, call, 0) || !ok)
      return Type::unknown();
    if (b->fn == Fn::Label)
      expectLabels(s, call, "labels", "vertex labels");
    return Type::of(K::Int);
  case Fn::CommonNeighbors: {
    if (!expectArity(s, call, 2))
      return Type::unknown();
    bool a0 = expectVertex(s, call, 0);
    bool a1 = expectVertex(s, call, 1);
    if (!a0 || !a1 || !ok)
      return Type::unknown();
    expectSimpleGraph(s, call);
    return Type::of(K::Int);
  }
  case Fn::HasEdge:
  case Fn::EdgeLabel:
  case Fn::Weight: {
    if (!expectArity(s, call, 2))
      return Type::unknown();
    bool a0 = expectVertex(s, call, 0);
    bool a1 = expectVertex(s, call, 1);
    if (!a0 || !a1 || !ok)
      return Type::unknown();
    if (b->fn == Fn::HasEdge)
      return Type::of(K::Bool);
    if (b->fn == Fn::EdgeLabel)
      expectLabels(s, call, "edge_labels", "edge labels");
    return b->fn == Fn::EdgeLabel ? Type::of(K::Int) : Type::of(K::Float);
  }
  case Fn::Size:
  case Fn::Empty: {
    if (!expectArity(s, call, 1) || types[0].isUnknown())
      return Type::unknown();
    if (types[0].kind != K::List && types[0].kind != K::Frontier) {
      s.error(call.args[0].value->range)
          << "'" << call.callee << "' expects a list or a frontier, got "
          << typeName(types[0]);
      return Type::unknown();
    }
    if (const Value *v = valueAt(0)) {
      int64_t n = static_cast<int64_t>(v->elements().size());
      setValue(s, &call,
               b->fn == Fn::Size ? Value::ofInt(n) : Value::ofBool(n == 0));
    }
    return b->fn == Fn::Size ? Type::of(K::Int) : Type::of(K::Bool);
  }
  }
  llvm_unreachable("unknown builtin");
}

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
    Type t = numericResult(l, r, dimOf(l));
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
    Type t = numericResult(l, r, d);
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

bool sema::isBuiltinFunction(llvm::StringRef name) {
  return findBuiltin(name) != nullptr;
}

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
    t = checkCall(*this, *llvm::cast<ast::CallExpr>(e));
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
