//===- BoundsPassTest.cpp - walk-bounds against brute force ---------------===//
//
// Compiles the example walks (examples/walks/*.sluice) through sluicec's
// pipeline (MLIRGen + walk-bounds), then interprets the IR on small random
// graphs: for every current vertex, every possible previous vertex, state
// value and random draw, the weight of each candidate edge must lie within
// [lower_bound(cur), upper_bound(cur)] (weights <= 0 count as 0), and the
// sum over cur's edges within [sum_lower_bound(cur), sum_upper_bound(cur)],
// for the default parameters and for random ones (including values that
// break the bounds' assumptions, where the guards must give +inf / 0).
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "dialects/Walk/IR/WalkOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir;
using namespace sluice;

#ifndef SLUICE_SOURCE_DIR
#error "SLUICE_SOURCE_DIR must point at the source tree"
#endif

namespace {

/// A small CSR graph with weights, vertex labels and edge labels.
struct Graph {
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> targets;
  std::vector<double> weights;
  std::vector<int64_t> labels, edgeLabels;
  uint32_t n() const { return offsets.size() - 1; }
  uint64_t degree(uint32_t v) const { return offsets[v + 1] - offsets[v]; }
  int64_t find(uint32_t u, uint32_t v) const {
    for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e)
      if (targets[e] == v)
        return e;
    return -1;
  }
};

Graph randomGraph(std::mt19937 &rng, uint32_t n, double p) {
  Graph g;
  g.offsets.push_back(0);
  std::uniform_real_distribution<double> u(0, 1);
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = 0; b < n; ++b)
      if (u(rng) < p) {
        g.targets.push_back(b);
        g.weights.push_back(0.25 + 3 * u(rng));
        g.edgeLabels.push_back(rng() % 3);
      }
    g.offsets.push_back(g.targets.size());
    g.labels.push_back(rng() % 5);
  }
  return g;
}

/// A value during interpretation (ints, bools and vertices as int64).
struct V {
  double f = 0;
  int64_t i = 0;
  std::vector<int64_t> list;
};

/// Interprets the regions of one walk.walk.
class Interp {
public:
  Interp(walk::WalkOp walk, const Graph &g, std::vector<V> params,
         std::vector<V> state, std::mt19937 &rng)
      : walk(walk), g(g), params(std::move(params)), state(std::move(state)),
        rng(rng) {}

  int64_t step = 0;

  std::vector<V> run(Region &region, std::vector<V> args) {
    Block &block = region.front();
    for (unsigned i = 0; i < args.size(); ++i)
      env[block.getArgument(i)] = args[i];
    return runBlock(block);
  }

private:
  std::vector<V> runBlock(Block &block) {
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        std::vector<V> out;
        for (Value v : op.getOperands())
          out.push_back(env[v]);
        return out;
      }
      exec(&op);
    }
    return {};
  }

  void exec(Operation *op) {
    auto in = [&](unsigned i) { return env[op->getOperand(i)]; };
    V r;
    bool ok = true;
    llvm::TypeSwitch<Operation *>(op)
        .Case<arith::ConstantOp>([&](arith::ConstantOp c) {
          if (auto f = dyn_cast<FloatAttr>(c.getValue()))
            r.f = f.getValueAsDouble();
          else
            r.i = cast<IntegerAttr>(c.getValue()).getValue().getSExtValue();
        })
        .Case<arith::SIToFPOp>([&](auto) { r.f = double(in(0).i); })
        .Case<arith::AddFOp>([&](auto) { r.f = in(0).f + in(1).f; })
        .Case<arith::SubFOp>([&](auto) { r.f = in(0).f - in(1).f; })
        .Case<arith::MulFOp>([&](auto) { r.f = in(0).f * in(1).f; })
        .Case<arith::DivFOp>([&](auto) { r.f = in(0).f / in(1).f; })
        .Case<arith::NegFOp>([&](auto) { r.f = -in(0).f; })
        .Case<arith::MinimumFOp>(
            [&](auto) { r.f = std::fmin(in(0).f, in(1).f); })
        .Case<arith::MaximumFOp>(
            [&](auto) { r.f = std::fmax(in(0).f, in(1).f); })
        .Case<arith::AddIOp>([&](auto) { r.i = in(0).i + in(1).i; })
        .Case<arith::SubIOp>([&](auto) { r.i = in(0).i - in(1).i; })
        .Case<arith::MulIOp>([&](auto) { r.i = in(0).i * in(1).i; })
        .Case<arith::RemSIOp>([&](auto) { r.i = in(0).i % in(1).i; })
        // walk.idiv / walk.irem: the kernel's results, 0 where it faults.
        .Case<walk::IntDivOp>([&](auto) {
          int64_t a = in(0).i, b = in(1).i;
          r.i = b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b;
        })
        .Case<walk::IntRemOp>([&](auto) {
          int64_t a = in(0).i, b = in(1).i;
          r.i = b == 0 || b == -1 ? 0 : a % b;
        })
        .Case<arith::AndIOp>([&](auto) { r.i = in(0).i & in(1).i; })
        .Case<arith::OrIOp>([&](auto) { r.i = in(0).i | in(1).i; })
        .Case<arith::XOrIOp>([&](auto) { r.i = in(0).i ^ in(1).i; })
        .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
          int64_t a = in(0).i, b = in(1).i;
          using P = arith::CmpIPredicate;
          switch (c.getPredicate()) {
          case P::eq: r.i = a == b; break;
          case P::ne: r.i = a != b; break;
          case P::slt: case P::ult: r.i = a < b; break;
          case P::sle: case P::ule: r.i = a <= b; break;
          case P::sgt: case P::ugt: r.i = a > b; break;
          case P::sge: case P::uge: r.i = a >= b; break;
          }
        })
        .Case<arith::CmpFOp>([&](arith::CmpFOp c) {
          double a = in(0).f, b = in(1).f;
          using P = arith::CmpFPredicate;
          switch (c.getPredicate()) {
          case P::OGT: r.i = a > b; break;
          case P::OGE: r.i = a >= b; break;
          case P::OLT: r.i = a < b; break;
          case P::OLE: r.i = a <= b; break;
          case P::OEQ: r.i = a == b; break;
          case P::UNE: r.i = !(a == b); break;
          default: ok = false;
          }
        })
        .Case<arith::SelectOp>(
            [&](auto) { r = in(0).i ? in(1) : in(2); })
        .Case<math::ExpOp>([&](auto) { r.f = std::exp(in(0).f); })
        .Case<math::SqrtOp>([&](auto) { r.f = std::sqrt(in(0).f); })
        .Case<math::AbsFOp>([&](auto) { r.f = std::fabs(in(0).f); })
        .Case<math::LogOp>([&](auto) { r.f = std::log(in(0).f); })
        .Case<scf::IfOp>([&](scf::IfOp i) {
          std::vector<V> out =
              runBlock(in(0).i ? *i.thenBlock() : *i.elseBlock());
          for (unsigned k = 0; k < i.getNumResults(); ++k)
            env[i.getResult(k)] = out[k];
        })
        .Case<walk::ParamOp>([&](walk::ParamOp p) { r = params[p.getIndex()]; })
        .Case<walk::StateGetOp>(
            [&](walk::StateGetOp s) { r = state[s.getIndex()]; })
        .Case<walk::StepOp>([&](auto) { r.i = step; })
        .Case<walk::RandomOp>([&](auto) {
          r.f = std::uniform_real_distribution<double>(0, 1)(rng);
        })
        .Case<walk::DegreeOp>([&](auto) { r.i = g.degree(in(0).i); })
        .Case<walk::HasEdgeOp>([&](auto) { r.i = g.find(in(0).i, in(1).i) >= 0; })
        .Case<walk::LabelOp>([&](auto) { r.i = g.labels[in(0).i]; })
        .Case<walk::EdgeLabelOp>([&](auto) {
          int64_t e = g.find(in(0).i, in(1).i);
          r.i = e < 0 ? -1 : g.edgeLabels[e];
        })
        .Case<walk::LabelMassOp>([&](walk::LabelMassOp m) {
          // Brute force: per label of the list, the weights of the edges
          // the filter lets through.
          uint32_t v = in(0).i;
          const std::vector<int64_t> &ls = in(1).list;
          std::vector<double> sums(ls.size(), 0.0);
          for (uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            int64_t label = m.getEdge() ? g.edgeLabels[g.find(v, g.targets[e])]
                                        : g.labels[g.targets[e]];
            for (size_t k = 0; k < ls.size(); ++k)
              if (ls[k] == label)
                sums[k] += g.weights[e];
          }
          r.f = sums.empty() ? 0.0
                : m.getReduce() == "max"
                    ? *std::max_element(sums.begin(), sums.end())
                    : *std::min_element(sums.begin(), sums.end());
        })
        .Case<walk::ListGetOp>([&](auto) { r.i = in(0).list.at(in(1).i); })
        .Case<walk::ListSizeOp>([&](auto) { r.i = in(0).list.size(); })
        .Case<walk::VertexOfOp>([&](auto) { r.i = in(0).i; })
        .Case<walk::WeightMaxOp, walk::WeightMinOp, walk::WeightSumOp>(
            [&](Operation *agg) {
              uint32_t v = in(0).i;
              double mx = -INFINITY, mn = INFINITY, sum = 0;
              for (uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                mx = std::max(mx, g.weights[e]);
                mn = std::min(mn, g.weights[e]);
                sum += g.weights[e];
              }
              r.f = isa<walk::WeightMaxOp>(agg)   ? mx
                    : isa<walk::WeightMinOp>(agg) ? mn
                                                  : sum;
            })
        .Default([&](Operation *) { ok = false; });
    ASSERT_TRUE(ok) << "the test interpreter does not know "
                    << op->getName().getStringRef().str();
    if (!isa<scf::IfOp>(op) && op->getNumResults() == 1)
      env[op->getResult(0)] = r;
  }

  walk::WalkOp walk;
  const Graph &g;
  std::vector<V> params, state;
  std::mt19937 &rng;
  llvm::DenseMap<Value, V> env;
};

struct Compiled {
  MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<Compilation> compilation;

  Compiled() : ctx(registry()) {
    ctx.loadAllAvailableDialects();
    compilation = std::make_unique<Compilation>(ctx, sourceMgr);
  }
  static DialectRegistry registry() {
    DialectRegistry r;
    registerSluiceDialects(r);
    return r;
  }
};

/// Parameter values: the defaults, or random ones (some of them <= 0).
std::vector<V> parameters(walk::WalkOp walk, std::mt19937 &rng, bool random) {
  std::vector<V> out;
  for (unsigned i = 0; i < walk.getParamNames().size(); ++i) {
    Attribute d = walk.getParamDefaults()[i];
    V v;
    if (auto f = dyn_cast<FloatAttr>(d))
      v.f = random ? std::uniform_real_distribution<double>(-0.5, 3)(rng)
                   : f.getValueAsDouble();
    else if (auto a = dyn_cast<DenseI64ArrayAttr>(d))
      v.list.assign(a.asArrayRef().begin(), a.asArrayRef().end());
    else if (auto n = dyn_cast<IntegerAttr>(d))
      v.i = n.getValue().getSExtValue();
    out.push_back(v);
  }
  return out;
}

void checkWalk(walk::WalkOp walk, const Graph &g, std::mt19937 &rng,
               bool randomParams) {
  ASSERT_FALSE(walk.getLowerBound().empty());
  ASSERT_FALSE(walk.getSumLowerBound().empty());
  bool bounded = !walk.getUnbounded();
  std::vector<V> params = parameters(walk, rng, randomParams);
  int checked = 0;
  for (uint32_t cur = 0; cur < g.n(); ++cur) {
    if (g.degree(cur) == 0)
      continue;
    auto bound = [&](Region &r) {
      std::vector<V> state(walk.getStateNames().size());
      Interp in(walk, g, params, state, rng);
      return in.run(r, {V{0, cur, {}}})[0].f;
    };
    double lo = bound(walk.getLowerBound());
    double sumLo = bound(walk.getSumLowerBound());
    double hi = bounded ? bound(walk.getUpperBound()) : INFINITY;
    double sumHi = bounded ? bound(walk.getSumUpperBound()) : INFINITY;
    // Every prev the walk can come from: cur itself (first step) and every
    // u with u -> cur.
    std::vector<uint32_t> prevs = {cur};
    for (uint32_t u = 0; u < g.n(); ++u)
      if (u != cur && g.find(u, cur) >= 0)
        prevs.push_back(u);
    for (uint32_t prev : prevs)
      for (int64_t hop = 0; hop < 6; ++hop) {
        std::vector<V> state(walk.getStateNames().size());
        for (V &s : state)
          s.i = hop;
        Interp in(walk, g, params, state, rng);
        in.step = hop;
        double sum = 0;
        for (uint64_t e = g.offsets[cur]; e < g.offsets[cur + 1]; ++e) {
          double w = in.run(walk.getWeight(),
                            {V{0, prev, {}}, V{0, cur, {}},
                             V{0, g.targets[e], {}}, V{0, int64_t(e), {}},
                             V{g.weights[e], 0, {}}})[0]
                         .f;
          double eff = w > 0 ? w : 0; // <= 0 and NaN: never
          double eps = 1e-9 * (1 + std::fabs(eff));
          ASSERT_LE(eff, hi + eps) << walk.getSymName().str() << " cur " << cur
                                   << " prev " << prev << ": weight " << eff
                                   << " above the upper bound " << hi;
          ASSERT_GE(eff, lo - eps) << walk.getSymName().str() << " cur " << cur
                                   << ": weight " << eff
                                   << " below the lower bound " << lo;
          sum += eff;
          ++checked;
        }
        double eps = 1e-9 * (1 + sum);
        ASSERT_LE(sum, sumHi + eps) << walk.getSymName().str() << " cur " << cur
                                    << ": sum " << sum << " above " << sumHi;
        ASSERT_GE(sum, sumLo - eps) << walk.getSymName().str() << " cur " << cur
                                    << ": sum " << sum << " below " << sumLo;
      }
  }
  EXPECT_GT(checked, 100);
}

class BoundsPass : public ::testing::TestWithParam<const char *> {};

} // namespace

TEST_P(BoundsPass, BoundsHoldOnRandomGraphs) {
  Compiled c;
  std::string path = std::string(SLUICE_SOURCE_DIR) + "/" + GetParam();
  ASSERT_TRUE(succeeded(c.compilation->parse(path)));
  ASSERT_TRUE(succeeded(c.compilation->check()));
  ASSERT_TRUE(succeeded(c.compilation->lower()));
  std::mt19937 rng(2026);
  int walks = 0;
  for (walk::WalkOp walk : c.compilation->module().getOps<walk::WalkOp>()) {
    ++walks;
    for (int trial = 0; trial < 6; ++trial) {
      Graph g = randomGraph(rng, 12, 0.3);
      checkWalk(walk, g, rng, /*randomParams=*/trial > 0);
      if (HasFatalFailure())
        return;
    }
  }
  EXPECT_GT(walks, 0);
}

// The ABI view of the analysis (walk.h's weight classes and kernel flags).
TEST(BoundsPassAbi, ClassesAndFlagsOfTheExamples) {
  struct Expected {
    const char *file, *walk;
    int weightClass;
    uint32_t flags;
  } expected[] = {{"deepwalk", "deepwalk", 1, 0},
                  {"node2vec", "node2vec", 2, 1},
                  {"ppr", "ppr", 1, 0},
                  {"ppr", "ppr2", 2, 1 | 2},
                  {"metapath", "metapath", 2, 2}};
  for (const Expected &e : expected) {
    Compiled c;
    std::string path = std::string(SLUICE_SOURCE_DIR) + "/examples/walks/" +
                       e.file + ".sluice";
    ASSERT_TRUE(succeeded(c.compilation->parse(path)));
    ASSERT_TRUE(succeeded(c.compilation->check()));
    ASSERT_TRUE(succeeded(c.compilation->lower()));
    bool found = false;
    for (walk::WalkOp w : c.compilation->module().getOps<walk::WalkOp>())
      if (w.getSymName() == e.walk) {
        found = true;
        EXPECT_EQ(w.abiWeightClass(), e.weightClass) << e.walk;
        EXPECT_EQ(w.abiFlags(), e.flags) << e.walk;
      }
    EXPECT_TRUE(found) << e.walk;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, BoundsPass,
                         ::testing::Values(
                             "examples/walks/deepwalk.sluice",
                             "examples/walks/node2vec.sluice",
                             "examples/walks/ppr.sluice",
                             "examples/walks/metapath.sluice",
                             "test/Unit/WalkBounds/Inputs/mixed.sluice",
                             "test/Unit/WalkBounds/Inputs/labels.sluice"));

// Label-filtered weights get their sum bounds from the label mass of cur
// (min and max over the list's labels), not from the sum over all edges.
TEST(BoundsPassLabels, SumBoundsUseTheLabelMass) {
  Compiled c;
  std::string path = std::string(SLUICE_SOURCE_DIR) +
                     "/test/Unit/WalkBounds/Inputs/labels.sluice";
  ASSERT_TRUE(succeeded(c.compilation->parse(path)));
  ASSERT_TRUE(succeeded(c.compilation->check()));
  ASSERT_TRUE(succeeded(c.compilation->lower()));
  int walks = 0;
  for (walk::WalkOp w : c.compilation->module().getOps<walk::WalkOp>()) {
    ++walks;
    for (Region *r : {&w.getSumLowerBound(), &w.getSumUpperBound()}) {
      ASSERT_FALSE(r->empty());
      std::vector<walk::LabelMassOp> masses;
      r->walk([&](walk::LabelMassOp m) { masses.push_back(m); });
      ASSERT_EQ(masses.size(), 1u) << w.getSymName().str();
      EXPECT_EQ(masses[0].getReduce(),
                r == &w.getSumLowerBound() ? "min" : "max");
      EXPECT_EQ(masses[0].getEdge(), w.getSymName() == "edgetyped");
      bool sumOfAll = false;
      r->walk([&](walk::WeightSumOp) { sumOfAll = true; });
      EXPECT_FALSE(sumOfAll) << w.getSymName().str();
    }
  }
  EXPECT_EQ(walks, 2);
}
