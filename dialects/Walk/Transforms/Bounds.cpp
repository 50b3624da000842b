//===- Bounds.cpp - walk-bounds: classify weights, derive bounds ----------===//
//
// An abstract interpretation of each walk's `weight` region. Every SSA value
// gets what it depends on (prev, step, state, random, cur, next, w, the
// edge, parameters) and, for numbers, an interval whose ends are symbolic
// expressions over parameters and aggregates of `cur` (BoundExpr.h), plus,
// where the value is w times something independent of w, the interval of
// that factor (for tighter bounds of the sum of weights: W_sum * factor).
// The results are written back as attributes and bound regions of the
// walk.walk; see Passes.td for the contract.
//
//===----------------------------------------------------------------------===//
#include "dialects/Walk/Transforms/BoundExpr.h"
#include "dialects/Walk/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace sluice::walk {
#define GEN_PASS_DEF_WALKBOUNDS
#include "dialects/Walk/Transforms/Passes.h.inc"
} // namespace sluice::walk

using namespace mlir;
using namespace sluice::walk;
namespace b = sluice::walk::bounds;
using b::Interval;
using EK = b::Expr::Kind;

static bool wscaleUsable(const std::optional<Interval> &s,
                         const std::vector<b::Assumption> &as);

namespace {

enum Dep : unsigned {
  DepPrev = 1u << 0,
  DepStep = 1u << 1,
  DepState = 1u << 2,
  DepRandom = 1u << 3,
  DepUnknown = 1u << 4, ///< an op the analysis does not know
  DepCur = 1u << 5,
  DepNext = 1u << 6,
  DepW = 1u << 7,
  DepEdge = 1u << 8,
  DepParam = 1u << 9,
  DepGraph = 1u << 10, ///< num_vertices, num_edges
};
constexpr unsigned kDynamic =
    DepPrev | DepStep | DepState | DepRandom | DepUnknown;
constexpr unsigned kPerEdge = DepCur | DepNext | DepW | DepEdge;

enum class VertexKind { None, Cur, Prev, Next, Other };

/// What the analysis knows about one SSA value.
struct AVal {
  unsigned deps = 0;
  Interval iv;                      ///< numbers; unbounded otherwise
  std::optional<Interval> wscale;   ///< value = w * s with s in wscale
  std::string reason;               ///< why iv.hi is unbounded
  VertexKind vertex = VertexKind::None;
  /// A label of next (label(next), edge_label(cur, next)), or an element
  /// of a list parameter (xs[i]), or an i1 that compares the two for
  /// equality: a label filter.
  struct Labels {
    enum Kind { OfNext, EdgeOfNext, ListElement, Filter } kind;
    int64_t list = -1; ///< the list parameter (ListElement, Filter)
    std::string listName;
    bool edge = false; ///< edge labels (EdgeOfNext, Filter)
  };
  std::optional<Labels> labels;
  /// value = (filter ? w * s : 0) with s in `massScale`: the sum over
  /// cur's edges lies in [label_mass min, label_mass max] * massScale.
  std::optional<Labels> mass;
  std::optional<Interval> massScale;
};

class WeightAnalysis {
public:
  explicit WeightAnalysis(WalkOp walk) : walk(walk) {}

  /// Analyses the weight region; returns the value the region yields.
  AVal run();
  std::vector<b::Assumption> assumptions;

private:
  void visitBlock(Block &block);
  void visit(Operation *op);
  /// A copy: the map may grow while the caller still uses the value.
  AVal get(Value v) const {
    auto it = values.find(v);
    return it == values.end() ? AVal() : it->second;
  }
  AVal joinDeps(Operation *op) {
    AVal r;
    for (Value v : op->getOperands())
      r.deps |= get(v).deps;
    return r;
  }
  /// Unbounded, explaining why (the first operand's reason, else `why`).
  void explain(Operation *op, AVal &r, llvm::StringRef why) {
    if (r.iv.hi || !r.reason.empty())
      return;
    for (Value v : op->getOperands()) {
      AVal x = get(v);
      if (!x.reason.empty() && !x.iv.hi) {
        r.reason = x.reason;
        return;
      }
    }
    r.reason = why.str();
  }

  /// `cond ? t : f` where cond is a label filter, t = w * s (s >= 0) and
  /// f = 0: the mass the filter lets through (see AVal::mass).
  void labelFiltered(const AVal &cond, const AVal &t, const AVal &f,
                     AVal &r) {
    if (!cond.labels || cond.labels->kind != AVal::Labels::Filter)
      return;
    auto zero = f.iv.lo && f.iv.hi ? b::constValue(f.iv.hi) : std::nullopt;
    if (!zero || *zero != 0.0 || !b::constValue(f.iv.lo) ||
        *b::constValue(f.iv.lo) != 0.0)
      return;
    if (!wscaleUsable(t.wscale, assumptions))
      return;
    r.mass = cond.labels;
    r.massScale = t.wscale;
  }

  WalkOp walk;
  llvm::DenseMap<Value, AVal> values;
};

} // namespace

static std::string opName(Operation *op) {
  return op->getName().getStringRef().str();
}

AVal WeightAnalysis::run() {
  Block &block = walk.getWeight().front();
  AVal prev, cur, next, edge, w;
  prev.deps = DepPrev;
  prev.vertex = VertexKind::Prev;
  cur.deps = DepCur;
  cur.vertex = VertexKind::Cur;
  next.deps = DepNext;
  next.vertex = VertexKind::Next;
  edge.deps = DepEdge;
  edge.reason = "the edge index has no bound";
  w.deps = DepW;
  w.iv = {b::leaf(EK::WeightMin), b::leaf(EK::WeightMax)};
  w.wscale = Interval::point(b::constant(1));
  AVal *args[] = {&prev, &cur, &next, &edge, &w};
  for (unsigned i = 0; i < 5; ++i)
    values[block.getArgument(i)] = *args[i];
  visitBlock(block);
  auto yield = cast<YieldOp>(block.getTerminator());
  return get(yield.getValues()[0]);
}

void WeightAnalysis::visitBlock(Block &block) {
  for (Operation &op : block)
    visit(&op);
}

static bool wscaleUsable(const std::optional<Interval> &s,
                         const std::vector<b::Assumption> &as) {
  return s && s->lo && s->hi && b::nonNegative(b::sign(s->lo, as));
}

void WeightAnalysis::visit(Operation *op) {
  if (op->getNumResults() == 0 && !isa<scf::IfOp>(op))
    return; // terminators, state.set (not in weight)
  AVal r = joinDeps(op);
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
  auto binary = [&](auto fn) {
    r.iv = fn(operand(0).iv, operand(1).iv);
  };

  llvm::TypeSwitch<Operation *>(op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) {
        if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          r.iv = Interval::point(b::constant(f.getValueAsDouble()));
        else if (auto i = dyn_cast<IntegerAttr>(c.getValue());
                 i && !c.getType().isInteger(1))
          r.iv = Interval::point(
              b::constant(static_cast<double>(i.getValue().getSExtValue())));
        if (r.iv.lo && b::constValue(r.iv.lo) == 0.0)
          r.wscale = Interval::point(b::constant(0));
      })
      .Case<ParamOp>([&](ParamOp p) {
        r.deps |= DepParam;
        Type t = p.getType();
        if (t.isF64() || t.isSignlessInteger(64))
          r.iv = Interval::point(b::param(p.getIndex(), p.getName().str()));
        else
          r.reason = "parameter '" + p.getName().str() + "' is not a number";
      })
      .Case<StateGetOp>([&](StateGetOp s) {
        r.deps |= DepState;
        r.reason = "state variable '" + s.getName().str() + "' has no bound";
      })
      .Case<StepOp>([&](StepOp) {
        r.deps |= DepStep;
        r.iv.lo = b::constant(0);
        r.reason = "'step' has no upper bound";
      })
      .Case<RandomOp>([&](RandomOp) {
        r.deps |= DepRandom;
        r.iv = {b::constant(0), b::constant(1)};
      })
      .Case<DegreeOp>([&](DegreeOp d) {
        VertexKind v = get(d.getVertex()).vertex;
        if (v == VertexKind::Cur) {
          r.iv = Interval::point(b::leaf(EK::Degree));
        } else {
          // prev has the edge prev -> cur (or is cur before the first step).
          r.iv.lo = b::constant(v == VertexKind::Prev ? 1 : 0);
          r.reason = "the degree of a vertex other than cur has no upper bound";
        }
      })
      .Case<EdgeWeightOp>([&](EdgeWeightOp e) {
        if (get(e.getFrom()).vertex == VertexKind::Cur)
          r.iv = {b::constant(0), b::leaf(EK::WeightMax)};
        else
          r.reason = "weight(u, v) of an edge that does not leave cur has no "
                     "bound";
      })
      .Case<LabelOp>([&](LabelOp l) {
        r.reason = "labels have no bound";
        if (get(l.getVertex()).vertex == VertexKind::Next)
          r.labels = AVal::Labels{AVal::Labels::OfNext};
      })
      .Case<EdgeLabelOp>([&](EdgeLabelOp l) {
        r.reason = "labels have no bound";
        if (get(l.getFrom()).vertex == VertexKind::Cur &&
            get(l.getTo()).vertex == VertexKind::Next)
          r.labels = AVal::Labels{AVal::Labels::EdgeOfNext};
      })
      .Case<NumVerticesOp>([&](NumVerticesOp) {
        r.deps |= DepGraph;
        r.iv = Interval::point(b::leaf(EK::NumVertices));
      })
      .Case<NumEdgesOp>([&](NumEdgesOp) {
        r.deps |= DepGraph;
        r.iv = Interval::point(b::leaf(EK::NumEdges));
      })
      .Case<VertexOfOp>([&](VertexOfOp) { r.vertex = VertexKind::Other; })
      .Case<ListGetOp>([&](ListGetOp g) {
        r.reason = "list elements have no bound";
        if (auto p = g.getList().getDefiningOp<ParamOp>()) {
          AVal::Labels l{AVal::Labels::ListElement};
          l.list = p.getIndex();
          l.listName = p.getName().str();
          r.labels = l;
        }
      })
      .Case<ListSizeOp>([&](ListSizeOp) {
        r.iv.lo = b::constant(0);
        r.reason = "list sizes have no bound";
      })
      .Case<arith::SIToFPOp, arith::UIToFPOp, arith::ExtSIOp, arith::ExtUIOp,
            arith::ExtFOp, arith::TruncFOp, arith::FPToSIOp>(
          [&](Operation *) {
            r.iv = operand(0).iv;
            r.wscale = operand(0).wscale;
            r.reason = operand(0).reason;
          })
      .Case<arith::AddFOp, arith::AddIOp>([&](Operation *) {
        binary(b::iadd);
      })
      .Case<arith::SubFOp, arith::SubIOp>([&](Operation *) {
        binary(b::isub);
      })
      .Case<arith::MulFOp, arith::MulIOp>([&](Operation *) {
        r.iv = b::imul(operand(0).iv, operand(1).iv, assumptions);
        for (unsigned k = 0; k < 2; ++k) {
          AVal s = operand(k), o = operand(1 - k);
          if (s.wscale && !(o.deps & DepW) && o.iv.lo && o.iv.hi) {
            Interval ws = b::imul(*s.wscale, o.iv, assumptions);
            if (ws.lo && ws.hi)
              r.wscale = ws;
          }
        }
        explain(op, r, "a product of values of unknown sign has no bound");
      })
      .Case<arith::DivFOp>([&](Operation *) {
        r.iv = b::idiv(operand(0).iv, operand(1).iv, assumptions);
        AVal s = operand(0), o = operand(1);
        if (s.wscale && !(o.deps & DepW)) {
          Interval ws = b::idiv(*s.wscale, o.iv, assumptions);
          if (ws.lo && ws.hi)
            r.wscale = ws;
        }
        if (!r.iv.hi && operand(0).iv.hi)
          r.reason = "division by a value that may be zero or negative";
        explain(op, r, "a quotient of unbounded values has no bound");
      })
      .Case<arith::NegFOp>([&](Operation *) { r.iv = b::ineg(operand(0).iv); })
      .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
          [&](Operation *) { binary(b::imin); })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
          [&](Operation *) { binary(b::imax); })
      .Case<arith::SelectOp>([&](arith::SelectOp s) {
        AVal t = get(s.getTrueValue()), f = get(s.getFalseValue());
        r.iv = b::iunion(t.iv, f.iv);
        if (t.wscale && f.wscale)
          r.wscale = b::iunion(*t.wscale, *f.wscale);
        labelFiltered(get(s.getCondition()), t, f, r);
      })
      .Case<math::ExpOp>([&](Operation *) {
        r.iv = b::iunary(EK::Exp, operand(0).iv);
        explain(op, r, "exp of a value without upper bound has no bound");
      })
      .Case<math::SqrtOp>([&](Operation *) {
        r.iv = b::iunary(EK::Sqrt, operand(0).iv);
      })
      .Case<math::LogOp>([&](Operation *) {
        r.iv = b::iunary(EK::Log, operand(0).iv);
      })
      .Case<math::AbsFOp, math::AbsIOp>([&](Operation *) {
        r.iv = b::iabs(operand(0).iv, assumptions);
        explain(op, r, "abs of an unbounded value has no bound");
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        // label(next) == xs[i] (either order): a label filter.
        if (c.getPredicate() != arith::CmpIPredicate::eq)
          return;
        auto a = operand(0).labels, b = operand(1).labels;
        if (!a || !b)
          return;
        if (a->kind == AVal::Labels::ListElement)
          std::swap(a, b);
        if (b->kind != AVal::Labels::ListElement ||
            (a->kind != AVal::Labels::OfNext &&
             a->kind != AVal::Labels::EdgeOfNext))
          return;
        AVal::Labels f = *b;
        f.kind = AVal::Labels::Filter;
        f.edge = a->kind == AVal::Labels::EdgeOfNext;
        r.labels = f;
      })
      .Case<arith::CmpFOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
            HasEdgeOp>([&](Operation *) {})
      .Case<arith::DivSIOp, arith::RemSIOp, arith::RemFOp, IntDivOp,
            IntRemOp>([&](Operation *) {
        r.reason = "integer division and '%' are not bounded by the analysis";
      })
      .Case<scf::IfOp>([&](scf::IfOp ifOp) {
        visitBlock(*ifOp.thenBlock());
        if (ifOp.elseBlock())
          visitBlock(*ifOp.elseBlock());
        if (ifOp.getNumResults() == 0)
          return;
        auto thenYield = cast<scf::YieldOp>(ifOp.thenBlock()->getTerminator());
        auto elseYield = cast<scf::YieldOp>(ifOp.elseBlock()->getTerminator());
        for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
          AVal t = get(thenYield.getOperand(i));
          AVal f = get(elseYield.getOperand(i));
          AVal v;
          v.deps = r.deps | t.deps | f.deps;
          v.iv = b::iunion(t.iv, f.iv);
          if (t.wscale && f.wscale)
            v.wscale = b::iunion(*t.wscale, *f.wscale);
          if (!v.iv.hi)
            v.reason = !t.iv.hi ? t.reason : f.reason;
          labelFiltered(get(ifOp.getCondition()), t, f, v);
          values[ifOp.getResult(i)] = v;
        }
      })
      .Default([&](Operation *other) {
        // Unknown ops: depend on everything they read, nested regions
        // included, and are unbounded.
        r.deps |= DepUnknown;
        other->walk([&](Operation *inner) {
          for (Value v : inner->getOperands())
            r.deps |= get(v).deps;
        });
        r.reason = "'" + opName(other) + "' is not analysed";
      });

  if (isa<scf::IfOp>(op))
    return;
  if (!r.iv.hi && r.reason.empty())
    explain(op, r, "'" + opName(op) + "' has no upper bound here");
  for (Value res : op->getResults())
    values[res] = r;
}

//===----------------------------------------------------------------------===//
// Materialising bounds
//===----------------------------------------------------------------------===//

namespace {

/// Emits bound expressions as ops in a bound region.
class Emitter {
public:
  Emitter(WalkOp walk, OpBuilder &builder, Value cur, Location loc)
      : walk(walk), builder(builder), cur(cur), loc(loc) {}

  Value emit(const b::ExprRef &e) {
    Type f64 = builder.getF64Type();
    auto toF64 = [&](Value v) {
      return builder.create<arith::SIToFPOp>(loc, f64, v).getResult();
    };
    // Operands first, in order (not as arguments of create<>, whose
    // evaluation order is unspecified).
    SmallVector<Value> ops;
    if (e->kind != EK::Min && e->kind != EK::Max)
      for (const b::ExprRef &o : e->ops)
        ops.push_back(emit(o));
    auto operand = [&](size_t i) { return ops[i]; };
    switch (e->kind) {
    case EK::Const:
      return builder.create<arith::ConstantOp>(loc,
                                               builder.getF64FloatAttr(e->value));
    case EK::Param: {
      Type t = cast<TypeAttr>(walk.getParamTypes()[e->index]).getValue();
      Value p = builder.create<ParamOp>(loc, t, builder.getStringAttr(e->name),
                                        builder.getI64IntegerAttr(e->index));
      return t.isF64() ? p : toF64(p);
    }
    case EK::WeightMax:
      return builder.create<WeightMaxOp>(loc, f64, cur);
    case EK::WeightMin:
      return builder.create<WeightMinOp>(loc, f64, cur);
    case EK::WeightSum:
      return builder.create<WeightSumOp>(loc, f64, cur);
    case EK::Degree:
      return toF64(builder.create<DegreeOp>(loc, builder.getI64Type(), cur));
    case EK::NumVertices:
      return toF64(builder.create<NumVerticesOp>(loc, builder.getI64Type()));
    case EK::NumEdges:
      return toF64(builder.create<NumEdgesOp>(loc, builder.getI64Type()));
    case EK::LabelMassMin:
    case EK::LabelMassMax: {
      Type t = cast<TypeAttr>(walk.getParamTypes()[e->index]).getValue();
      Value list = builder.create<ParamOp>(loc, t,
                                           builder.getStringAttr(e->name),
                                           builder.getI64IntegerAttr(e->index));
      return builder.create<LabelMassOp>(
          loc, f64,
          builder.getStringAttr(e->kind == EK::LabelMassMin ? "min" : "max"),
          cur, list, e->value != 0 ? builder.getUnitAttr() : UnitAttr());
    }
    case EK::Add:
      return builder.create<arith::AddFOp>(loc, operand(0), operand(1));
    case EK::Sub:
      return builder.create<arith::SubFOp>(loc, operand(0), operand(1));
    case EK::Mul:
      return builder.create<arith::MulFOp>(loc, operand(0), operand(1));
    case EK::Div:
      return builder.create<arith::DivFOp>(loc, operand(0), operand(1));
    case EK::Neg:
      return builder.create<arith::NegFOp>(loc, operand(0));
    case EK::Exp:
      return builder.create<math::ExpOp>(loc, operand(0));
    case EK::Log:
      return builder.create<math::LogOp>(loc, operand(0));
    case EK::Sqrt:
      return builder.create<math::SqrtOp>(loc, operand(0));
    case EK::Min:
    case EK::Max: {
      Value acc = emit(e->ops[0]);
      for (size_t i = 1; i < e->ops.size(); ++i) {
        Value x = emit(e->ops[i]);
        acc = e->kind == EK::Min
                  ? builder.create<arith::MinimumFOp>(loc, acc, x).getResult()
                  : builder.create<arith::MaximumFOp>(loc, acc, x).getResult();
      }
      return acc;
    }
    }
    llvm_unreachable("unknown bound expression");
  }

private:
  WalkOp walk;
  OpBuilder &builder;
  Value cur;
  Location loc;
};

} // namespace

/// Fills `region` with ^bb0(%cur: i32) computing `e`; when `assumptions`
/// are not all true at run time it yields `fallback` instead.
static void materialise(WalkOp walk, Region &region, const b::ExprRef &e,
                        const std::vector<b::Assumption> &assumptions,
                        double fallback, Location loc) {
  OpBuilder builder(walk.getContext());
  Block *block = new Block();
  region.push_back(block);
  Value cur = block->addArgument(builder.getI32Type(), loc);
  builder.setInsertionPointToStart(block);
  Emitter emitter(walk, builder, cur, loc);
  Value v = emitter.emit(e);
  Value ok;
  for (const b::Assumption &a : assumptions) {
    Value x = emitter.emit(a.expr);
    Value zero =
        builder.create<arith::ConstantOp>(loc, builder.getF64FloatAttr(0));
    Value c = builder.create<arith::CmpFOp>(
        loc, a.strict ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OGE,
        x, zero);
    ok = ok ? builder.create<arith::AndIOp>(loc, ok, c).getResult() : c;
  }
  if (ok) {
    Value fb = builder.create<arith::ConstantOp>(
        loc, builder.getF64FloatAttr(fallback));
    v = builder.create<arith::SelectOp>(loc, ok, v, fb);
  }
  builder.create<YieldOp>(loc, ValueRange{v});
}

static std::string depList(unsigned deps, ArrayAttr *attrOut, Builder &b) {
  static const std::pair<Dep, const char *> names[] = {
      {DepPrev, "prev"},
      {DepStep, "step"},
      {DepState, "state"},
      {DepRandom, "random"},
      {DepUnknown, "unanalysed ops"}};
  std::string text;
  SmallVector<Attribute> attrs;
  for (auto [d, n] : names)
    if (deps & d) {
      text += (text.empty() ? "" : ", ") + std::string(n);
      attrs.push_back(b.getStringAttr(n));
    }
  *attrOut = b.getArrayAttr(attrs);
  return text;
}

namespace {

struct WalkBoundsPass
    : public sluice::walk::impl::WalkBoundsBase<WalkBoundsPass> {
  using WalkBoundsBase::WalkBoundsBase;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](WalkOp walk) {
      if (failed(analyse(walk)))
        ok = false;
    });
    if (!ok)
      signalPassFailure();
  }

  LogicalResult analyse(WalkOp walk);
};

} // namespace

LogicalResult WalkBoundsPass::analyse(WalkOp walk) {
  Builder builder(walk.getContext());
  for (Region *r : {&walk.getUpperBound(), &walk.getLowerBound(),
                    &walk.getSumUpperBound(), &walk.getSumLowerBound()})
    r->getBlocks().clear();
  walk.removeDependsOnAttr();
  walk.removeAssumptionsAttr();
  walk.removeMayBeZeroAttr();
  walk.removeUnboundedAttr();

  Value result = walk.getWeightResult();
  if (!result)
    return walk.emitOpError("has no weight value to analyse");
  // Report at the weight expression: the yield carries its location.
  Location loc = walk.getWeight().front().getTerminator()->getLoc();

  WeightAnalysis analysis(walk);
  AVal weight = analysis.run();
  std::vector<b::Assumption> &assumptions = analysis.assumptions;

  // Class.
  std::string weightClass, why;
  if (weight.deps & kDynamic) {
    weightClass = "dynamic";
    ArrayAttr deps;
    why = "depends on " + depList(weight.deps & kDynamic, &deps, builder);
    walk.setDependsOnAttr(deps);
  } else if (weight.deps & kPerEdge) {
    weightClass = "static";
    why = "a function of cur, next, w and parameters";
  } else if (weight.deps & (DepParam | DepGraph)) {
    weightClass = "parameter";
    why = "the same for every edge, set by parameters";
  } else {
    weightClass = "constant";
    why = "the same for every edge";
  }
  walk.setWeightClassAttr(WeightClassAttr::get(
      builder.getContext(), *symbolizeWeightClass(weightClass)));

  // Per-edge bounds. Weights <= 0 mean "never", so 0 is a lower bound of
  // the effective weight whatever the expression.
  b::ExprRef lo = b::constant(0);
  if (weight.iv.lo)
    lo = b::nonNegative(b::sign(weight.iv.lo, assumptions))
             ? weight.iv.lo
             : b::max({weight.iv.lo, b::constant(0)});
  bool mayBeZero = b::sign(lo, assumptions) != b::Sign::Pos;
  // The envelope of the effective weight (<= 0 counts as 0) is >= 0.
  b::ExprRef hi = weight.iv.hi;
  if (hi && !b::nonNegative(b::sign(hi, assumptions)))
    hi = b::max({hi, b::constant(0)});
  // Bounds of the sum over cur's edges.
  b::ExprRef sumLo, sumHi;
  if (weight.mass && weight.massScale) {
    // A label filter: only the edges whose label matches pass, and the
    // label the filter asks for is one of the list's (FlexiWalker's W_sum
    // over the edges that can be drawn, per vertex and label).
    const AVal::Labels &m = *weight.mass;
    sumLo = b::mul(b::labelMass(false, m.list, m.listName, m.edge),
                   weight.massScale->lo);
    sumHi = b::mul(b::labelMass(true, m.list, m.listName, m.edge),
                   weight.massScale->hi);
  } else if (wscaleUsable(weight.wscale, assumptions)) {
    sumLo = b::mul(b::leaf(EK::WeightSum), weight.wscale->lo);
    sumHi = b::mul(b::leaf(EK::WeightSum), weight.wscale->hi);
  } else {
    sumLo = b::mul(b::leaf(EK::Degree), lo);
    if (hi)
      sumHi = b::mul(b::leaf(EK::Degree), hi);
  }

  if (mayBeZero)
    walk.setMayBeZero(true);
  if (!assumptions.empty()) {
    SmallVector<Attribute> as;
    for (const b::Assumption &a : assumptions)
      as.push_back(builder.getStringAttr(b::print(a)));
    walk.setAssumptionsAttr(builder.getArrayAttr(as));
  }
  double inf = std::numeric_limits<double>::infinity();
  materialise(walk, walk.getLowerBound(), lo, assumptions, 0.0, loc);
  materialise(walk, walk.getSumLowerBound(), sumLo, assumptions, 0.0, loc);
  if (hi) {
    materialise(walk, walk.getUpperBound(), hi, assumptions, inf, loc);
    materialise(walk, walk.getSumUpperBound(), sumHi, assumptions, inf, loc);
  } else {
    walk.setUnbounded(true);
  }

  // The schedule must fit the weight.
  std::string name = walk.getSymName().str();
  std::optional<llvm::StringRef> sampler;
  if (std::optional<Sampler> requested = walk.getSampler())
    sampler = stringifySampler(*requested);
  if (sampler && *sampler == "alias" && weightClass == "dynamic")
    return emitError(loc) << "walk '" << name
                          << "' is scheduled with sampler 'alias', but its "
                             "weight "
                          << why
                          << "; alias tables need a weight that depends only "
                             "on cur, next, w and parameters (use 'auto', "
                             "'rejection' or 'reservoir')";
  if (sampler && *sampler == "rejection" && !hi)
    return emitError(loc) << "walk '" << name
                          << "' is scheduled with sampler 'rejection', but "
                             "no upper bound of its weight can be derived ("
                          << weight.reason
                          << "); use 'reservoir' or 'auto'";

  if (!remarks)
    return success();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "weight of '" << name << "' is " << weightClass << " (" << why
     << "): ";
  if (hi) {
    os << "bounds [" << b::print(lo) << ", " << b::print(hi)
       << "], sum over cur's edges [" << b::print(sumLo) << ", "
       << b::print(sumHi) << "]";
  } else {
    os << "no upper bound (" << weight.reason
       << "): no rejection sampling, reservoir sampling only";
    if (weightClass != "dynamic")
      os << " (or alias tables: the weight is " << weightClass << ")";
    os << "; lower bound " << b::print(lo);
  }
  if (!assumptions.empty()) {
    os << ", assuming ";
    for (size_t i = 0; i < assumptions.size(); ++i)
      os << (i ? " and " : "") << b::print(assumptions[i]);
    os << " (checked at run time)";
  }
  if (mayBeZero)
    os << "; may be zero";
  llvm::StringRef s = sampler ? *sampler : llvm::StringRef("auto");
  os << "; sampler: " << s;
  if (!hi)
    os << (weightClass == "dynamic" ? " (reservoir: the only sound choice)"
                                    : " (alias or reservoir)");
  else if (s == "auto")
    os << (weightClass == "dynamic"
               ? " (cost model: rejection or reservoir per vertex)"
           : weightClass == "static"
               ? " (alias tables per vertex, built once)"
               : " (uniform: every edge of a vertex weighs the same)");
  // What walk-to-gpu generates (selectStepMethod in WalkSchema.h).
  if (!hi || s == "reservoir")
    os << "; on the GPU: reservoir sampling, a warp (32 threads) per walker";
  else
    os << "; on the GPU: rejection sampling, one thread per walker";
  emitRemark(loc) << text;
  return success();
}
