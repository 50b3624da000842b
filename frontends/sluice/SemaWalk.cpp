//===- SemaWalk.cpp - Checking walk declarations --------------------------===//
//
// A walk: its graph, parameters, lets and state, start set, termination
// (length, stop probability, stop function), transition weight and state
// update. The rules are listed in Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "frontends/sluice/ConstEval.h"
#include "support/NumberFormat.h"
#include "llvm/ADT/StringSet.h"
#include <cstdint>

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using ast::WalkItem;
using K = ast::Type::Kind;

static llvm::StringRef itemName(WalkItem::Kind kind) {
  switch (kind) {
  case WalkItem::Kind::Length:
    return "length";
  case WalkItem::Kind::Start:
    return "start";
  case WalkItem::Kind::StopProbability:
    return "stop probability";
  case WalkItem::Kind::StopFn:
    return "stop";
  case WalkItem::Kind::WeightFn:
    return "weight";
  case WalkItem::Kind::State:
    return "state";
  case WalkItem::Kind::Update:
    return "update";
  case WalkItem::Kind::Let:
    return "let";
  }
  llvm_unreachable("unknown walk item");
}

/// Declares the binders of a walk function. `shapes` lists the accepted
/// binder lists (types and how to spell them); a count that matches none is
/// reported and the binders are declared with unknown types.
static void bindWalkBinders(Sema &s, WalkItem &item,
                            llvm::ArrayRef<std::vector<Type>> shapes,
                            llvm::StringRef spelling) {
  const std::vector<Type> *shape = nullptr;
  for (const std::vector<Type> &candidate : shapes)
    if (candidate.size() == item.binders.size())
      shape = &candidate;
  if (!shape)
    s.error(item.range) << itemName(item.kind) << " takes " << spelling
                        << ", got " << item.binders.size()
                        << (item.binders.size() == 1 ? " binder" : " binders");
  for (size_t i = 0; i < item.binders.size(); ++i) {
    Symbol sym;
    sym.kind = SymKind::Binder;
    sym.type = shape ? (*shape)[i] : Type::unknown();
    s.declare(item.binders[i].name, item.binders[i].range, std::move(sym));
  }
}

void Sema::checkWalk(ast::WalkDecl &walk) {
  if (Symbol *g =
          resolveGlobal(walk.graph, walk.graphRange, {SymKind::Graph}, "graph"))
    currentGraph = llvm::dyn_cast_or_null<ast::GraphDecl>(g->decl);
  ScopeGuard params(*this);
  {
    WhereScope w(*this, Where::Const, "a constant expression");
    checkParams(walk.params);
  }
  ScopeGuard body(*this);

  std::map<WalkItem::Kind, const WalkItem *> seen;
  auto unique = [&](WalkItem &item) {
    auto [prev, inserted] = seen.emplace(item.kind, &item);
    if (inserted)
      return true;
    auto diag = error(item.range) << "duplicate '" << itemName(item.kind)
                                  << "' in walk '" << walk.name << "'";
    note(diag, prev->second->range,
         "previous '" + itemName(item.kind) + "' is here");
    return false;
  };
  const Type vertex = Type::of(K::Vertex);
  const Type i64 = Type::of(K::Int);
  const Type f64 = Type::of(K::Float);

  // Setup items, in order: each sees the lets and states before it.
  for (WalkItem &item : walk.items) {
    switch (item.kind) {
    case WalkItem::Kind::Let: {
      WhereScope w(*this, Where::WalkSetup, "a walk 'let'");
      checkLet(item.name, item.nameRange, item.type.get(), item.value.get(),
               SymKind::Let, /*assignable=*/false);
      break;
    }
    case WalkItem::Kind::State: {
      WhereScope w(*this, Where::WalkSetup, "a state initializer");
      Type t;
      if (item.type) {
        t = resolveType(*item.type);
        checkAs(item.value.get(), t, "state '" + item.name + "'");
      } else {
        t = check(item.value.get());
      }
      Symbol sym;
      sym.kind = SymKind::State;
      sym.type = t;
      sym.assignable = true;
      declare(item.name, item.nameRange, std::move(sym));
      break;
    }
    case WalkItem::Kind::Length: {
      bool first = unique(item);
      WhereScope w(*this, Where::WalkSetup, "'length'");
      Type t = check(item.value.get());
      if (!item.value || t.isUnknown() || !first)
        break;
      if (t.kind != K::Int) {
        error(item.value->range)
            << "walk length must be i64, got " << typeName(t);
        break;
      }
      if (const Value *v = valueOf(item.value.get()))
        if (v->i <= 0)
          error(item.value->range)
              << "walk length must be positive, got " << v->i;
      break;
    }
    case WalkItem::Kind::Start: {
      unique(item);
      WhereScope w(*this, Where::WalkSetup, "'start'");
      checkVertexSet(item.value.get(), "start");
      break;
    }
    case WalkItem::Kind::StopProbability: {
      bool first = unique(item);
      WhereScope w(*this, Where::WalkSetup, "'stop probability'");
      Type t = check(item.value.get());
      if (!item.value || t.isUnknown() || !first)
        break;
      if (t.kind != K::Int && t.kind != K::Float) {
        error(item.value->range)
            << "stop probability must be f64, got " << typeName(t);
        break;
      }
      if (const Value *v = valueOf(item.value.get())) {
        double p = *v->asNumber();
        if (p < 0 || p > 1)
          error(item.value->range) << "stop probability must be in [0, 1], got "
                                   << formatValue(*v, t);
      }
      break;
    }
    case WalkItem::Kind::StopFn:
    case WalkItem::Kind::WeightFn:
    case WalkItem::Kind::Update:
      break;
    }
  }

  // Per-step functions: they see every let and state.
  for (WalkItem &item : walk.items) {
    switch (item.kind) {
    case WalkItem::Kind::StopFn: {
      unique(item);
      ScopeGuard scope(*this);
      bindWalkBinders(*this, item, {{vertex}, {vertex, i64}},
                      "(cur) or (cur, step)");
      WhereScope w(*this, Where::WalkStep, "'stop'");
      Type t = check(item.value.get());
      if (item.value && !t.isUnknown() && t.kind != K::Bool)
        error(item.value->range) << "stop must be bool, got " << typeName(t);
      break;
    }
    case WalkItem::Kind::WeightFn: {
      unique(item);
      ScopeGuard scope(*this);
      bindWalkBinders(*this, item,
                      {{vertex, vertex, f64}, {vertex, vertex, vertex, f64}},
                      "(cur, next, w) or (prev, cur, next, w)");
      WhereScope w(*this, Where::WalkStep, "'weight'");
      Type t = check(item.value.get());
      if (!item.value || t.isUnknown())
        break;
      if (t.kind != K::Int && t.kind != K::Float) {
        error(item.value->range) << "weight must be f64, got " << typeName(t);
        break;
      }
      if (const Value *v = valueOf(item.value.get()))
        if (*v->asNumber() < 0)
          error(item.value->range)
              << "weight must not be negative, got " << formatValue(*v, t);
      break;
    }
    case WalkItem::Kind::Update: {
      unique(item);
      ScopeGuard scope(*this);
      bindWalkBinders(*this, item, {{vertex, vertex}, {vertex, vertex, vertex}},
                      "(cur, next) or (prev, cur, next)");
      WhereScope w(*this, Where::WalkStep, "'update'");
      checkBlock(item.body, StmtMode::WalkUpdate, /*topLevel=*/false);
      break;
    }
    default:
      break;
    }
  }

  if (!seen.count(WalkItem::Kind::Length) &&
      !seen.count(WalkItem::Kind::StopProbability) &&
      !seen.count(WalkItem::Kind::StopFn))
    error(walk.nameRange) << "walk '" << walk.name
                          << "' never stops; add 'length', 'stop probability' "
                             "or 'stop(cur, step)'";
}

//===----------------------------------------------------------------------===//
// A walk under a job's parameters
//===----------------------------------------------------------------------===//

namespace {

/// Every name `e` mentions (callees excepted).
void collectNames(const ast::Expr *e, llvm::StringSet<> &out) {
  if (!e)
    return;
  switch (e->getKind()) {
  case ast::Expr::Kind::Name:
    out.insert(llvm::cast<ast::NameExpr>(e)->name);
    break;
  case ast::Expr::Kind::Call:
    for (const ast::Arg &a : llvm::cast<ast::CallExpr>(e)->args)
      collectNames(a.value.get(), out);
    break;
  case ast::Expr::Kind::Unary:
    collectNames(llvm::cast<ast::UnaryExpr>(e)->operand.get(), out);
    break;
  case ast::Expr::Kind::Binary:
    collectNames(llvm::cast<ast::BinaryExpr>(e)->lhs.get(), out);
    collectNames(llvm::cast<ast::BinaryExpr>(e)->rhs.get(), out);
    break;
  case ast::Expr::Kind::If: {
    const auto *i = llvm::cast<ast::IfExpr>(e);
    collectNames(i->cond.get(), out);
    collectNames(i->thenExpr.get(), out);
    collectNames(i->elseExpr.get(), out);
    break;
  }
  case ast::Expr::Kind::Index:
    collectNames(llvm::cast<ast::IndexExpr>(e)->base.get(), out);
    collectNames(llvm::cast<ast::IndexExpr>(e)->index.get(), out);
    break;
  case ast::Expr::Kind::Member:
    collectNames(llvm::cast<ast::MemberExpr>(e)->base.get(), out);
    break;
  case ast::Expr::Kind::List:
    for (const ast::ExprPtr &x : llvm::cast<ast::ListExpr>(e)->elements)
      collectNames(x.get(), out);
    break;
  default:
    break;
  }
}

/// A folded Sema value of type `t` for ConstEval.
std::optional<ConstValue> toConstValue(const Value &v, const Type &t) {
  switch (v.kind) {
  case Value::Kind::Int:
    return ConstValue::ofInt(v.i);
  case Value::Kind::Float:
    if (t.kind == K::Quantity)
      return ConstValue::ofQuantity(v.f, t.dim, chooseDisplayUnit(v.f, t.dim));
    return ConstValue::ofFloat(v.f);
  case Value::Kind::Bool:
    return ConstValue::ofBool(v.b);
  case Value::Kind::String:
    return ConstValue::ofString(v.str().str());
  case Value::Kind::List: {
    ConstValue out;
    out.kind = ConstValue::Kind::List;
    Type elt = t.element ? *t.element : Type::unknown();
    for (const Value &e : v.elements()) {
      std::optional<ConstValue> c = toConstValue(e, elt);
      if (!c)
        return std::nullopt;
      out.list.push_back(std::move(*c));
    }
    return out;
  }
  }
  llvm_unreachable("unknown value kind");
}

} // namespace

void Sema::checkWalkJob(ast::JobDecl &job, ast::WalkDecl &walk,
                        const std::map<std::string, ast::Expr *> &given) {
  const WalkItem *length = nullptr, *stop = nullptr;
  for (const WalkItem &item : walk.items) {
    if (item.kind == WalkItem::Kind::Length && !length)
      length = &item;
    if (item.kind == WalkItem::Kind::StopProbability && !stop)
      stop = &item;
  }
  if (walk.params.empty() || (!length && !stop))
    return;

  // The names each walk let depends on, to trace a value to the parameters.
  llvm::StringMap<llvm::StringSet<>> letNames;
  llvm::StringSet<> mentioned;
  for (const WalkItem &item : walk.items)
    if (item.kind == WalkItem::Kind::Let) {
      collectNames(item.value.get(), letNames[item.name]);
      collectNames(item.value.get(), mentioned);
    }
  for (const WalkItem *item : {length, stop})
    if (item)
      collectNames(item->value.get(), mentioned);
  for (const ast::Param &p : walk.params)
    collectNames(p.defaultValue.get(), mentioned);
  for (const auto &[name, value] : given)
    collectNames(value, mentioned);

  // Globals first, then the parameters (the job's values over the
  // defaults), then the walk's lets in order. A value that does not fold
  // (a builtin such as num_vertices) stays unbound: the run checks it.
  ConstEnv env;
  for (const auto &entry : mentioned)
    if (Symbol *g = lookupGlobal(entry.getKey()))
      if (g->kind == SymKind::GlobalLet && g->value)
        if (std::optional<ConstValue> c = toConstValue(*g->value, g->type))
          env.bind(entry.getKey(), std::move(*c));
  env.push();
  llvm::StringSet<> params;
  for (const ast::Param &p : walk.params) {
    params.insert(p.name);
    auto it = given.find(p.name);
    const ast::Expr *e = it != given.end() ? it->second : p.defaultValue.get();
    const Value *v = e ? valueOf(e) : nullptr;
    Type t = resolveType(p.type, /*report=*/false);
    if (!v || t.isUnknown())
      continue;
    if (std::optional<ConstValue> c = toConstValue(convert(*v, e->type, t), t))
      env.bind(p.name, std::move(*c));
  }
  for (const WalkItem &item : walk.items)
    if (item.kind == WalkItem::Kind::Let && item.value)
      if (std::optional<ConstValue> c =
              evaluateConstant(*item.value, env, /*ctx=*/nullptr))
        env.bind(item.name, std::move(*c));

  // Reports `item`, out of range at `value`, at the job option behind it.
  auto report = [&](const WalkItem &item, const std::string &value,
                    llvm::StringRef expected) {
    // The parameters the item depends on, directly or through lets.
    llvm::StringSet<> deps;
    collectNames(item.value.get(), deps);
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto &entry : letNames)
        if (deps.contains(entry.getKey()))
          for (const auto &n : entry.getValue())
            grew |= deps.insert(n.getKey()).second;
    }
    if (llvm::none_of(
            deps, [&](const auto &d) { return params.contains(d.getKey()); }))
      return; // a constant of the walk: checked with the walk
    llvm::StringRef what = itemName(item.kind);
    const ast::Prop *option = nullptr;
    for (const ast::Prop &p : job.props)
      if (!option && params.contains(p.name) && deps.contains(p.name) &&
          p.value)
        option = &p;
    mlir::InFlightDiagnostic diag =
        option ? error(option->value->range)
                     << option->name << ": "
                     << formatValue(*valueOf(option->value.get()),
                                    option->value->type)
                     << " gives walk '" << walk.name << "' a " << what << " of "
                     << value << ", expected " << expected
               : error(job.subjectRange)
                     << "job '" << job.name << "' runs walk '" << walk.name
                     << "' with the default parameters, which give it a "
                     << what << " of " << value << ", expected " << expected;
    note(diag, item.value->range,
         "the " + what.str() + " of walk '" + walk.name + "'");
  };
  if (stop && stop->value)
    if (std::optional<ConstValue> v =
            evaluateConstant(*stop->value, env, /*ctx=*/nullptr))
      if (std::optional<double> p = v->asNumber(); p && !(*p >= 0 && *p <= 1))
        report(*stop, formatNumber(*p), "a value in [0, 1]");
  if (length && length->value)
    if (std::optional<ConstValue> v =
            evaluateConstant(*length->value, env, /*ctx=*/nullptr))
      if (v->kind == ConstValue::Kind::Int &&
          (v->i < 1 || v->i > int64_t(UINT32_MAX)))
        report(*length, std::to_string(v->i), "1 to 4294967295");
}
