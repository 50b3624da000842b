//===- SemaWalk.cpp - Checking walk declarations --------------------------===//
//
// A walk: its graph, parameters, lets and state, start set, termination
// (length, stop probability, stop function), transition weight and state
// update. The rules are listed in Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

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
      checkLet(item.name, item.nameRange, item.type, item.value.get(),
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
