//===- MLIRGenWalk.cpp - Lowering walks to the walk dialect ---------------===//
//
// Graphs (of walks, of algorithms, unused) become walk.graph, walks
// walk.walk (their schedule as attributes), walk jobs walk.job. The
// expressions of a walk's items are lowered into the regions of walk.walk
// by ExprGen (MLIRGenExpr.h: arith, math and scf), with the walk ops for
// graph fields and walker state:
//
//   - Sluice types as ExprGen's, and [i64] parameter -> !walk.list; an i64
//     used as a vertex goes through walk.vertex_of.
//   - Walk `let`s are lowered where they are used (they are pure).
//   - `update` statements: `let` -> an SSA value, `if` -> scf.if, `x op= e`
//     -> walk.state.get / walk.state.set.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/MLIRGenWalk.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "frontends/sluice/Frontend.h"
#include "frontends/sluice/MLIRGenAlgorithm.h"
#include "frontends/sluice/MLIRGenDemand.h"
#include "frontends/sluice/MLIRGenExpr.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

using namespace sluice;
using namespace sluice::ast;
using K = ast::Type::Kind;

namespace {

/// The ABI slot types a walk parameter or state variable may have.
mlir::Type slotType(mlir::MLIRContext *ctx, const ast::Type &t) {
  switch (t.kind) {
  case K::Int:
    return mlir::IntegerType::get(ctx, 64);
  case K::Float:
    return mlir::Float64Type::get(ctx);
  case K::Bool:
    return mlir::IntegerType::get(ctx, 1);
  case K::List:
    if (t.element && t.element->kind == K::Int)
      return walk::ListType::get(ctx);
    return {};
  default:
    return {};
  }
}

class WalkGen : public ExprGen {
public:
  WalkGen(mlir::ModuleOp module, const Program &program,
          const ConstEnv &globals)
      : ExprGen(module.getContext(), globals), module(module),
        program(program) {}

  mlir::LogicalResult run();

private:
  void lowerGraph(const GraphDecl &g);
  void lowerWalk(const WalkDecl &w);
  void lowerJob(const JobDecl &j);
  void applySchedule(walk::WalkOp op, const ScheduleDecl &s);

  std::string resolvePath(const SourceRange &where, llvm::StringRef path);
  mlir::Attribute paramAttr(const ConstValue &v, mlir::Type type,
                            const SourceRange &r);

  // Expressions (ExprGen).
  llvm::StringRef owner() const override { return "a walk"; }
  std::optional<TValue> lookupName(const NameExpr &n) override;
  std::optional<TValue> lookupLateName(const NameExpr &n) override;
  mlir::Type valueType(const ast::Type &t) override;
  mlir::Value createQuery(GraphQuery q, mlir::Type type, mlir::ValueRange args,
                          mlir::Location l) override;
  mlir::Value lowerSize(TValue x, const CallExpr &call) override;
  TValue lowerIndex(const IndexExpr &i) override;

  // Statements (update).
  void lowerBlock(const Block &block);
  void lowerStmt(const Stmt &s);

  /// Creates the single block of `region` with `args` and sets the
  /// insertion point into it.
  mlir::Block *beginRegion(mlir::Region &region, mlir::TypeRange args,
                           const SourceRange &r);

  mlir::ModuleOp module;
  const Program &program;

  // The walk being lowered.
  walk::WalkOp current;
  const WalkDecl *walkDecl = nullptr;
  llvm::StringMap<const WalkItem *> lets;   ///< walk lets visible now
  llvm::StringMap<int64_t> params;          ///< name -> slot
  llvm::StringMap<int64_t> states;          ///< name -> slot (when usable)
  std::vector<ast::Type> paramTypes, stateTypes;
  std::vector<std::string> paramNames, stateNames;
  /// Binders and update `let`s, innermost scope last.
  std::vector<llvm::StringMap<TValue>> locals;
  /// In the init region: the values of the state variables set so far.
  llvm::StringMap<TValue> initValues;
  bool inInit = false;
  bool stepVisible = false;
  std::vector<std::string> letStack; ///< lets being lowered (no recursion)
};

} // namespace

//===----------------------------------------------------------------------===//
// Which declarations are ours
//===----------------------------------------------------------------------===//

static const WalkDecl *findWalk(const Program &program, llvm::StringRef name) {
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *w = llvm::dyn_cast<WalkDecl>(d.get()); w && w->name == name)
        return w;
  return nullptr;
}

bool sluice::isWalkDecl(const Program &program, const Decl &decl) {
  switch (decl.getKind()) {
  case Decl::Kind::Walk:
    return true;
  case Decl::Kind::Graph:
    // The graph declaration of walks and algorithms alike, and of a graph
    // nothing uses yet; a graph only demands read stays out (lowerDemands
    // reads it from the AST).
    for (const auto &m : program.modules)
      for (const DeclPtr &d : m->decls)
        if (auto *w = llvm::dyn_cast<WalkDecl>(d.get());
            w && w->graph == decl.name)
          return true;
    return isAlgorithmGraph(program, decl.name) ||
           !isDemandGraph(program, decl);
  case Decl::Kind::Schedule:
    return findWalk(program, decl.name) != nullptr;
  case Decl::Kind::Job:
    return llvm::cast<JobDecl>(decl).action == "walk";
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

mlir::LogicalResult WalkGen::run() {
  builder.setInsertionPointToEnd(module.getBody());
  llvm::StringMap<walk::WalkOp> walks;
  std::vector<const ScheduleDecl *> schedules;
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls) {
      if (!isWalkDecl(program, *d))
        continue;
      builder.setInsertionPointToEnd(module.getBody());
      if (auto *g = llvm::dyn_cast<GraphDecl>(d.get()))
        lowerGraph(*g);
      else if (auto *w = llvm::dyn_cast<WalkDecl>(d.get())) {
        lowerWalk(*w);
        if (current)
          walks[w->name] = current;
        current = {};
      } else if (auto *s = llvm::dyn_cast<ScheduleDecl>(d.get()))
        schedules.push_back(s);
      else if (auto *j = llvm::dyn_cast<JobDecl>(d.get()))
        lowerJob(*j);
    }
  for (const ScheduleDecl *s : schedules)
    if (walk::WalkOp op = walks.lookup(s->name))
      applySchedule(op, *s);
  return mlir::failure(failed);
}

std::string WalkGen::resolvePath(const SourceRange &where,
                                 llvm::StringRef path) {
  if (llvm::sys::path::is_absolute(path))
    return path.str();
  llvm::SmallString<256> full =
      llvm::sys::path::parent_path(where.begin.fileName());
  llvm::sys::path::append(full, path);
  return std::string(full);
}

void WalkGen::lowerGraph(const GraphDecl &g) {
  const CallExpr *call = g.source.get();
  if (!call || call->callee != "load") {
    error(g.range) << "not supported yet: lowering graph '" << g.name
                   << "' (only load(...) graphs)";
    return;
  }
  std::string path, labels, edgeLabels;
  walk::GraphFormat format = walk::GraphFormat::Snap;
  walk::Duplicates duplicates = walk::Duplicates::Merge;
  walk::SelfLoops selfLoops = walk::SelfLoops::Drop;
  bool undirected = false, weighted = false, sawPath = false;
  // The op is located at the path: what a failure to read the graph is
  // about (the declaration when the path is not a literal).
  SourceRange where = g.range;
  for (const Arg &a : call->args) {
    if (!a.value)
      continue;
    if (a.name.empty()) {
      if (!sawPath) {
        sawPath = true;
        if (auto v = constant(*a.value)) {
          path = resolvePath(g.range, v->s);
          if (llvm::isa<StringLitExpr>(a.value.get()))
            where = a.value->range;
        }
      } else if (auto *flag = llvm::dyn_cast<NameExpr>(a.value.get())) {
        undirected = flag->name == "undirected";
      }
      continue;
    }
    auto *word = llvm::dyn_cast<NameExpr>(a.value.get());
    if (a.name == "format") {
      if (std::optional<std::string> w = bareWord(a.value.get()))
        format = walk::symbolizeGraphFormat(*w).value_or(format);
    } else if (a.name == "duplicates") {
      if (word)
        duplicates = walk::symbolizeDuplicates(word->name).value_or(duplicates);
    } else if (a.name == "self_loops") {
      if (word)
        selfLoops = walk::symbolizeSelfLoops(word->name).value_or(selfLoops);
    } else if (a.name == "weighted") {
      if (auto v = constant(*a.value))
        weighted = v->b;
    } else if (a.name == "labels" || a.name == "edge_labels") {
      if (auto v = constant(*a.value))
        (a.name == "labels" ? labels : edgeLabels) =
            resolvePath(a.value->range, v->s);
    }
  }
  auto op = builder.create<walk::GraphOp>(
      loc(where), g.name, path, format, undirected, weighted, duplicates,
      selfLoops, labels.empty() ? nullptr : builder.getStringAttr(labels),
      edgeLabels.empty() ? nullptr : builder.getStringAttr(edgeLabels));
  (void)op;
}

mlir::Attribute WalkGen::paramAttr(const ConstValue &v, mlir::Type type,
                                   const SourceRange &r) {
  if (!llvm::isa<walk::ListType>(type) || v.kind != ConstValue::Kind::List)
    return scalarAttr(v, type, r);
  std::vector<int64_t> xs;
  for (const ConstValue &x : v.list) {
    if (x.kind != ConstValue::Kind::Int) {
      error(r) << "expected a list of i64, got " << v.str();
      return {};
    }
    xs.push_back(x.i);
  }
  return builder.getDenseI64ArrayAttr(xs);
}

mlir::Block *WalkGen::beginRegion(mlir::Region &region, mlir::TypeRange args,
                                  const SourceRange &r) {
  mlir::Block *block = new mlir::Block();
  region.push_back(block);
  for (mlir::Type t : args)
    block->addArgument(t, loc(r));
  builder.setInsertionPointToStart(block);
  return block;
}

void WalkGen::lowerWalk(const WalkDecl &w) {
  walkDecl = &w;
  lets.clear();
  params.clear();
  states.clear();
  paramTypes.clear();
  stateTypes.clear();
  paramNames.clear();
  stateNames.clear();
  locals.clear();
  initValues.clear();

  // Parameters.
  llvm::SmallVector<mlir::Attribute> pNames, pTypes, pDefaults;
  for (const Param &p : w.params) {
    // Sema typed the parameter; its TypeRef resolves like this.
    ast::Type t;
    if (p.type.name == "i64")
      t = ast::Type::of(K::Int);
    else if (p.type.name == "f64")
      t = ast::Type::of(K::Float);
    else if (p.type.name == "bool")
      t = ast::Type::of(K::Bool);
    else if (p.type.name.empty() && p.type.element &&
             p.type.element->name == "i64")
      t = ast::Type::list(ast::Type::of(K::Int));
    mlir::Type mt = slotType(ctx, t);
    if (!mt) {
      error(p.range) << "not supported yet: walk parameter '" << p.name
                     << "' of this type (walk parameters are f64, i64, bool "
                        "or [i64])";
      continue;
    }
    mlir::Attribute def = builder.getUnitAttr();
    if (p.defaultValue)
      if (auto v = constant(*p.defaultValue))
        if (auto a = paramAttr(*v, mt, p.defaultValue->range))
          def = a;
    params[p.name] = static_cast<int64_t>(paramTypes.size());
    paramTypes.push_back(t);
    paramNames.push_back(p.name);
    pNames.push_back(builder.getStringAttr(p.name));
    pTypes.push_back(mlir::TypeAttr::get(mt));
    pDefaults.push_back(def);
  }
  // State variables.
  llvm::SmallVector<mlir::Attribute> sNames, sTypes;
  llvm::SmallVector<mlir::Type> sMlirTypes;
  for (const WalkItem &item : w.items) {
    if (item.kind != WalkItem::Kind::State)
      continue;
    ast::Type t = item.value ? item.value->type : ast::Type();
    if (item.type) {
      if (item.type->name == "i64")
        t = ast::Type::of(K::Int);
      else if (item.type->name == "f64")
        t = ast::Type::of(K::Float);
      else if (item.type->name == "bool")
        t = ast::Type::of(K::Bool);
    }
    mlir::Type mt = slotType(ctx, t);
    if (!mt || llvm::isa<walk::ListType>(mt)) {
      error(item.nameRange) << "not supported yet: state variable '"
                            << item.name
                            << "' of this type (state is f64, i64 or bool)";
      continue;
    }
    stateTypes.push_back(t);
    stateNames.push_back(item.name);
    sNames.push_back(builder.getStringAttr(item.name));
    sTypes.push_back(mlir::TypeAttr::get(mt));
    sMlirTypes.push_back(mt);
  }
  if (failed)
    return;

  const WalkItem *weightItem = nullptr;
  for (const WalkItem &item : w.items)
    if (item.kind == WalkItem::Kind::WeightFn)
      weightItem = &item;
  int64_t order = 1;
  if (weightItem && weightItem->binders.size() == 4 &&
      weightItem->binders[0].name != "_")
    order = 2;

  auto op = builder.create<walk::WalkOp>(
      loc(w.range), builder.getStringAttr(w.name),
      mlir::FlatSymbolRefAttr::get(ctx, w.graph),
      builder.getI64IntegerAttr(order), builder.getArrayAttr(pNames),
      builder.getArrayAttr(pTypes), builder.getArrayAttr(pDefaults),
      builder.getArrayAttr(sNames), builder.getArrayAttr(sTypes),
      /*sampler=*/walk::SamplerAttr(), /*target=*/walk::TargetAttr(),
      /*threads=*/mlir::IntegerAttr(),
      /*walkers_per_thread=*/mlir::IntegerAttr(),
      /*weight_class=*/walk::WeightClassAttr(),
      /*depends_on=*/mlir::ArrayAttr(),
      /*may_be_zero=*/mlir::UnitAttr(), /*unbounded=*/mlir::UnitAttr(),
      /*assumptions=*/mlir::ArrayAttr(), /*schedule=*/walk::ScheduleAttr());
  current = op;
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Type i32 = builder.getI32Type(), i64 = builder.getI64Type(),
             f64 = builder.getF64Type();
  const ast::Type vertex = ast::Type::of(K::Vertex);

  // Setup items in order: lets and states become visible one by one.
  mlir::Block *initBlock = nullptr;
  for (const WalkItem &item : w.items) {
    switch (item.kind) {
    case WalkItem::Kind::Let:
      lets[item.name] = &item;
      break;
    case WalkItem::Kind::State: {
      if (!initBlock)
        initBlock = beginRegion(op.getInit(), {}, w.range);
      builder.setInsertionPointToEnd(initBlock);
      inInit = true;
      TValue v = lower(item.value.get());
      inInit = false;
      if (!v)
        break;
      size_t slot = initValues.size();
      if (slot < stateTypes.size())
        initValues[item.name] = {convert(v, stateTypes[slot], item.range),
                                 stateTypes[slot]};
      break;
    }
    case WalkItem::Kind::Length: {
      beginRegion(op.getLength(), {}, item.range);
      TValue v = lower(item.value.get());
      if (v)
        builder.create<walk::YieldOp>(loc(item.range),
                                      mlir::ValueRange{v.value});
      break;
    }
    case WalkItem::Kind::StopProbability: {
      beginRegion(op.getStopProbability(), {}, item.range);
      TValue v = lower(item.value.get());
      if (v)
        builder.create<walk::YieldOp>(loc(item.range),
                                      mlir::ValueRange{toF64(v, item.range)});
      break;
    }
    case WalkItem::Kind::Start: {
      const Expr *e = item.value.get();
      if (auto *n = llvm::dyn_cast_or_null<NameExpr>(e);
          n && n->name == "all" && !params.count("all") && !lets.count("all"))
        break; // every vertex: no region
      beginRegion(op.getStart(), {}, item.range);
      llvm::SmallVector<mlir::Value> ids;
      if (auto *list = llvm::dyn_cast_or_null<ListExpr>(e)) {
        for (const ExprPtr &x : list->elements)
          if (TValue v = lower(x.get())) {
            if (v.type.kind != K::Int)
              error(x->range) << "not supported yet: a start vertex that is "
                                 "not an i64 vertex id";
            ids.push_back(v.value);
          }
        if (ids.empty())
          error(e->range) << "a walk's start list must not be empty";
      } else if (TValue v = lower(e)) {
        if (v.type.kind == K::Int || v.type.kind == K::List)
          ids.push_back(v.value);
        else
          error(e->range) << "not supported yet: start vertices of type "
                          << v.type.str();
      }
      builder.create<walk::YieldOp>(loc(item.range), ids);
      break;
    }
    default:
      break;
    }
  }
  if (initBlock) {
    builder.setInsertionPointToEnd(initBlock);
    llvm::SmallVector<mlir::Value> values;
    for (const std::string &s : stateNames)
      values.push_back(initValues.lookup(s).value);
    if (values.size() == stateNames.size() &&
        llvm::all_of(values, [](mlir::Value v) { return bool(v); }))
      builder.create<walk::YieldOp>(loc(w.range), values);
  }

  // Walk functions: they see every let and state.
  for (size_t i = 0; i < stateNames.size(); ++i)
    states[stateNames[i]] = static_cast<int64_t>(i);
  stepVisible = true;
  auto bind = [&](const Binder &b, mlir::Value v, const ast::Type &t) {
    if (b.name != "_")
      locals.back()[b.name] = {v, t};
  };

  // weight (the default: w).
  {
    mlir::Block *block =
        beginRegion(op.getWeight(), {i32, i32, i32, i64, f64},
                    weightItem ? weightItem->range : w.range);
    locals.emplace_back();
    TValue result{block->getArgument(4), ast::Type::of(K::Float)};
    if (weightItem) {
      const auto &bs = weightItem->binders;
      size_t first = bs.size() == 4 ? 1 : 0;
      if (bs.size() == 4)
        bind(bs[0], block->getArgument(0), vertex);
      if (bs.size() >= 3) {
        bind(bs[first], block->getArgument(1), vertex);
        bind(bs[first + 1], block->getArgument(2), vertex);
        bind(bs[first + 2], block->getArgument(4), ast::Type::of(K::Float));
      }
      result = lower(weightItem->value.get());
    }
    if (result)
      builder.create<walk::YieldOp>(
          loc(weightItem ? weightItem->value->range : w.range),
          mlir::ValueRange{toF64(result, weightItem ? weightItem->range
                                                    : w.range)});
    locals.pop_back();
  }

  for (const WalkItem &item : w.items) {
    if (item.kind == WalkItem::Kind::StopFn) {
      mlir::Block *block = beginRegion(op.getStop(), {i32, i64}, item.range);
      locals.emplace_back();
      if (!item.binders.empty())
        bind(item.binders[0], block->getArgument(0), vertex);
      if (item.binders.size() > 1)
        bind(item.binders[1], block->getArgument(1), ast::Type::of(K::Int));
      if (TValue v = lower(item.value.get()))
        builder.create<walk::YieldOp>(loc(item.value->range),
                                      mlir::ValueRange{v.value});
      locals.pop_back();
    } else if (item.kind == WalkItem::Kind::Update) {
      mlir::Block *block =
          beginRegion(op.getUpdate(), {i32, i32, i32}, item.range);
      locals.emplace_back();
      const auto &bs = item.binders;
      size_t first = bs.size() == 3 ? 1 : 0;
      if (bs.size() == 3)
        bind(bs[0], block->getArgument(0), vertex);
      if (bs.size() >= 2) {
        bind(bs[first], block->getArgument(1), vertex);
        bind(bs[first + 1], block->getArgument(2), vertex);
      }
      lowerBlock(item.body);
      builder.create<walk::YieldOp>(loc(item.range));
      locals.pop_back();
    }
  }
  stepVisible = false;
  if (failed) {
    op.erase();
    current = {};
  }
}

void WalkGen::applySchedule(walk::WalkOp op, const ScheduleDecl &s) {
  for (const Prop &p : s.props) {
    if (!p.value)
      continue;
    if (p.name == "sampler" || p.name == "target") {
      auto *word = llvm::dyn_cast<NameExpr>(p.value.get());
      if (!word) {
        error(p.value->range) << "expected a word for '" << p.name << "'";
        continue;
      }
      // Sema checked the word against WalkSchema's names.
      if (p.name == "sampler") {
        if (auto s = walk::symbolizeSampler(word->name))
          op.setSamplerAttr(walk::SamplerAttr::get(ctx, *s));
      } else if (auto t = walk::symbolizeTarget(word->name)) {
        op.setTargetAttr(walk::TargetAttr::get(ctx, *t));
      }
    } else if (p.name == "threads" || p.name == "walkers_per_thread") {
      if (auto v = constant(*p.value))
        op->setAttr(p.name, builder.getI64IntegerAttr(v->i));
    } else {
      error(p.nameRange) << "not supported yet: lowering schedule option '"
                         << p.name << "' of walk '" << s.name << "'";
    }
  }
  for (const auto &l : s.labeled)
    error(l.labelRange) << "a walk's schedule has no labelled entries";
}

void WalkGen::lowerJob(const JobDecl &j) {
  const WalkDecl *w = findWalk(program, j.subject);
  if (!w) {
    error(j.subjectRange) << "'" << j.subject << "' is not a walk";
    return;
  }
  auto op = builder.create<walk::JobOp>(
      loc(j.range), builder.getStringAttr(j.name),
      mlir::FlatSymbolRefAttr::get(ctx, j.subject),
      builder.getStringAttr(j.target), nullptr, nullptr, nullptr, nullptr,
      nullptr, nullptr, builder.getDictionaryAttr({}));
  llvm::SmallVector<mlir::NamedAttribute> ps;
  for (const Prop &p : j.props) {
    if (!p.value)
      continue;
    if (p.name == "walks_dtype") {
      if (auto *word = llvm::dyn_cast<NameExpr>(p.value.get()))
        if (auto dtype = walk::symbolizeWalksDtype(word->name))
          op.setWalksDtypeAttr(walk::WalksDtypeAttr::get(ctx, *dtype));
      continue;
    }
    auto v = constant(*p.value);
    if (!v)
      continue;
    if (p.name == "walks_per_vertex" || p.name == "seed" ||
        p.name == "threads") {
      op->setAttr(p.name, builder.getI64IntegerAttr(v->i));
    } else if (p.name == "output") {
      op->setAttr(p.name, builder.getStringAttr(v->s));
    } else if (p.name == "shuffle") {
      op.setShuffle(v->b);
    } else {
      const Param *param = nullptr;
      for (const Param &x : w->params)
        if (x.name == p.name)
          param = &x;
      if (!param) {
        error(p.nameRange) << "not supported yet: lowering option '" << p.name
                           << "' of walk job '" << j.name << "'";
        continue;
      }
      mlir::Type t;
      if (param->type.name == "i64")
        t = builder.getI64Type();
      else if (param->type.name == "f64")
        t = builder.getF64Type();
      else if (param->type.name == "bool")
        t = builder.getI1Type();
      else
        t = walk::ListType::get(ctx);
      if (auto a = paramAttr(*v, t, p.value->range))
        ps.push_back(builder.getNamedAttr(p.name, a));
    }
  }
  op.setParamsAttr(builder.getDictionaryAttr(ps));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

std::optional<TValue> WalkGen::lookupName(const NameExpr &n) {
  mlir::Location l = loc(n.range);
  for (auto it = locals.rbegin(); it != locals.rend(); ++it)
    if (auto f = it->find(n.name); f != it->end())
      return f->second;
  if (const WalkItem *let = lets.lookup(n.name)) {
    if (llvm::is_contained(letStack, n.name)) {
      error(n.range) << "let '" << n.name << "' refers to itself";
      return TValue();
    }
    letStack.push_back(n.name);
    TValue v = lower(let->value.get());
    letStack.pop_back();
    if (v && let->type) {
      ast::Type t = v.type;
      if (let->type->name == "f64")
        t = ast::Type::of(K::Float);
      return TValue{convert(v, t, n.range), t};
    }
    return v;
  }
  if (inInit)
    if (auto f = initValues.find(n.name); f != initValues.end())
      return f->second;
  if (auto f = states.find(n.name); f != states.end()) {
    const ast::Type &t = stateTypes[f->second];
    return TValue{builder.create<walk::StateGetOp>(
                      l, slotType(ctx, t), builder.getStringAttr(n.name),
                      builder.getI64IntegerAttr(f->second)),
                  t};
  }
  if (auto f = params.find(n.name); f != params.end()) {
    const ast::Type &t = paramTypes[f->second];
    return TValue{builder.create<walk::ParamOp>(
                      l, slotType(ctx, t), builder.getStringAttr(n.name),
                      builder.getI64IntegerAttr(f->second)),
                  t};
  }
  return std::nullopt;
}

std::optional<TValue> WalkGen::lookupLateName(const NameExpr &n) {
  if (n.name == "step" && stepVisible)
    return TValue{
        builder.create<walk::StepOp>(loc(n.range), builder.getI64Type()),
        ast::Type::of(K::Int)};
  return std::nullopt;
}

mlir::Type WalkGen::valueType(const ast::Type &t) {
  return t.kind == K::Vertex ? builder.getI32Type() : slotType(ctx, t);
}

mlir::Value WalkGen::createQuery(GraphQuery q, mlir::Type type,
                                 mlir::ValueRange args, mlir::Location l) {
  switch (q) {
  case GraphQuery::NumVertices:
    return builder.create<walk::NumVerticesOp>(l, type);
  case GraphQuery::NumEdges:
    return builder.create<walk::NumEdgesOp>(l, type);
  case GraphQuery::Degree:
    return builder.create<walk::DegreeOp>(l, type, args[0]);
  case GraphQuery::Label:
    return builder.create<walk::LabelOp>(l, type, args[0]);
  case GraphQuery::HasEdge:
    return builder.create<walk::HasEdgeOp>(l, type, args[0], args[1]);
  case GraphQuery::EdgeWeight:
    return builder.create<walk::EdgeWeightOp>(l, type, args[0], args[1]);
  case GraphQuery::EdgeLabel:
    return builder.create<walk::EdgeLabelOp>(l, type, args[0], args[1]);
  case GraphQuery::Random:
    return builder.create<walk::RandomOp>(l, type);
  case GraphQuery::VertexOf:
    return builder.create<walk::VertexOfOp>(l, type, args[0]);
  case GraphQuery::IntDiv:
    return builder.create<walk::IntDivOp>(l, type, args[0], args[1]);
  case GraphQuery::IntRem:
    return builder.create<walk::IntRemOp>(l, type, args[0], args[1]);
  case GraphQuery::OriginalId:
  case GraphQuery::CommonNeighbors:
  case GraphQuery::CommonNeighborsBelow:
    llvm_unreachable("Sema allows id() and common_neighbors() in algorithms "
                     "only");
  }
  llvm_unreachable("unknown graph query");
}

mlir::Value WalkGen::lowerSize(TValue x, const CallExpr &call) {
  if (x.type.kind != K::List) {
    error(call.range) << "not supported yet: '" << call.callee
                      << "' of this value in a walk";
    return {};
  }
  return builder.create<walk::ListSizeOp>(loc(call.range),
                                          builder.getI64Type(), x.value);
}

TValue WalkGen::lowerIndex(const IndexExpr &i) {
  if (auto v = tryConstant(i))
    return lowerConst(*v, i.range);
  TValue base = lower(i.base.get());
  if (!base)
    return {};
  if (base.type.kind != K::List) {
    error(i.range) << "not supported yet: indexing a " << base.type.str()
                   << " in a walk";
    return {};
  }
  TValue index = lower(i.index.get());
  if (!index)
    return {};
  return {builder.create<walk::ListGetOp>(loc(i.range), builder.getI64Type(),
                                          base.value, index.value),
          ast::Type::of(K::Int)};
}

//===----------------------------------------------------------------------===//
// Statements (update)
//===----------------------------------------------------------------------===//

void WalkGen::lowerBlock(const Block &block) {
  locals.emplace_back();
  for (const StmtPtr &s : block)
    if (s)
      lowerStmt(*s);
  locals.pop_back();
}

void WalkGen::lowerStmt(const Stmt &s) {
  mlir::Location l = loc(s.range);
  if (auto *let = llvm::dyn_cast<LetStmt>(&s)) {
    TValue v = lower(let->value.get());
    if (v && let->type && let->type->name == "f64")
      v = {convert(v, ast::Type::of(K::Float), let->range),
           ast::Type::of(K::Float)};
    if (v)
      locals.back()[let->name] = v;
    return;
  }
  if (auto *ifs = llvm::dyn_cast<IfStmt>(&s)) {
    TValue cond = lower(ifs->cond.get());
    if (!cond)
      return;
    auto ifOp = builder.create<mlir::scf::IfOp>(l, mlir::TypeRange{},
                                                cond.value,
                                                !ifs->elseBody.empty());
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    lowerBlock(ifs->thenBody);
    if (!ifs->elseBody.empty()) {
      builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      lowerBlock(ifs->elseBody);
    }
    return;
  }
  if (auto *a = llvm::dyn_cast<AssignStmt>(&s)) {
    auto f = states.find(a->target);
    if (f == states.end() || a->index) {
      error(a->targetRange) << "not supported yet: assigning '" << a->target
                            << "' in update";
      return;
    }
    const ast::Type &t = stateTypes[f->second];
    mlir::Type mt = slotType(ctx, t);
    TValue v = lower(a->value.get());
    if (!v)
      return;
    mlir::Value rhs = convert(v, t, a->value->range);
    if (!rhs)
      return;
    mlir::Value result = rhs;
    if (a->op != AssignOp::Set) {
      mlir::Value old = builder.create<walk::StateGetOp>(
          l, mt, builder.getStringAttr(a->target),
          builder.getI64IntegerAttr(f->second));
      bool isInt = t.kind == K::Int;
      if (!isInt && t.kind != K::Float) {
        error(a->range) << "not supported yet: '" << spell(a->op)
                        << "' on a " << t.str() << " state variable";
        return;
      }
      result = combine(a->op, old, rhs, isInt, l);
    }
    builder.create<walk::StateSetOp>(l, builder.getStringAttr(a->target),
                                     builder.getI64IntegerAttr(f->second),
                                     result);
    return;
  }
  error(s.range) << "not supported yet: this statement in a walk's update";
}

mlir::LogicalResult sluice::mlirGenWalks(mlir::ModuleOp module,
                                         const Program &program,
                                         const ConstEnv &globals) {
  return WalkGen(module, program, globals).run();
}
