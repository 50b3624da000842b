//===- MLIRGenExpr.cpp - Lowering expressions of walks and algorithms -----===//
//
// The expression lowering walks and algorithms share (MLIRGenExpr.h); the
// names, types and graph ops of each come from the subclass.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/MLIRGenExpr.h"

#include "frontends/sluice/Frontend.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace sluice;
using namespace sluice::ast;
using K = ast::Type::Kind;

namespace {

/// i64, f32 or f64: what arithmetic takes.
bool isPlainNumber(K k) {
  return k == K::Int || k == K::Float || k == K::Float32;
}

/// The type arithmetic on `a` and `b` computes in, C's usual arithmetic
/// conversions (docs/language.md): i64 with i64 stays i64; f64 with any
/// number is f64; f32 with f32 or i64 is f32.
/// Anything else (a quantity) asks for f64, which convert() reports.
ast::Type arithType(const ast::Type &a, const ast::Type &b) {
  if (a.kind == K::Int && b.kind == K::Int)
    return a;
  auto narrow = [](K k) { return k == K::Float32 || k == K::Int; };
  if ((a.kind == K::Float32 || b.kind == K::Float32) && narrow(a.kind) &&
      narrow(b.kind))
    return ast::Type::of(K::Float32);
  return ast::Type::of(K::Float);
}

} // namespace

bool sluice::callsEffectful(const Expr *e) {
  if (!e)
    return false;
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    auto *c = llvm::cast<CallExpr>(e);
    if (c->callee == "random" || c->callee == "compare_swap")
      return true;
    for (const Arg &a : c->args)
      if (callsEffectful(a.value.get()))
        return true;
    return false;
  }
  case Expr::Kind::Unary:
    return callsEffectful(llvm::cast<UnaryExpr>(e)->operand.get());
  case Expr::Kind::Binary: {
    auto *b = llvm::cast<BinaryExpr>(e);
    return callsEffectful(b->lhs.get()) || callsEffectful(b->rhs.get());
  }
  case Expr::Kind::If: {
    auto *i = llvm::cast<IfExpr>(e);
    return callsEffectful(i->cond.get()) || callsEffectful(i->thenExpr.get()) ||
           callsEffectful(i->elseExpr.get());
  }
  case Expr::Kind::Index: {
    auto *i = llvm::cast<IndexExpr>(e);
    return callsEffectful(i->base.get()) || callsEffectful(i->index.get());
  }
  case Expr::Kind::List:
    for (const ExprPtr &x : llvm::cast<ListExpr>(e)->elements)
      if (callsEffectful(x.get()))
        return true;
    return false;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

mlir::InFlightDiagnostic ExprGen::error(const SourceRange &r) {
  failed = true;
  return mlir::emitError(toLocation(ctx, r));
}

mlir::Location ExprGen::loc(const SourceRange &r) { return toLocation(ctx, r); }

std::optional<ConstValue> ExprGen::constant(const Expr &e) {
  auto v = evaluateConstant(e, globals, ctx);
  if (!v)
    failed = true;
  return v;
}

std::optional<ConstValue> ExprGen::tryConstant(const Expr &e) {
  mlir::ScopedDiagnosticHandler quiet(
      ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  return evaluateConstant(e, globals, ctx);
}

mlir::Value ExprGen::constF64(double x, mlir::Location l) {
  return builder.create<mlir::arith::ConstantOp>(l, builder.getF64FloatAttr(x));
}

mlir::Value ExprGen::constI64(int64_t x, mlir::Location l) {
  return builder.create<mlir::arith::ConstantOp>(l,
                                                 builder.getI64IntegerAttr(x));
}

mlir::Value ExprGen::constI1(bool x, mlir::Location l) {
  return builder.create<mlir::arith::ConstantOp>(l, builder.getBoolAttr(x));
}

mlir::Value ExprGen::query(GraphQuery q, mlir::ValueRange args,
                           mlir::Location l) {
  mlir::Type type;
  switch (q) {
  case GraphQuery::HasEdge:
    type = builder.getI1Type();
    break;
  case GraphQuery::EdgeWeight:
  case GraphQuery::Random:
    type = builder.getF64Type();
    break;
  case GraphQuery::VertexOf:
    type = builder.getI32Type();
    break;
  default:
    type = builder.getI64Type();
    break;
  }
  return createQuery(q, type, args, l);
}

mlir::Attribute ExprGen::scalarAttr(const ConstValue &v, mlir::Type type,
                                    const SourceRange &r) {
  if (type.isF64()) {
    if (auto x = v.asNumber(); x && v.kind != ConstValue::Kind::Quantity)
      return builder.getF64FloatAttr(*x);
  } else if (type.isSignlessInteger(64)) {
    if (v.kind == ConstValue::Kind::Int)
      return builder.getI64IntegerAttr(v.i);
  } else if (type.isSignlessInteger(1)) {
    if (v.kind == ConstValue::Kind::Bool)
      return builder.getBoolAttr(v.b);
  }
  error(r) << "value " << v.str() << " does not fit type " << type;
  return {};
}

mlir::Value ExprGen::combine(AssignOp op, mlir::Value old, mlir::Value rhs,
                             bool isInt, mlir::Location l) {
  using namespace mlir::arith;
  switch (op) {
  case AssignOp::Add:
    return isInt ? builder.create<AddIOp>(l, old, rhs).getResult()
                 : builder.create<AddFOp>(l, old, rhs).getResult();
  case AssignOp::Sub:
    return isInt ? builder.create<SubIOp>(l, old, rhs).getResult()
                 : builder.create<SubFOp>(l, old, rhs).getResult();
  case AssignOp::Mul:
    return isInt ? builder.create<MulIOp>(l, old, rhs).getResult()
                 : builder.create<MulFOp>(l, old, rhs).getResult();
  case AssignOp::Min:
    return isInt ? builder.create<MinSIOp>(l, old, rhs).getResult()
                 : builder.create<MinimumFOp>(l, old, rhs).getResult();
  case AssignOp::Max:
    return isInt ? builder.create<MaxSIOp>(l, old, rhs).getResult()
                 : builder.create<MaximumFOp>(l, old, rhs).getResult();
  case AssignOp::Set:
    return rhs;
  }
  llvm_unreachable("unknown assignment operator");
}

mlir::Value ExprGen::convert(TValue v, const ast::Type &to,
                             const SourceRange &r) {
  if (!v)
    return {};
  if (v.type.kind == to.kind)
    return v.value;
  mlir::Location l = loc(r);
  if (v.type.kind == K::Int && (to.kind == K::Float || to.kind == K::Float32))
    return builder.create<mlir::arith::SIToFPOp>(
        l, to.kind == K::Float ? builder.getF64Type() : builder.getF32Type(),
        v.value);
  // f64 -> f32 rounds to the nearest f32 (C's assignment); f32 -> f64 is
  // exact.
  if (v.type.kind == K::Float && to.kind == K::Float32)
    return builder.create<mlir::arith::TruncFOp>(l, builder.getF32Type(),
                                                 v.value);
  if (v.type.kind == K::Float32 && to.kind == K::Float)
    return builder.create<mlir::arith::ExtFOp>(l, builder.getF64Type(),
                                               v.value);
  if (v.type.kind == K::Int && to.kind == K::Vertex)
    return query(GraphQuery::VertexOf, v.value, l);
  error(r) << "cannot convert " << v.type.str() << " to " << to.str();
  return {};
}

TValue ExprGen::lowerConst(const ConstValue &v, const SourceRange &r) {
  mlir::Location l = loc(r);
  switch (v.kind) {
  case ConstValue::Kind::Int:
    return {constI64(v.i, l), ast::Type::of(K::Int)};
  case ConstValue::Kind::Float:
    return {constF64(v.f, l), ast::Type::of(K::Float)};
  case ConstValue::Kind::Bool:
    return {constI1(v.b, l), ast::Type::of(K::Bool)};
  default:
    error(r) << "not supported yet: a " << v.str() << " value in " << owner()
             << "'s expressions (numbers and bools only)";
    return {};
  }
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

TValue ExprGen::lower(const Expr *e) {
  if (!e)
    return {};
  mlir::Location l = loc(e->range);
  switch (e->getKind()) {
  case Expr::Kind::IntLit:
    return {constI64(llvm::cast<IntLitExpr>(e)->value, l),
            ast::Type::of(K::Int)};
  case Expr::Kind::FloatLit:
    return {constF64(llvm::cast<FloatLitExpr>(e)->value, l),
            ast::Type::of(K::Float)};
  case Expr::Kind::BoolLit:
    return {constI1(llvm::cast<BoolLitExpr>(e)->value, l),
            ast::Type::of(K::Bool)};
  case Expr::Kind::Name:
    return lowerName(*llvm::cast<NameExpr>(e));
  case Expr::Kind::Call:
    return lowerCall(*llvm::cast<CallExpr>(e));
  case Expr::Kind::Binary:
    return lowerBinary(*llvm::cast<BinaryExpr>(e));
  case Expr::Kind::If:
    return lowerIf(*llvm::cast<IfExpr>(e));
  case Expr::Kind::Index:
    return lowerIndex(*llvm::cast<IndexExpr>(e));
  case Expr::Kind::Unary: {
    auto *u = llvm::cast<UnaryExpr>(e);
    // A negative number is a constant.
    if (u->op == UnaryOp::Neg)
      if (auto *i = llvm::dyn_cast_or_null<IntLitExpr>(u->operand.get()))
        return {constI64(-i->value, l), ast::Type::of(K::Int)};
    if (u->op == UnaryOp::Neg)
      if (auto *f = llvm::dyn_cast_or_null<FloatLitExpr>(u->operand.get()))
        return {constF64(-f->value, l), ast::Type::of(K::Float)};
    TValue x = lower(u->operand.get());
    if (!x)
      return {};
    if (u->op == UnaryOp::Not)
      return {builder.create<mlir::arith::XOrIOp>(l, x.value, constI1(true, l)),
              x.type};
    if (x.type.kind == K::Int)
      return {builder.create<mlir::arith::SubIOp>(l, constI64(0, l), x.value),
              x.type};
    if (x.type.kind == K::Float || x.type.kind == K::Float32)
      return {builder.create<mlir::arith::NegFOp>(l, x.value), x.type};
    break;
  }
  default:
    break;
  }
  if (auto v = tryConstant(*e))
    return lowerConst(*v, e->range);
  error(e->range) << "not supported yet: this expression in " << owner()
                  << " (type " << e->type.str() << ")";
  return {};
}

TValue ExprGen::lowerName(const NameExpr &n) {
  if (std::optional<TValue> v = lookupName(n))
    return *v;
  if (const ConstValue *v = globals.lookup(n.name))
    return lowerConst(*v, n.range);
  mlir::Location l = loc(n.range);
  if (n.name == "num_vertices")
    return {query(GraphQuery::NumVertices, {}, l), ast::Type::of(K::Int)};
  if (n.name == "num_edges")
    return {query(GraphQuery::NumEdges, {}, l), ast::Type::of(K::Int)};
  if (std::optional<TValue> v = lookupLateName(n))
    return *v;
  error(n.range) << "not supported yet: the name '" << n.name << "' in "
                 << owner() << "'s expressions";
  return {};
}

TValue ExprGen::lowerCall(const CallExpr &c) {
  mlir::Location l = loc(c.range);
  const ast::Type i64 = ast::Type::of(K::Int), f64 = ast::Type::of(K::Float),
                  boolT = ast::Type::of(K::Bool);
  const llvm::StringRef f = c.callee;
  if (f == "random")
    return {query(GraphQuery::Random, {}, l), f64};
  if (f == "num_vertices" || f == "num_edges")
    return lowerName(NameExpr(c.range, c.callee));
  if (f == "compare_swap")
    return lowerCompareSwap(c);
  // size/empty of a constant list fold; everything else lowers its args.
  if (f == "size" || f == "empty")
    if (auto v = tryConstant(c))
      return lowerConst(*v, c.range);
  std::vector<TValue> args;
  for (const Arg &a : c.args) {
    TValue v = lower(a.value.get());
    if (!v)
      return {};
    args.push_back(v);
  }
  auto argRange = [&](size_t i) { return c.args[i].value->range; };
  if (f == "degree" || f == "label" || f == "id") {
    mlir::Value v = toVertex(args[0], argRange(0));
    if (!v)
      return {};
    GraphQuery q = f == "degree"  ? GraphQuery::Degree
                   : f == "label" ? GraphQuery::Label
                                  : GraphQuery::OriginalId;
    return {query(q, v, l), i64};
  }
  if (f == "common_neighbors" || f == "common_neighbors_below") {
    mlir::Value u = toVertex(args[0], argRange(0));
    mlir::Value v = toVertex(args[1], argRange(1));
    if (!u || !v)
      return {};
    return {query(f == "common_neighbors" ? GraphQuery::CommonNeighbors
                                          : GraphQuery::CommonNeighborsBelow,
                  {u, v}, l),
            i64};
  }
  if (f == "has_edge" || f == "weight" || f == "edge_label") {
    mlir::Value u = toVertex(args[0], argRange(0));
    mlir::Value v = toVertex(args[1], argRange(1));
    if (!u || !v)
      return {};
    if (f == "has_edge")
      return {query(GraphQuery::HasEdge, {u, v}, l), boolT};
    if (f == "weight")
      return {query(GraphQuery::EdgeWeight, {u, v}, l), f64};
    return {query(GraphQuery::EdgeLabel, {u, v}, l), i64};
  }
  if (f == "size" || f == "empty") {
    mlir::Value n = lowerSize(args[0], c);
    if (!n)
      return {};
    if (f == "size")
      return {n, i64};
    return {builder.create<mlir::arith::CmpIOp>(
                l, mlir::arith::CmpIPredicate::eq, n, constI64(0, l)),
            boolT};
  }
  if (f == "min" || f == "max") {
    bool allInt = llvm::all_of(
        args, [](const TValue &a) { return a.type.kind == K::Int; });
    ast::Type common = args[0].type;
    for (const TValue &a : args)
      common = arithType(common, a.type);
    mlir::Value acc =
        allInt ? args[0].value : convert(args[0], common, argRange(0));
    for (size_t i = 1; i < args.size(); ++i) {
      mlir::Value x =
          allInt ? args[i].value : convert(args[i], common, argRange(i));
      if (!acc || !x)
        return {};
      if (allInt)
        acc = f == "min"
                  ? builder.create<mlir::arith::MinSIOp>(l, acc, x).getResult()
                  : builder.create<mlir::arith::MaxSIOp>(l, acc, x).getResult();
      else
        acc =
            f == "min"
                ? builder.create<mlir::arith::MinimumFOp>(l, acc, x).getResult()
                : builder.create<mlir::arith::MaximumFOp>(l, acc, x)
                      .getResult();
    }
    return {acc, common};
  }
  if (f == "abs") {
    if (args[0].type.kind == K::Int)
      return {builder.create<mlir::math::AbsIOp>(l, args[0].value), i64};
    if (args[0].type.kind == K::Float32)
      return {builder.create<mlir::math::AbsFOp>(l, args[0].value),
              args[0].type};
    return {builder.create<mlir::math::AbsFOp>(l, toF64(args[0], argRange(0))),
            f64};
  }
  if (f == "sqrt" || f == "log" || f == "exp") {
    mlir::Value x = toF64(args[0], argRange(0));
    if (!x)
      return {};
    if (f == "sqrt")
      return {builder.create<mlir::math::SqrtOp>(l, x), f64};
    if (f == "log")
      return {builder.create<mlir::math::LogOp>(l, x), f64};
    return {builder.create<mlir::math::ExpOp>(l, x), f64};
  }
  error(c.calleeRange) << "not supported yet: calling '" << f << "' in "
                       << owner();
  return {};
}

TValue ExprGen::lowerBinary(const BinaryExpr &b) {
  using namespace mlir::arith;
  mlir::Location l = loc(b.opRange);
  const ast::Type boolT = ast::Type::of(K::Bool);
  if (b.op == BinaryOp::And || b.op == BinaryOp::Or) {
    bool isAnd = b.op == BinaryOp::And;
    TValue lhs = lower(b.lhs.get());
    if (!lhs)
      return {};
    if (!callsEffectful(b.rhs.get())) {
      TValue rhs = lower(b.rhs.get());
      if (!rhs)
        return {};
      if (isAnd)
        return {builder.create<AndIOp>(l, lhs.value, rhs.value), boolT};
      return {builder.create<OrIOp>(l, lhs.value, rhs.value), boolT};
    }
    // Short-circuit: the right operand draws random numbers or swaps.
    auto ifOp = builder.create<mlir::scf::IfOp>(
        l, mlir::TypeRange{builder.getI1Type()}, lhs.value,
        /*withElseRegion=*/true);
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(isAnd ? ifOp.thenBlock()
                                           : ifOp.elseBlock());
    TValue rhs = lower(b.rhs.get());
    if (!rhs)
      return {};
    builder.create<mlir::scf::YieldOp>(l, rhs.value);
    builder.setInsertionPointToStart(isAnd ? ifOp.elseBlock()
                                           : ifOp.thenBlock());
    builder.create<mlir::scf::YieldOp>(l, constI1(!isAnd, l));
    return {ifOp.getResult(0), boolT};
  }
  TValue lhs = lower(b.lhs.get());
  TValue rhs = lower(b.rhs.get());
  if (!lhs || !rhs)
    return {};
  K lk = lhs.type.kind, rk = rhs.type.kind;
  switch (b.op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Mod: {
    if (lk == K::Int && rk == K::Int) {
      mlir::Value r;
      switch (b.op) {
      case BinaryOp::Add:
        r = builder.create<AddIOp>(l, lhs.value, rhs.value);
        break;
      case BinaryOp::Sub:
        r = builder.create<SubIOp>(l, lhs.value, rhs.value);
        break;
      case BinaryOp::Mul:
        r = builder.create<MulIOp>(l, lhs.value, rhs.value);
        break;
      // A zero divisor faults at run time instead of trapping.
      case BinaryOp::Div:
        r = query(GraphQuery::IntDiv, {lhs.value, rhs.value}, l);
        break;
      default:
        r = query(GraphQuery::IntRem, {lhs.value, rhs.value}, l);
        break;
      }
      return {r, ast::Type::of(K::Int)};
    }
    if (!isPlainNumber(lk) || !isPlainNumber(rk) || b.op == BinaryOp::Mod) {
      error(b.opRange) << "not supported yet: '" << spell(b.op) << "' on "
                       << lhs.type.str() << " and " << rhs.type.str() << " in "
                       << owner();
      return {};
    }
    ast::Type t = arithType(lhs.type, rhs.type);
    mlir::Value x = convert(lhs, t, b.lhs->range),
                y = convert(rhs, t, b.rhs->range);
    if (!x || !y)
      return {};
    mlir::Value r;
    switch (b.op) {
    case BinaryOp::Add:
      r = builder.create<AddFOp>(l, x, y);
      break;
    case BinaryOp::Sub:
      r = builder.create<SubFOp>(l, x, y);
      break;
    case BinaryOp::Mul:
      r = builder.create<MulFOp>(l, x, y);
      break;
    default:
      r = builder.create<DivFOp>(l, x, y);
      break;
    }
    return {r, t};
  }
  default:
    break;
  }
  // Comparisons.
  bool eqOnly = b.op == BinaryOp::Eq || b.op == BinaryOp::Ne;
  auto ipred = [&](bool isUnsigned) {
    switch (b.op) {
    case BinaryOp::Eq:
      return CmpIPredicate::eq;
    case BinaryOp::Ne:
      return CmpIPredicate::ne;
    case BinaryOp::Lt:
      return isUnsigned ? CmpIPredicate::ult : CmpIPredicate::slt;
    case BinaryOp::Le:
      return isUnsigned ? CmpIPredicate::ule : CmpIPredicate::sle;
    case BinaryOp::Gt:
      return isUnsigned ? CmpIPredicate::ugt : CmpIPredicate::sgt;
    default:
      return isUnsigned ? CmpIPredicate::uge : CmpIPredicate::sge;
    }
  };
  if (lk == K::Vertex || rk == K::Vertex) {
    if (lk != rk && !eqOnly) {
      error(b.opRange) << "not supported yet: ordering a vertex against an "
                          "i64 id in "
                       << owner() << " (compare two vertices, or use == / !=)";
      return {};
    }
    mlir::Value x = toVertex(lhs, b.lhs->range),
                y = toVertex(rhs, b.rhs->range);
    if (!x || !y)
      return {};
    // CSR ids keep the order of the original ids.
    return {builder.create<CmpIOp>(l, ipred(true), x, y), boolT};
  }
  if (lk == K::Int && rk == K::Int)
    return {builder.create<CmpIOp>(l, ipred(false), lhs.value, rhs.value),
            boolT};
  if (lk == K::Bool && rk == K::Bool && eqOnly)
    return {builder.create<CmpIOp>(l, ipred(false), lhs.value, rhs.value),
            boolT};
  if (isPlainNumber(lk) && isPlainNumber(rk)) {
    CmpFPredicate p;
    switch (b.op) {
    case BinaryOp::Eq:
      p = CmpFPredicate::OEQ;
      break;
    case BinaryOp::Ne:
      p = CmpFPredicate::UNE;
      break;
    case BinaryOp::Lt:
      p = CmpFPredicate::OLT;
      break;
    case BinaryOp::Le:
      p = CmpFPredicate::OLE;
      break;
    case BinaryOp::Gt:
      p = CmpFPredicate::OGT;
      break;
    default:
      p = CmpFPredicate::OGE;
      break;
    }
    ast::Type t = arithType(lhs.type, rhs.type);
    mlir::Value x = convert(lhs, t, b.lhs->range);
    mlir::Value y = convert(rhs, t, b.rhs->range);
    if (!x || !y)
      return {};
    return {builder.create<CmpFOp>(l, p, x, y), boolT};
  }
  error(b.opRange) << "not supported yet: '" << spell(b.op) << "' on "
                   << lhs.type.str() << " and " << rhs.type.str() << " in "
                   << owner();
  return {};
}

TValue ExprGen::lowerIf(const IfExpr &i) {
  TValue cond = lower(i.cond.get());
  if (!cond)
    return {};
  ast::Type t = i.type;
  mlir::Type mt = valueType(t);
  if (!mt || t.kind == K::List) {
    error(i.range) << "not supported yet: an 'if' of type " << t.str() << " in "
                   << owner();
    return {};
  }
  mlir::Location l = loc(i.range);
  auto ifOp =
      builder.create<mlir::scf::IfOp>(l, mlir::TypeRange{mt}, cond.value,
                                      /*withElseRegion=*/true);
  mlir::OpBuilder::InsertionGuard guard(builder);
  for (auto [block, e] : {std::pair{ifOp.thenBlock(), i.thenExpr.get()},
                          std::pair{ifOp.elseBlock(), i.elseExpr.get()}}) {
    builder.setInsertionPointToStart(block);
    TValue v = lower(e);
    mlir::Value c = convert(v, t, e ? e->range : i.range);
    if (!c)
      return {};
    builder.create<mlir::scf::YieldOp>(loc(e->range), c);
  }
  return {ifOp.getResult(0), t};
}
