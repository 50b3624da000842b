//===- UniformSourceReads.cpp - graph-uniform-source-reads ----------------===//
//
// In a level-synchronous edges loop (BFS's `where depth[dst] == -1 {
// depth[dst] = depth[src] + 1 }` over a frontier whose vertices provably
// share one depth: LevelProof.h), every read of the property at the source
// reads that one value. The pass reads it once per round, before the loop,
// at one vertex of the frontier (graph.frontier.any), and the body uses
// that value: a pulled round no longer loads `depth[src]` for each vertex
// it finds, a load that misses the cache and shares its lines with the
// other threads' writes of `depth[dst]`. Passes.td states the rule and the
// before/after IR.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/IR/GraphSchema.h"
#include "dialects/Graph/Transforms/LevelProof.h"
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace sluice::graph {
#define GEN_PASS_DEF_GRAPHUNIFORMSOURCEREADS
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace sluice::graph

using namespace mlir;
using namespace sluice::graph;

namespace {

class UniformSourceReads
    : public sluice::graph::impl::GraphUniformSourceReadsBase<
          UniformSourceReads> {
public:
  using GraphUniformSourceReadsBase::GraphUniformSourceReadsBase;

  void runOnOperation() override {
    getOperation().walk([&](AlgorithmOp algo) {
      SmallVector<EdgesOp> loops;
      algo.walk([&](EdgesOp edges) { loops.push_back(edges); });
      for (EdgesOp edges : loops)
        rewrite(algo, edges);
    });
  }

private:
  void rewrite(AlgorithmOp algo, EdgesOp edges);
};

void UniformSourceReads::rewrite(AlgorithmOp algo, EdgesOp edges) {
  if (!edges.getFrom())
    return;
  // A plain write decides the property; levelShape checks that it is the
  // loop's only write.
  PropSetOp write;
  edges->walk([&](PropSetOp set) { write = set; });
  if (!write)
    return;
  StringRef p = write.getProperty();
  std::optional<LevelShape> shape = levelShape(edges, p);
  if (!shape)
    return;
  SmallVector<PropGetOp> reads;
  edges->walk([&](PropGetOp get) {
    if (get.getProperty() == p && binderOf(get.getVertex(), edges) == 0u)
      reads.push_back(get);
  });
  std::optional<StringRef> label = edges.getLabel();
  std::string what = (label ? "loop '" + label->str() + "'"
                            : std::string("an unlabelled edges loop")) +
                     " of algorithm '" + algo.getSymName().str() + "': ";
  auto remark = [&](auto &&...parts) {
    if (!remarks)
      return;
    InFlightDiagnostic r = edges.emitRemark(what);
    (r << ... << parts);
  };
  if (reads.empty())
    return remark("'", p,
                  "' is not read at the source: nothing to read "
                  "once per round");
  auto schedule = edges->getAttrOfType<ScheduleAttr>("schedule");
  if (schedule && schedule.getFrontier() &&
      *schedule.getFrontier() == FrontierKind::Buckets)
    return remark("'", p,
                  "[src]' is read per edge: a `frontier: buckets` "
                  "loop's rounds are not levels");
  Type type = reads.front().getType();
  if (!type.isIntOrFloat())
    return remark("'", p, "[src]' is read per edge: its type ", type,
                  " has no zero for an empty graph");
  LevelProof proof(algo, p, shape->bound, topLevel(edges, algo));
  if (!proof.writesAgree() || !proof.uniformFrontier(edges.getFrom()))
    return remark("'", p,
                  "[src]' is read per edge: the vertices of the "
                  "frontier are not shown to share one value of '",
                  p,
                  "' (docs/algorithms.md, \"Legality of parallel updates\")");
  // Before the loop: the value at one vertex of the frontier. With no
  // vertex in the graph there is no vertex 0 to read (and no round).
  OpBuilder b(edges);
  Location loc = edges.getLoc();
  Value n = b.create<NumVerticesOp>(loc, b.getI64Type());
  Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
  Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, n, zero);
  auto ifOp = b.create<scf::IfOp>(
      loc, any,
      [&](OpBuilder &then, Location l) {
        Value v =
            then.create<FrontierAnyOp>(l, then.getI32Type(), edges.getFrom());
        Value x = then.create<PropGetOp>(l, type, p, v);
        then.create<scf::YieldOp>(l, x);
      },
      [&](OpBuilder &other, Location l) {
        Value c =
            other.create<arith::ConstantOp>(l, type, other.getZeroAttr(type));
        other.create<scf::YieldOp>(l, c);
      });
  for (PropGetOp get : reads) {
    get.replaceAllUsesWith(ifOp.getResult(0));
    get.erase();
  }
  remark("'", p,
         "[src]' is read once per round, at one vertex of the "
         "frontier: every vertex of the frontier has one value of '",
         p, "' (level-synchronous; ", reads.size(),
         reads.size() == 1 ? " read" : " reads", " per edge removed)");
}

} // namespace
