//===- HoistSourceTerms.cpp - graph-hoist-source-terms --------------------===//
//
// Moves the terms of an edges loop's body that depend only on the source
// vertex (PageRank's `rank[src] / degree(src)`) out of the loop: each is
// computed once per vertex into a new vertex property by a graph.vertices
// loop inserted just before the edges loop, and the body reads that
// property at the source instead. Passes.td states the rule, the legality
// conditions and the before/after IR.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <functional>

namespace sluice::graph {
#define GEN_PASS_DEF_GRAPHHOISTSOURCETERMS
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace sluice::graph

using namespace mlir;
using namespace sluice::graph;

namespace {

/// What a value of an edges loop's body depends on.
enum class Kind {
  Invariant, ///< nothing the iteration binds (constants, parameters, ...)
  Source,    ///< the source vertex and invariants only, through pure ops
  Other,     ///< the destination, the weight, an impure op, a region, ...
};

/// One maximal source-only term of a loop body: its root value, its ops
/// (in an order where each op follows the ops it uses) and what it reads.
struct Term {
  Value root;
  SmallVector<Operation *> ops;
  SmallVector<StringRef> reads; ///< the properties it reads, in order
  /// The uses of the root by ops outside every term: what reads the
  /// temporary once the term is hoisted.
  SmallVector<OpOperand *> outsideUses;
  bool hasArithmetic = false; ///< at least one arith/math op, not a cast
};

bool isPropertyType(Type t) {
  return t.isF64() || t.isF32() || t.isInteger(64) || t.isInteger(1) ||
         t.isInteger(32);
}

/// Whether `op` computes something (arith or math, not a constant or a
/// cast): what makes a term worth a pass over the vertices.
bool isArithmetic(Operation *op) {
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return (dialect == "arith" || dialect == "math") &&
         !op->hasTrait<OpTrait::ConstantLike>() && !isa<CastOpInterface>(op);
}

/// Classifies the values of a loop body and finds its terms.
class BodyAnalysis {
public:
  explicit BodyAnalysis(EdgesOp loop) : loop(loop) {
    src = loop.getBody().getArgument(0);
    loop.getBody().walk<WalkOrder::PreOrder>(
        [&](Operation *op) { classify(op); });
  }

  Kind kindOf(Value v) const {
    if (v == src)
      return Kind::Source;
    auto it = kinds.find(v);
    if (it != kinds.end())
      return it->second;
    // Defined outside the loop: invariant. Block arguments of the loop's
    // regions (dst, w) and of regions nested in it: other.
    return loop->isAncestor(v.getParentRegion()->getParentOp())
               ? Kind::Other
               : Kind::Invariant;
  }

  /// The maximal source-only terms: source values used by an op that is not
  /// part of a source-only term, in the order of their ops.
  SmallVector<Term> terms() const {
    SmallVector<Term> out;
    for (Operation *op : order) {
      Value v = op->getResult(0);
      if (kindOf(v) != Kind::Source)
        continue;
      SmallVector<OpOperand *> outside;
      for (OpOperand &use : v.getUses())
        if (!termOp(use.getOwner()))
          outside.push_back(&use);
      if (outside.empty())
        continue;
      out.push_back(collect(v));
      out.back().outsideUses = std::move(outside);
    }
    return out;
  }

  /// Whether `op` is part of some source-only or invariant term (its one
  /// result is not of kind Other).
  bool termOp(Operation *op) const {
    return op->getNumResults() == 1 && op->getNumRegions() == 0 &&
           kinds.count(op->getResult(0)) &&
           kinds.lookup(op->getResult(0)) != Kind::Other;
  }

private:
  void classify(Operation *op) {
    if (op->getNumResults() == 0)
      return;
    order.push_back(op);
    Kind kind = Kind::Other;
    if (op->getNumResults() == 1 && op->getNumRegions() == 0) {
      if (auto get = dyn_cast<PropGetOp>(op)) {
        if (kindOf(get.getVertex()) == Kind::Source)
          kind = Kind::Source;
      } else if (isMemoryEffectFree(op) && isSpeculatable(op)) {
        kind = Kind::Invariant;
        for (Value operand : op->getOperands()) {
          Kind k = kindOf(operand);
          if (k == Kind::Other) {
            kind = Kind::Other;
            break;
          }
          if (k == Kind::Source)
            kind = Kind::Source;
        }
      }
    }
    for (Value r : op->getResults())
      kinds[r] = kind;
  }

  /// The ops of the term rooted at `root` (defined in the loop), operands
  /// first.
  Term collect(Value root) const {
    Term term;
    term.root = root;
    llvm::SetVector<Operation *> seen;
    std::function<void(Operation *)> visit = [&](Operation *op) {
      if (seen.contains(op))
        return;
      seen.insert(op);
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (loop->isAncestor(def))
            visit(def);
      term.ops.push_back(op);
      if (auto get = dyn_cast<PropGetOp>(op)) {
        if (!llvm::is_contained(term.reads, get.getProperty()))
          term.reads.push_back(get.getProperty());
      } else if (isArithmetic(op) && kindOf(op->getResult(0)) == Kind::Source) {
        term.hasArithmetic = true;
      }
    };
    visit(root.getDefiningOp());
    return term;
  }

  EdgesOp loop;
  Value src;
  DenseMap<Value, Kind> kinds;
  SmallVector<Operation *> order; ///< the ops with results, in walk order
};

/// `x`, with parentheses unless it is an atom.
std::string paren(const std::string &x, bool atom) {
  return atom ? x : "(" + x + ")";
}

/// A term as the source language writes it: `rank[src] / degree(src)`.
std::string render(Value v, EdgesOp loop, AlgorithmOp algo, bool top = true) {
  if (v == loop.getBody().getArgument(0))
    return "src";
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() == &algo.getBody().front())
      return cast<StringAttr>(algo.getParamNames()[arg.getArgNumber()])
          .getValue()
          .str();
    return "a loop variable";
  }
  Operation *op = v.getDefiningOp();
  if (auto get = dyn_cast<PropGetOp>(op))
    return (get.getProperty() + "[" +
            render(get.getVertex(), loop, algo, true) + "]")
        .str();
  if (auto degree = dyn_cast<DegreeOp>(op))
    return "degree(" + render(degree.getVertex(), loop, algo, true) + ")";
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      os << llvm::format("%g", f.getValueAsDouble());
    else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      os << i.getInt();
    else
      os << c.getValue();
    return text;
  }
  if (isa<CastOpInterface>(op) && op->getNumOperands() == 1)
    return render(op->getOperand(0), loop, algo, top);
  if (!loop->isAncestor(op))
    return "a value from outside the loop";
  StringRef symbol =
      llvm::TypeSwitch<Operation *, StringRef>(op)
          .Case<arith::AddFOp, arith::AddIOp>([](auto) { return "+"; })
          .Case<arith::SubFOp, arith::SubIOp>([](auto) { return "-"; })
          .Case<arith::MulFOp, arith::MulIOp>([](auto) { return "*"; })
          .Case<arith::DivFOp>([](auto) { return "/"; })
          .Default([](Operation *) { return ""; });
  if (!symbol.empty() && op->getNumOperands() == 2)
    return paren(render(op->getOperand(0), loop, algo, false) + " " +
                     symbol.str() + " " +
                     render(op->getOperand(1), loop, algo, false),
                 top);
  std::string text = op->getName().getStringRef().str() + "(";
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    text += (i ? ", " : "") + render(operand, loop, algo, true);
  return text + ")";
}

struct GraphHoistSourceTermsPass
    : public sluice::graph::impl::GraphHoistSourceTermsBase<
          GraphHoistSourceTermsPass> {
  using GraphHoistSourceTermsBase::GraphHoistSourceTermsBase;

  void runOnOperation() override {
    getOperation().walk([&](AlgorithmOp algo) { hoistIn(algo); });
  }

  void hoistIn(AlgorithmOp algo) {
    // The loops before any is inserted, with their indices among the loops
    // (graph-to-llvm calls an unlabelled loop "loop N", N its index).
    SmallVector<std::pair<EdgesOp, int64_t>> loops;
    int64_t index = 0;
    algo.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto edges = dyn_cast<EdgesOp>(op))
        loops.push_back({edges, index});
      if (isa<EdgesOp, VerticesOp>(op))
        ++index;
    });
    for (auto [loop, i] : loops)
      hoistIn(algo, loop, i);
  }

  void hoistIn(AlgorithmOp algo, EdgesOp loop, int64_t index) {
    std::optional<StringRef> label = loop.getLabel();
    // The temporaries and the new loop are named after the loop.
    std::string name = label ? label->str() : "loop" + std::to_string(index);
    std::string what =
        (label ? "loop '" + name + "'" : "loop " + std::to_string(index)) +
        " of algorithm '" + algo.getSymName().str() + "': ";
    BodyAnalysis analysis(loop);
    SmallVector<Term> terms = analysis.terms();
    if (terms.empty()) {
      if (remarks)
        loop.emitRemark(what) << "nothing to hoist: no term of the body "
                                 "depends only on the source";
      return;
    }
    // The properties the loop writes (in either region).
    llvm::SmallSetVector<StringRef, 4> written;
    loop.walk([&](Operation *op) {
      if (StringRef p = updatedProperty(op); !p.empty())
        written.insert(p);
    });
    SmallVector<Term> hoisted;
    llvm::StringSet<> remarked; // one remark per rejected text (the body
                                // may read `comp[src]` several times)
    for (Term &term : terms) {
      std::string text = render(term.root, loop, algo);
      auto reject = [&](auto &&...why) {
        if (!remarks || !remarked.insert(text).second)
          return;
        InFlightDiagnostic r = loop.emitRemark(what);
        r << "not hoisted: " << text << " ";
        (r << ... << why);
      };
      StringRef clash;
      for (StringRef read : term.reads)
        if (written.contains(read)) {
          clash = read;
          break;
        }
      if (!term.hasArithmetic)
        reject("computes nothing (a read of the source's data: hoisting it "
               "would replace one read by another)");
      else if (!isPropertyType(term.root.getType()))
        reject("is of type ", term.root.getType(),
               ", which a vertex property cannot hold");
      else if (!clash.empty())
        reject("reads '", clash,
               "', which this loop writes (computed before the loop it "
               "would miss the loop's writes)");
      else if (loop.getFrom())
        reject("depends only on the source, but the loop runs from a "
               "frontier (hoisting over a frontier's vertices is not "
               "built)");
      else
        hoisted.push_back(term);
    }
    if (hoisted.empty())
      return;
    hoist(algo, loop, name, what, hoisted);
  }

  /// Inserts the vertices loop computing `terms` before `loop` and makes
  /// `loop` read them.
  void hoist(AlgorithmOp algo, EdgesOp loop, const std::string &name,
             const std::string &what, ArrayRef<Term> terms) {
    MLIRContext *ctx = algo.getContext();
    SymbolTable symbols(algo);
    // The temporaries, after the last property (the others keep their
    // places in the algorithm's property table).
    Block &top = algo.getBody().front();
    OpBuilder b(ctx);
    Operation *lastProperty = nullptr;
    for (PropertyOp p : top.getOps<PropertyOp>())
      lastProperty = p;
    if (lastProperty)
      b.setInsertionPointAfter(lastProperty);
    else
      b.setInsertionPointToStart(&top);
    SmallVector<std::string> temps;
    for (const Term &term : terms) {
      Type t = term.root.getType();
      Location loc = term.root.getLoc();
      TypedAttr zero = isa<FloatType>(t) ? TypedAttr(b.getFloatAttr(t, 0.0))
                                         : TypedAttr(b.getIntegerAttr(t, 0));
      Value init = b.create<arith::ConstantOp>(loc, zero);
      std::string temp = uniqueName(symbols, name + "_src", 0);
      auto prop = b.create<PropertyOp>(loc, b.getStringAttr(temp), init);
      symbols.insert(prop);
      temps.push_back(temp);
    }
    // The vertices loop, just before the edges loop.
    std::string label = uniqueLabel(algo, name + "_src");
    b.setInsertionPoint(loop);
    auto schedule =
        ScheduleAttr::get(ctx, std::nullopt, Parallel::Static, std::nullopt,
                          Tile::none(), std::nullopt, FloatAttr(), std::nullopt,
                          std::nullopt, FloatAttr(), FloatAttr(), std::nullopt);
    auto vertices = b.create<VerticesOp>(loop.getLoc(), TypeRange{},
                                         ValueRange{}, b.getStringAttr(label),
                                         b.getArrayAttr({}), schedule);
    Block *body = b.createBlock(&vertices.getBody(), {}, {b.getI32Type()},
                                {loop.getLoc()});
    IRMapping map;
    map.map(loop.getBody().getArgument(0), body->getArgument(0));
    for (auto [term, temp] : llvm::zip(terms, temps)) {
      for (Operation *op : term.ops)
        if (!map.contains(op->getResult(0)))
          b.clone(*op, map);
      b.create<PropSetOp>(term.root.getLoc(), FlatSymbolRefAttr::get(ctx, temp),
                          body->getArgument(0), map.lookup(term.root));
    }
    b.create<YieldOp>(loop.getLoc());
    // The body reads the temporaries.
    for (auto [term, temp] : llvm::zip(terms, temps)) {
      if (remarks)
        loop.emitRemark(what)
            << "hoisted " << render(term.root, loop, algo)
            << " (it depends only on the source and reads no property the "
               "loop writes) into vertex property '"
            << temp << "', computed once per vertex by the new loop '" << label
            << "' (parallel: static) before this one; the body reads " << temp
            << "[src]";
      b.setInsertionPointAfterValue(term.root);
      Value read = b.create<PropGetOp>(term.root.getLoc(), term.root.getType(),
                                       FlatSymbolRefAttr::get(ctx, temp),
                                       loop.getBody().getArgument(0));
      for (OpOperand *use : term.outsideUses)
        use->set(read);
    }
    // What the body no longer uses: the terms' ops, users before the ops
    // they use (each term's ops are in def-use order; a later term's
    // shared ops appear at their first place).
    llvm::SetVector<Operation *> dead;
    for (const Term &term : terms)
      dead.insert(term.ops.begin(), term.ops.end());
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
  }

  static std::string uniqueName(SymbolTable &symbols, const std::string &base,
                                int64_t first) {
    for (int64_t i = first;; ++i) {
      std::string name = base + std::to_string(i);
      if (!symbols.lookup(name))
        return name;
    }
  }

  static std::string uniqueLabel(AlgorithmOp algo, const std::string &base) {
    llvm::StringSet<> labels;
    algo.walk([&](Operation *op) {
      if (auto l = op->getAttrOfType<StringAttr>("label"))
        labels.insert(l.getValue());
    });
    if (!labels.contains(base))
      return base;
    for (int64_t i = 1;; ++i)
      if (!labels.contains(base + std::to_string(i)))
        return base + std::to_string(i);
  }
};

} // namespace
