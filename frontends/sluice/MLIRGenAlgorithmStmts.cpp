//===- MLIRGenAlgorithmStmts.cpp - Lowering an algorithm's statements -----===//
//
// The statements of an algorithm's body (MLIRGenAlgorithm.cpp has the
// overview): properties, frontiers, locals, assignments and reductions,
// repeat / while / if over scf with the locals and frontiers they carry,
// and the loops over vertices and edges.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/MLIRGenAlgorithmInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace sluice;
using namespace sluice::ast;
using namespace sluice::mlirgen;
using K = ast::Type::Kind;

static graph::ReductionKind reductionOf(AssignOp op) {
  switch (op) {
  case AssignOp::Add:
    return graph::ReductionKind::Add;
  case AssignOp::Sub:
    return graph::ReductionKind::Sub;
  case AssignOp::Mul:
    return graph::ReductionKind::Mul;
  case AssignOp::Min:
    return graph::ReductionKind::Min;
  case AssignOp::Max:
    return graph::ReductionKind::Max;
  case AssignOp::Set:
    break;
  }
  llvm_unreachable("a plain assignment is no reduction");
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

Var *AlgorithmGen::lookupVar(llvm::StringRef name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    if (auto found = it->find(name); found != it->end())
      return &found->second;
  return nullptr;
}

llvm::SmallVector<mlir::Value>
AlgorithmGen::valuesOf(llvm::ArrayRef<std::string> names) {
  llvm::SmallVector<mlir::Value> values;
  for (const std::string &name : names)
    values.push_back(lookupVar(name)->value.value);
  return values;
}

void AlgorithmGen::rebind(llvm::ArrayRef<std::string> names,
                          mlir::ValueRange values) {
  for (auto [name, value] : llvm::zip(names, values))
    assign(name, value);
}

std::vector<std::string>
AlgorithmGen::carried(llvm::ArrayRef<const Block *> blocks) {
  AssignedNames assigned;
  for (const Block *block : blocks) {
    std::vector<llvm::StringSet<>> declared(1);
    collectAssigned(*block, declared, assigned);
  }
  std::vector<std::string> names;
  for (const std::string &name : assigned.names)
    if (Var *var = lookupVar(name); var && var->kind == Var::Kind::Value)
      names.push_back(name);
  return names;
}

void AlgorithmGen::collectAssigned(const Block &block,
                                   std::vector<llvm::StringSet<>> &declared,
                                   AssignedNames &out) {
  auto isDeclared = [&](llvm::StringRef name) {
    return llvm::any_of(declared, [&](const llvm::StringSet<> &scope) {
      return scope.contains(name);
    });
  };
  auto nested = [&](const Block &inner) {
    declared.emplace_back();
    collectAssigned(inner, declared, out);
    declared.pop_back();
  };
  for (const StmtPtr &stmt : block) {
    if (!stmt)
      continue;
    switch (stmt->getKind()) {
    case Stmt::Kind::VertexProp:
      declared.back().insert(llvm::cast<VertexPropStmt>(*stmt).name);
      break;
    case Stmt::Kind::Frontier:
      declared.back().insert(llvm::cast<FrontierStmt>(*stmt).name);
      break;
    case Stmt::Kind::Let:
      declared.back().insert(llvm::cast<LetStmt>(*stmt).name);
      break;
    case Stmt::Kind::Assign: {
      auto &a = llvm::cast<AssignStmt>(*stmt);
      if (!a.index && !isDeclared(a.target))
        out.add(a.target);
      break;
    }
    case Stmt::Kind::Edges: {
      // The body assigns nothing declared outside it (Sema); the result
      // frontier is an assignment or a new frontier.
      const std::string &result = llvm::cast<EdgesStmt>(*stmt).result;
      if (result.empty() || isDeclared(result))
        break;
      if (lookupVar(result))
        out.add(result);
      else
        declared.back().insert(result);
      break;
    }
    case Stmt::Kind::Repeat:
      nested(llvm::cast<RepeatStmt>(*stmt).body);
      break;
    case Stmt::Kind::While:
      nested(llvm::cast<WhileStmt>(*stmt).body);
      break;
    case Stmt::Kind::If:
      nested(llvm::cast<IfStmt>(*stmt).thenBody);
      nested(llvm::cast<IfStmt>(*stmt).elseBody);
      break;
    case Stmt::Kind::Vertices:
      // The locals the loop reduces into.
      for (const AssignStmt *a :
           ast::outerReductions(llvm::cast<VerticesStmt>(*stmt).body))
        if (!isDeclared(a->target))
          out.add(a->target);
      break;
    case Stmt::Kind::Output:
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void AlgorithmGen::lowerBlock(const Block &block) {
  scopes.emplace_back();
  for (const StmtPtr &s : block)
    if (s)
      lowerStmt(*s);
  scopes.pop_back();
}

void AlgorithmGen::lowerStmt(const Stmt &s) {
  switch (s.getKind()) {
  case Stmt::Kind::VertexProp:
    return lowerVertexProp(llvm::cast<VertexPropStmt>(s));
  case Stmt::Kind::Frontier: {
    auto &f = llvm::cast<FrontierStmt>(s);
    if (TValue v = lowerVertexSet(f.init.get()))
      declare(f.name, Var{Var::Kind::Value, v, {}});
    return;
  }
  case Stmt::Kind::Let:
    return lowerLet(llvm::cast<LetStmt>(s));
  case Stmt::Kind::Repeat:
    return lowerRepeat(llvm::cast<RepeatStmt>(s));
  case Stmt::Kind::While:
    return lowerWhile(llvm::cast<WhileStmt>(s));
  case Stmt::Kind::If:
    return lowerIf(llvm::cast<IfStmt>(s));
  case Stmt::Kind::Vertices:
    return lowerVertices(llvm::cast<VerticesStmt>(s));
  case Stmt::Kind::Edges:
    return lowerEdges(llvm::cast<EdgesStmt>(s));
  case Stmt::Kind::Output:
    for (const Binder &name : llvm::cast<OutputStmt>(s).names)
      outputs.push_back(mlir::FlatSymbolRefAttr::get(ctx, name.name));
    return;
  case Stmt::Kind::Assign:
    return lowerAssign(llvm::cast<AssignStmt>(s));
  }
  llvm_unreachable("unknown statement kind");
}

void AlgorithmGen::lowerVertexProp(const VertexPropStmt &v) {
  ast::Type t = typeOf(v.type);
  if (!valueType(t)) {
    error(v.type.range)
        << "not supported yet: vertex property '" << v.name << "' of type "
        << spellType(v.type)
        << " (vertex properties are f64, f32, i64, bool or vertex)";
    return;
  }
  mlir::Location l = loc(v.range);
  if (!v.init) {
    // `vertex p: vertex`: no vertex (0xFFFFFFFF) first, then p[v] = v in
    // a loop over the vertices.
    mlir::Value none =
        builder.create<mlir::arith::ConstantIntOp>(l, -1, builder.getI32Type());
    builder.create<graph::PropertyOp>(l, v.name, none);
    auto loop = builder.create<graph::VerticesOp>(
        l, mlir::TypeRange(), mlir::ValueRange(), mlir::StringAttr(),
        builder.getArrayAttr({}), graph::ScheduleAttr());
    mlir::OpBuilder::InsertionGuard guard(builder);
    mlir::Block *body =
        builder.createBlock(&loop.getBody(), {}, builder.getI32Type(), l);
    builder.create<graph::PropSetOp>(l, v.name, body->getArgument(0),
                                     body->getArgument(0));
    builder.create<graph::YieldOp>(l);
  } else {
    mlir::Value init = convert(lower(v.init.get()), t, v.init->range);
    if (!init)
      return;
    builder.create<graph::PropertyOp>(l, v.name, init);
  }
  declare(v.name, Var{Var::Kind::Property, {}, t});
}

void AlgorithmGen::lowerLet(const LetStmt &l) {
  TValue v = lower(l.value.get());
  if (!v)
    return;
  // A written type converts the value (i64 -> f64, i64 -> vertex); Sema
  // checked that it fits.
  if (ast::Type t = l.type ? typeOf(*l.type) : ast::Type(); !t.isUnknown()) {
    v = {convert(v, t, l.value->range), t};
    if (!v)
      return;
  }
  declare(l.name, Var{Var::Kind::Value, v, {}});
}

void AlgorithmGen::lowerAssign(const AssignStmt &a) {
  mlir::Location l = loc(a.range);
  Var *var = lookupVar(a.target);
  if (!var) {
    error(a.targetRange) << "not supported yet: assigning '" << a.target
                         << "' in an algorithm";
    return;
  }
  if (var->kind == Var::Kind::Property) {
    mlir::Value vertex = toVertex(lower(a.index.get()), a.index->range);
    mlir::Value value =
        convert(lower(a.value.get()), var->element, a.value->range);
    if (!vertex || !value)
      return;
    auto name = mlir::FlatSymbolRefAttr::get(ctx, a.target);
    if (a.op == AssignOp::Set)
      builder.create<graph::PropSetOp>(l, name, vertex, value);
    else
      builder.create<graph::PropReduceOp>(
          l, graph::ReductionKindAttr::get(ctx, reductionOf(a.op)), name,
          vertex, value);
    return;
  }
  const ast::Type t = var->value.type;
  if (t.kind == K::Frontier) {
    if (TValue f = lowerVertexSet(a.value.get()))
      assign(a.target, f.value);
    return;
  }
  mlir::Value value = convert(lower(a.value.get()), t, a.value->range);
  if (!value)
    return;
  if (a.op != AssignOp::Set) {
    if (t.kind != K::Int && t.kind != K::Float && t.kind != K::Float32) {
      error(a.range) << "not supported yet: '" << spell(a.op) << "' on a "
                     << t.str() << " local";
      return;
    }
    value = combine(a.op, var->value.value, value, t.kind == K::Int, l);
  }
  assign(a.target, value);
}

void AlgorithmGen::lowerRepeat(const RepeatStmt &r) {
  mlir::Location l = loc(r.range);
  TValue count = lower(r.count.get());
  if (!count)
    return;
  std::vector<std::string> names = carried({&r.body});
  mlir::Value zero = builder.create<mlir::arith::ConstantIndexOp>(l, 0);
  mlir::Value one = builder.create<mlir::arith::ConstantIndexOp>(l, 1);
  mlir::Value upper = builder.create<mlir::arith::IndexCastOp>(
      l, builder.getIndexType(), count.value);
  auto loop =
      builder.create<mlir::scf::ForOp>(l, zero, upper, one, valuesOf(names));
  {
    mlir::OpBuilder::InsertionGuard guard(builder);
    mlir::Block *body = loop.getBody();
    if (names.empty())
      builder.setInsertionPoint(body->getTerminator());
    else
      builder.setInsertionPointToEnd(body);
    rebind(names, loop.getRegionIterArgs());
    lowerBlock(r.body);
    if (!names.empty())
      builder.create<mlir::scf::YieldOp>(l, valuesOf(names));
  }
  rebind(names, loop.getResults());
}

void AlgorithmGen::lowerWhile(const WhileStmt &w) {
  mlir::Location l = loc(w.range);
  std::vector<std::string> names = carried({&w.body});
  llvm::SmallVector<mlir::Value> init = valuesOf(names);
  llvm::SmallVector<mlir::Type> types;
  for (mlir::Value v : init)
    types.push_back(v.getType());
  llvm::SmallVector<mlir::Location> locs(types.size(), l);
  auto loop = builder.create<mlir::scf::WhileOp>(l, types, init);
  {
    mlir::OpBuilder::InsertionGuard guard(builder);
    mlir::Block *before =
        builder.createBlock(&loop.getBefore(), {}, types, locs);
    rebind(names, before->getArguments());
    if (TValue cond = lower(w.cond.get()))
      builder.create<mlir::scf::ConditionOp>(l, cond.value, valuesOf(names));
    mlir::Block *after = builder.createBlock(&loop.getAfter(), {}, types, locs);
    rebind(names, after->getArguments());
    lowerBlock(w.body);
    builder.create<mlir::scf::YieldOp>(l, valuesOf(names));
  }
  rebind(names, loop.getResults());
}

void AlgorithmGen::lowerIf(const IfStmt &i) {
  mlir::Location l = loc(i.range);
  TValue cond = lower(i.cond.get());
  if (!cond)
    return;
  std::vector<std::string> names = carried({&i.thenBody, &i.elseBody});
  llvm::SmallVector<mlir::Value> before = valuesOf(names);
  llvm::SmallVector<mlir::Type> types;
  for (mlir::Value v : before)
    types.push_back(v.getType());
  bool withElse = !i.elseBody.empty() || !names.empty();
  auto ifOp = builder.create<mlir::scf::IfOp>(l, types, cond.value, withElse);
  {
    mlir::OpBuilder::InsertionGuard guard(builder);
    for (auto [block, body] : {std::pair{ifOp.thenBlock(), &i.thenBody},
                               std::pair{ifOp.elseBlock(), &i.elseBody}}) {
      if (!block)
        continue;
      rebind(names, before);
      if (names.empty())
        builder.setInsertionPoint(block->getTerminator());
      else
        builder.setInsertionPointToStart(block);
      lowerBlock(*body);
      if (!names.empty())
        builder.create<mlir::scf::YieldOp>(l, valuesOf(names));
    }
  }
  rebind(names, ifOp.getResults());
}

void AlgorithmGen::beginLoopRegion(mlir::Region &region, mlir::TypeRange args,
                                   const std::vector<Binder> &binders,
                                   const SourceRange &r) {
  llvm::SmallVector<mlir::Location> locs;
  for (const Binder &b : binders)
    locs.push_back(loc(b.range));
  locs.resize(args.size(), loc(r));
  mlir::Block *block = builder.createBlock(&region, {}, args, locs);
  scopes.emplace_back();
  for (auto [binder, arg] : llvm::zip(binders, block->getArguments()))
    declare(
        binder.name,
        Var{Var::Kind::Value,
            {arg, ast::Type::of(arg.getType().isF64() ? K::Float : K::Vertex)},
            {}});
}

template <typename LoopOp, typename LoopStmt>
void AlgorithmGen::lowerLoopRegions(LoopOp op, mlir::TypeRange args,
                                    const LoopStmt &s,
                                    llvm::ArrayRef<LoopReduction> reduced) {
  mlir::OpBuilder::InsertionGuard guard(builder);
  if (s.where) {
    beginLoopRegion(op.getWhere(), args, s.binders, s.range);
    if (TValue cond = lower(s.where.get()))
      builder.create<graph::YieldOp>(loc(s.where->range), cond.value);
    scopes.pop_back();
  }
  beginLoopRegion(op.getBody(), args, s.binders, s.range);
  // Inside the body a reduced local is the iteration's contribution,
  // starting at the identity; the body yields it.
  std::vector<std::string> names;
  for (const LoopReduction &r : reduced) {
    names.push_back(r.name);
    declare(r.name, Var{Var::Kind::Value,
                        {identity(r.kind, r.type.kind == K::Int, loc(s.range)),
                         r.type},
                        {}});
  }
  lowerBlock(s.body);
  builder.create<graph::YieldOp>(loc(s.range), valuesOf(names));
  scopes.pop_back();
}

mlir::Value AlgorithmGen::identity(graph::ReductionKind kind, bool isInt,
                                   mlir::Location l) {
  if (isInt) {
    int64_t v = kind == graph::ReductionKind::Min
                    ? std::numeric_limits<int64_t>::max()
                : kind == graph::ReductionKind::Max
                    ? std::numeric_limits<int64_t>::min()
                    : 0;
    return builder.create<mlir::arith::ConstantIntOp>(l, v, 64);
  }
  double inf = std::numeric_limits<double>::infinity();
  double v = kind == graph::ReductionKind::Min   ? inf
             : kind == graph::ReductionKind::Max ? -inf
                                                 : 0.0;
  return builder.create<mlir::arith::ConstantFloatOp>(
      l, llvm::APFloat(v), builder.getF64Type());
}

std::vector<LoopReduction>
AlgorithmGen::loopReductions(const VerticesStmt &v) {
  std::vector<LoopReduction> reduced;
  for (const AssignStmt *a : ast::outerReductions(v.body)) {
    Var *var = lookupVar(a->target);
    if (!var || var->kind != Var::Kind::Value ||
        (var->value.type.kind != K::Int && var->value.type.kind != K::Float))
      continue;
    if (llvm::any_of(reduced, [&](const LoopReduction &r) {
          return r.name == a->target;
        }))
      continue;
    graph::ReductionKind kind = a->op == AssignOp::Sub
                                    ? graph::ReductionKind::Add
                                    : reductionOf(a->op);
    reduced.push_back({a->target, kind, var->value.type});
  }
  return reduced;
}

void AlgorithmGen::lowerVertices(const VerticesStmt &v) {
  mlir::Location l = loc(v.range);
  mlir::StringAttr label =
      v.label.empty() ? mlir::StringAttr() : builder.getStringAttr(v.label);
  std::vector<LoopReduction> reduced = loopReductions(v);
  std::vector<std::string> names;
  llvm::SmallVector<mlir::Attribute> kinds;
  for (const LoopReduction &r : reduced) {
    names.push_back(r.name);
    kinds.push_back(graph::ReductionKindAttr::get(ctx, r.kind));
  }
  llvm::SmallVector<mlir::Value> inits = valuesOf(names);
  auto op = builder.create<graph::VerticesOp>(
      l, mlir::ValueRange(inits).getTypes(), inits, label,
      builder.getArrayAttr(kinds), graph::ScheduleAttr());
  mlir::Type args[] = {builder.getI32Type()};
  lowerLoopRegions(op, args, v, reduced);
  rebind(names, op.getResults());
}

void AlgorithmGen::lowerEdges(const EdgesStmt &e) {
  mlir::Location l = loc(e.range);
  mlir::Value from;
  if (!e.from.empty()) {
    Var *f = lookupVar(e.from);
    if (!f || f->kind != Var::Kind::Value ||
        f->value.type.kind != K::Frontier) {
      error(e.fromRange) << "not supported yet: edges from '" << e.from
                         << "' in an algorithm";
      return;
    }
    from = f->value.value;
  }
  mlir::StringAttr label =
      e.label.empty() ? mlir::StringAttr() : builder.getStringAttr(e.label);
  llvm::SmallVector<mlir::Type> results;
  if (!e.result.empty())
    results.push_back(graph::FrontierType::get(ctx));
  auto op = builder.create<graph::EdgesOp>(l, mlir::TypeRange(results), from,
                                           label, graph::ScheduleAttr());
  llvm::SmallVector<mlir::Type> args = {builder.getI32Type(),
                                        builder.getI32Type()};
  if (e.binders.size() == 3)
    args.push_back(builder.getF64Type());
  lowerLoopRegions(op, args, e);
  if (e.result.empty())
    return;
  TValue changed{op.getChanged(), ast::Type::of(K::Frontier)};
  if (lookupVar(e.result))
    assign(e.result, changed.value);
  else
    declare(e.result, Var{Var::Kind::Value, changed, {}});
}

TValue AlgorithmGen::lowerVertexSet(const Expr *e) {
  if (!e)
    return {};
  mlir::Location l = loc(e->range);
  const ast::Type frontier = ast::Type::of(K::Frontier);
  auto *name = llvm::dyn_cast<NameExpr>(e);
  if (name && name->name == "all" && !lookupVar("all") &&
      !globals.lookup("all"))
    return {builder.create<graph::FrontierAllOp>(l, valueType(frontier)),
            frontier};
  llvm::SmallVector<mlir::Value> vertices;
  if (auto *list = llvm::dyn_cast<ListExpr>(e)) {
    for (const ExprPtr &x : list->elements) {
      mlir::Value v = toVertex(lower(x.get()), x->range);
      if (!v)
        return {};
      vertices.push_back(v);
    }
    return {
        builder.create<graph::FrontierOfOp>(l, valueType(frontier), vertices),
        frontier};
  }
  if (e->type.kind == K::List) {
    // A constant list of ids (a global `let`).
    std::optional<ConstValue> ids = tryConstant(*e);
    if (!ids || ids->kind != ConstValue::Kind::List) {
      error(e->range) << "not supported yet: a frontier from a list that is "
                         "not written out or constant";
      return {};
    }
    for (const ConstValue &id : ids->list) {
      mlir::Value v = toVertex(lowerConst(id, e->range), e->range);
      if (!v)
        return {};
      vertices.push_back(v);
    }
    return {
        builder.create<graph::FrontierOfOp>(l, valueType(frontier), vertices),
        frontier};
  }
  TValue x = lower(e);
  if (!x || x.type.kind == K::Frontier)
    return x;
  mlir::Value v = toVertex(x, e->range);
  if (!v)
    return {};
  return {builder.create<graph::FrontierOfOp>(l, valueType(frontier),
                                              mlir::ValueRange{v}),
          frontier};
}
