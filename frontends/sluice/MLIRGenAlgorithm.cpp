//===- MLIRGenAlgorithm.cpp - Lowering algorithms to the graph dialect ----===//
//
// Algorithms become graph.algorithm, what their schedules ask for
// attributes of it (resolved per loop by graph-attach-schedule), `run` jobs
// graph.job. An algorithm's body is lowered statement by statement:
//
//   - parameters: the body's block arguments; locals and frontiers: SSA
//     values that assignments rebind. A `repeat` (scf.for), `while`
//     (scf.while) or `if` (scf.if) carries the locals and frontiers declared
//     outside it that its blocks assign, as loop-carried values or results.
//   - `vertex x: T = E` -> graph.property @x; `x[v]` -> graph.prop.get;
//     `x[v] = E` -> graph.prop.set; `x[v] op= E` -> graph.prop.reduce.
//   - `vertices(v)` and `edges(src, dst[, w])` -> graph.vertices and
//     graph.edges: the binders are the block arguments of the `where` and
//     body regions, the label is kept, `from F` is an operand and `F =
//     edges ...` the loop's result frontier.
//   - frontiers from `all`, a vertex or a list -> graph.frontier.all / .of;
//     `size(F)` -> graph.frontier.size.
//   - expressions: ExprGen (MLIRGenExpr.h) with the graph ops.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/MLIRGenAlgorithm.h"

#include "frontends/sluice/MLIRGenAlgorithmInternal.h"

using namespace sluice;
using namespace sluice::ast;
using namespace sluice::mlirgen;
using K = ast::Type::Kind;

/// The Sluice type a written scalar type names (unknown for the others).
ast::Type mlirgen::typeOf(const TypeRef &ref) {
  if (ref.name == "i64")
    return ast::Type::of(K::Int);
  if (ref.name == "f64")
    return ast::Type::of(K::Float);
  if (ref.name == "f32")
    return ast::Type::of(K::Float32);
  if (ref.name == "bool")
    return ast::Type::of(K::Bool);
  if (ref.name == "vertex")
    return ast::Type::of(K::Vertex);
  return ast::Type::unknown();
}

/// "f64", "[i64]": a written type as written.
std::string mlirgen::spellType(const TypeRef &ref) {
  if (!ref.name.empty() || !ref.element)
    return ref.name;
  return "[" + spellType(*ref.element) + "]";
}

//===----------------------------------------------------------------------===//
// Which declarations are ours
//===----------------------------------------------------------------------===//

static const AlgorithmDecl *findAlgorithm(const Program &program,
                                          llvm::StringRef name) {
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *a = llvm::dyn_cast<AlgorithmDecl>(d.get());
          a && a->name == name)
        return a;
  return nullptr;
}

bool sluice::isAlgorithmDecl(const Program &program, const Decl &decl) {
  switch (decl.getKind()) {
  case Decl::Kind::Algorithm:
    return true;
  case Decl::Kind::Schedule:
    return findAlgorithm(program, decl.name) != nullptr;
  case Decl::Kind::Job:
    return llvm::cast<JobDecl>(decl).action == "run";
  default:
    return false;
  }
}

bool sluice::isAlgorithmGraph(const Program &program, llvm::StringRef name) {
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *a = llvm::dyn_cast<AlgorithmDecl>(d.get());
          a && a->graph == name)
        return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

mlir::LogicalResult AlgorithmGen::run() {
  llvm::StringMap<graph::AlgorithmOp> algorithms;
  std::vector<const ScheduleDecl *> schedules;
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls) {
      if (!isAlgorithmDecl(program, *d))
        continue;
      builder.setInsertionPointToEnd(module.getBody());
      if (auto *a = llvm::dyn_cast<AlgorithmDecl>(d.get())) {
        size_t before = module.getBody()->getOperations().size();
        lowerAlgorithm(*a);
        if (module.getBody()->getOperations().size() > before)
          algorithms[a->name] =
              llvm::cast<graph::AlgorithmOp>(module.getBody()->back());
      } else if (auto *s = llvm::dyn_cast<ScheduleDecl>(d.get())) {
        schedules.push_back(s);
      } else if (auto *j = llvm::dyn_cast<JobDecl>(d.get())) {
        lowerJob(*j);
      }
    }
  for (const ScheduleDecl *s : schedules)
    if (graph::AlgorithmOp op = algorithms.lookup(s->name))
      applySchedule(op, *s);
  return mlir::failure(failed);
}

void AlgorithmGen::lowerAlgorithm(const AlgorithmDecl &a) {
  scopes.clear();
  scopes.emplace_back();
  outputs.clear();
  bool failedBefore = failed;
  failed = false;

  llvm::SmallVector<mlir::Attribute> names, defaults;
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<ast::Type> astTypes;
  for (const Param &p : a.params) {
    ast::Type t = typeOf(p.type);
    mlir::Type mt = t.kind == K::Vertex ? mlir::Type() : valueType(t);
    if (!mt) {
      error(p.range) << "not supported yet: algorithm parameter '" << p.name
                     << "' of type " << spellType(p.type)
                     << " (algorithm parameters are f64, i64 or bool)";
      continue;
    }
    mlir::Attribute def = builder.getUnitAttr();
    if (p.defaultValue)
      if (auto v = constant(*p.defaultValue))
        if (mlir::Attribute attr = scalarAttr(*v, mt, p.defaultValue->range))
          def = attr;
    names.push_back(builder.getStringAttr(p.name));
    defaults.push_back(def);
    types.push_back(mt);
    astTypes.push_back(t);
  }
  if (failed)
    return;
  auto op = builder.create<graph::AlgorithmOp>(
      loc(a.range), builder.getStringAttr(a.name),
      mlir::FlatSymbolRefAttr::get(ctx, a.graph), builder.getArrayAttr(names),
      builder.getArrayAttr(defaults), builder.getArrayAttr({}),
      /*target=*/graph::TargetAttr(), /*threads=*/mlir::IntegerAttr(),
      /*loop_defaults=*/graph::ScheduleAttr(),
      /*label_schedules=*/mlir::DictionaryAttr(),
      /*schedule=*/graph::AlgorithmScheduleAttr());
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Block *body = builder.createBlock(
      &op.getBody(), {}, types,
      llvm::SmallVector<mlir::Location>(types.size(), loc(a.range)));
  for (auto [name, arg, t] : llvm::zip(names, body->getArguments(), astTypes))
    declare(llvm::cast<mlir::StringAttr>(name).getValue(),
            Var{Var::Kind::Value, {arg, t}, {}});
  lowerBlock(a.body);
  op.setOutputsAttr(builder.getArrayAttr(outputs));
  if (failed)
    op.erase();
  failed = failed || failedBefore;
}

graph::ScheduleAttr AlgorithmGen::loopSchedule(llvm::ArrayRef<Prop> props,
                                               const SourceRange &at) {
  std::optional<graph::Direction> direction;
  std::optional<graph::Parallel> parallel;
  std::optional<int64_t> chunk;
  graph::Tile tile;
  std::optional<graph::FrontierKind> frontier;
  mlir::FloatAttr delta;
  std::optional<graph::EdgeFormat> format;
  std::optional<graph::VertexOrder> order;
  std::optional<graph::Fusion> fusion;
  mlir::FloatAttr alpha, beta; // hybrid(alpha, beta)
  // Sema checked the keys and words against GraphSchema.
  for (const Prop &p : props) {
    auto *word = llvm::dyn_cast_or_null<NameExpr>(p.value.get());
    if (p.name == graph::kDirectionKey && word) {
      direction = graph::symbolizeDirection(word->name);
    } else if (p.name == graph::kDirectionKey) {
      // hybrid(alpha, beta)
      auto *call = llvm::dyn_cast_or_null<CallExpr>(p.value.get());
      if (call && call->args.size() == 2) {
        direction = graph::Direction::Hybrid;
        auto number = [&](const Expr &e) -> mlir::FloatAttr {
          if (auto v = constant(e))
            if (auto x = v->asNumber())
              return builder.getF64FloatAttr(*x);
          return {};
        };
        alpha = number(*call->args[0].value);
        beta = number(*call->args[1].value);
      }
    } else if (p.name == graph::kFrontierKey && word) {
      frontier = graph::symbolizeFrontierKind(word->name);
    } else if (p.name == graph::kFrontierKey) {
      // buckets(delta)
      auto *call = llvm::dyn_cast_or_null<CallExpr>(p.value.get());
      if (call && call->args.size() == 1) {
        frontier = graph::FrontierKind::Buckets;
        if (auto d = constant(*call->args[0].value))
          if (auto x = d->asNumber())
            delta = builder.getF64FloatAttr(*x);
      }
    } else if (p.name == graph::kFormatKey && word) {
      format = graph::symbolizeEdgeFormat(word->name);
    } else if (p.name == graph::kOrderKey && word) {
      order = graph::symbolizeVertexOrder(word->name);
    } else if (p.name == graph::kFusionKey && word) {
      fusion = graph::symbolizeFusion(word->name);
    } else if (p.name == graph::kParallelKey) {
      auto *call = llvm::dyn_cast_or_null<CallExpr>(p.value.get());
      if (word) {
        parallel = graph::symbolizeParallel(word->name);
      } else if (call && call->args.size() == 1) {
        parallel = graph::Parallel::Dynamic;
        if (auto n = constant(*call->args[0].value))
          chunk = n->i;
      }
    } else if (p.name == graph::kTileKey && p.value) {
      if (word && word->name == "auto")
        tile = graph::Tile::automatic();
      else if (auto n = constant(*p.value))
        tile = graph::Tile::of(n->i);
    }
  }
  return graph::ScheduleAttr::getChecked(
      [&] { return error(at); }, ctx, direction, parallel, chunk, tile,
      frontier, delta, format, order, alpha, beta, fusion);
}

void AlgorithmGen::applySchedule(graph::AlgorithmOp op, const ScheduleDecl &s) {
  for (const Prop &p : s.props) {
    if (p.name == "target") {
      auto *word = llvm::dyn_cast_or_null<NameExpr>(p.value.get());
      if (auto t = word ? graph::symbolizeTarget(word->name) : std::nullopt)
        op.setTargetAttr(graph::TargetAttr::get(ctx, *t));
    } else if (p.name == "threads" && p.value) {
      if (auto v = constant(*p.value))
        op.setThreadsAttr(builder.getI64IntegerAttr(v->i));
    }
  }
  graph::ScheduleAttr defaults = loopSchedule(s.props, s.nameRange);
  if (defaults && !defaults.isEmpty())
    op.setLoopDefaultsAttr(defaults);
  llvm::SmallVector<mlir::NamedAttribute> labelled;
  for (const auto &l : s.labeled)
    if (graph::ScheduleAttr schedule = loopSchedule(l.props, l.labelRange))
      labelled.push_back(builder.getNamedAttr(l.label, schedule));
  if (!labelled.empty())
    op.setLabelSchedulesAttr(builder.getDictionaryAttr(labelled));
}

void AlgorithmGen::lowerJob(const JobDecl &j) {
  const AlgorithmDecl *a = findAlgorithm(program, j.subject);
  if (!a) {
    error(j.subjectRange) << "'" << j.subject << "' is not an algorithm";
    return;
  }
  auto op = builder.create<graph::JobOp>(
      loc(j.range), builder.getStringAttr(j.name),
      mlir::FlatSymbolRefAttr::get(ctx, j.subject),
      builder.getStringAttr(j.target), nullptr, nullptr, nullptr,
      builder.getDictionaryAttr({}));
  llvm::SmallVector<mlir::NamedAttribute> params;
  for (const Prop &p : j.props) {
    if (!p.value)
      continue;
    auto v = constant(*p.value);
    if (!v)
      continue;
    if (p.name == "seed" || p.name == "threads") {
      op->setAttr(p.name, builder.getI64IntegerAttr(v->i));
      continue;
    }
    if (p.name == "output") {
      op.setOutputAttr(builder.getStringAttr(v->s));
      continue;
    }
    // Sema checked that the other options are parameters of the algorithm.
    for (const Param &param : a->params)
      if (param.name == p.name)
        if (mlir::Type t = valueType(typeOf(param.type)))
          if (mlir::Attribute attr = scalarAttr(*v, t, p.value->range))
            params.push_back(builder.getNamedAttr(p.name, attr));
  }
  op.setParamsAttr(builder.getDictionaryAttr(params));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

std::optional<TValue> AlgorithmGen::lookupName(const NameExpr &n) {
  Var *var = lookupVar(n.name);
  if (!var)
    return std::nullopt;
  if (var->kind == Var::Kind::Value)
    return var->value;
  error(n.range) << "vertex property '" << n.name
                 << "' must be indexed by a vertex, e.g. '" << n.name << "[v]'";
  return TValue();
}

mlir::Type AlgorithmGen::valueType(const ast::Type &t) {
  switch (t.kind) {
  case K::Int:
    return builder.getI64Type();
  case K::Float:
    return builder.getF64Type();
  case K::Float32:
    return builder.getF32Type();
  case K::Bool:
    return builder.getI1Type();
  case K::Vertex:
    return builder.getI32Type();
  case K::Frontier:
    return graph::FrontierType::get(ctx);
  default:
    return {};
  }
}

mlir::Value AlgorithmGen::createQuery(GraphQuery q, mlir::Type type,
                                      mlir::ValueRange args, mlir::Location l) {
  switch (q) {
  case GraphQuery::NumVertices:
    return builder.create<graph::NumVerticesOp>(l, type);
  case GraphQuery::NumEdges:
    return builder.create<graph::NumEdgesOp>(l, type);
  case GraphQuery::Degree:
    return builder.create<graph::DegreeOp>(l, type, args[0]);
  case GraphQuery::Label:
    return builder.create<graph::LabelOp>(l, type, args[0]);
  case GraphQuery::HasEdge:
    return builder.create<graph::HasEdgeOp>(l, type, args[0], args[1]);
  case GraphQuery::EdgeWeight:
    return builder.create<graph::EdgeWeightOp>(l, type, args[0], args[1]);
  case GraphQuery::EdgeLabel:
    return builder.create<graph::EdgeLabelOp>(l, type, args[0], args[1]);
  case GraphQuery::Random:
    return builder.create<graph::RandomOp>(l, type);
  case GraphQuery::VertexOf:
    return builder.create<graph::VertexOfOp>(l, type, args[0]);
  case GraphQuery::IntDiv:
    return builder.create<graph::IntDivOp>(l, type, args[0], args[1]);
  case GraphQuery::IntRem:
    return builder.create<graph::IntRemOp>(l, type, args[0], args[1]);
  case GraphQuery::OriginalId:
    return builder.create<graph::OriginalIdOp>(l, type, args[0]);
  case GraphQuery::CommonNeighbors:
  case GraphQuery::CommonNeighborsBelow:
    return builder.create<graph::CommonNeighborsOp>(
        l, type, args[0], args[1], q == GraphQuery::CommonNeighborsBelow);
  }
  llvm_unreachable("unknown graph query");
}

mlir::Value AlgorithmGen::lowerSize(TValue x, const CallExpr &call) {
  if (x.type.kind != K::Frontier) {
    error(call.range) << "not supported yet: '" << call.callee << "' of a "
                      << x.type.str() << " in an algorithm";
    return {};
  }
  return builder.create<graph::FrontierSizeOp>(loc(call.range),
                                               builder.getI64Type(), x.value);
}

TValue AlgorithmGen::lowerIndex(const IndexExpr &i) {
  auto *base = llvm::dyn_cast<NameExpr>(i.base.get());
  Var *var = base ? lookupVar(base->name) : nullptr;
  if (var && var->kind == Var::Kind::Property) {
    mlir::Value vertex = toVertex(lower(i.index.get()), i.index->range);
    if (!vertex)
      return {};
    return {builder.create<graph::PropGetOp>(
                loc(i.range), valueType(var->element),
                mlir::FlatSymbolRefAttr::get(ctx, base->name), vertex),
            var->element};
  }
  if (!var)
    if (auto v = tryConstant(i))
      return lowerConst(*v, i.range);
  error(i.range) << "not supported yet: indexing a "
                 << (i.base ? i.base->type.str() : std::string("value"))
                 << " in an algorithm";
  return {};
}

TValue AlgorithmGen::lowerCompareSwap(const CallExpr &c) {
  // Sema checked: three arguments, the first `p[v]` of an i64 or vertex
  // property, the others of (or convertible to) its type.
  auto *target = llvm::cast<IndexExpr>(c.args[0].value.get());
  auto *base = llvm::cast<NameExpr>(target->base.get());
  Var *var = lookupVar(base->name);
  if (!var || var->kind != Var::Kind::Property) {
    error(target->range) << "not supported yet: compare_swap on '" << base->name
                         << "'";
    return {};
  }
  mlir::Value vertex =
      toVertex(lower(target->index.get()), target->index->range);
  mlir::Value expected = convert(lower(c.args[1].value.get()), var->element,
                                 c.args[1].value->range);
  mlir::Value desired = convert(lower(c.args[2].value.get()), var->element,
                                c.args[2].value->range);
  if (!vertex || !expected || !desired)
    return {};
  return {builder.create<graph::CompareSwapOp>(
              loc(c.range), builder.getI1Type(),
              mlir::FlatSymbolRefAttr::get(ctx, base->name), vertex, expected,
              desired),
          ast::Type::of(ast::Type::Kind::Bool)};
}

mlir::LogicalResult sluice::mlirGenAlgorithms(mlir::ModuleOp module,
                                              const Program &program,
                                              const ConstEnv &globals) {
  return AlgorithmGen(module, program, globals).run();
}
