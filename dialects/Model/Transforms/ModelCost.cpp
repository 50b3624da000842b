//===- ModelCost.cpp - The model-cost pass --------------------------------===//
//
// Attaches the costs of ModelCostWalk.cpp to the ops of each
// model.transformer and cross-checks uniform models against SluiceModelCost.
//
//===----------------------------------------------------------------------===//
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "dialects/Model/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "support/NumberFormat.h"
#include <cmath>
#include <string>

namespace sluice::model {
#define GEN_PASS_DEF_MODELCOST
#include "dialects/Model/Transforms/Passes.h.inc"
} // namespace sluice::model

using namespace mlir;
using namespace sluice::model;

namespace {

struct ModelCostPass
    : public sluice::model::impl::ModelCostBase<ModelCostPass> {
  using ModelCostBase::ModelCostBase;
  void runOnOperation() override;
  LogicalResult annotate(TransformerOp op);
  LogicalResult annotate(JobOp job);
};

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

LogicalResult ModelCostPass::annotate(TransformerOp op) {
  Builder b(op.getContext());
  const int64_t seq = op.getSeqAttr().getInt();
  // Every quantity is a whole number of bytes or FLOPs (FLOPs per token
  // are 6W + 12sh-style sums): integer attributes print exactly.
  bool tooLarge = false;
  auto f64 = [&](double v) {
    if (!(v >= 0 && v < 9.0e18)) {
      tooLarge = true;
      v = 0;
    }
    return b.getI64IntegerAttr(static_cast<int64_t>(std::llround(v)));
  };
  auto setBlock = [&](Operation *o, const BlockCost &c, bool acts) {
    o->setAttr("params", b.getI64IntegerAttr(c.params));
    o->setAttr("fwd_flops", f64(c.fwdFlops));
    if (acts) {
      o->setAttr("act_bytes", f64(c.actBytes));
      o->setAttr("act_bytes_selective", f64(c.actBytesSelective));
    }
  };
  for (Operation &child : op.getBody().front()) {
    auto layers = dyn_cast<LayersOp>(child);
    if (!layers) {
      setBlock(&child, blockCost(&child, seq, microBatch), false);
      continue;
    }
    BlockCost layer;
    for (Operation &inner : layers.getBody().front()) {
      BlockCost c = blockCost(&inner, seq, microBatch);
      setBlock(&inner, c, true);
      layer += c;
    }
    const int64_t n = layers.getCountAttr().getInt();
    const double nd = static_cast<double>(n);
    const double sbh = static_cast<double>(seq) *
                       static_cast<double>(microBatch) *
                       static_cast<double>(op.getHiddenAttr().getInt());
    layers->setAttr("params", b.getI64IntegerAttr(layer.params * n));
    layers->setAttr("fwd_flops", f64(layer.fwdFlops * nd));
    layers->setAttr("act_bytes", f64(layer.actBytes * nd));
    layers->setAttr("act_bytes_selective", f64(layer.actBytesSelective * nd));
    layers->setAttr("act_bytes_full", f64(2.0 * sbh * nd));
  }

  ModelTotals t = transformerCost(op, microBatch);
  op->setAttr("micro_batch", b.getI64IntegerAttr(microBatch));
  op->setAttr("params", b.getI64IntegerAttr(t.params));
  op->setAttr("param_bytes", f64(t.paramBytes));
  op->setAttr("grad_bytes", f64(t.gradBytes));
  op->setAttr("optimizer_bytes", f64(t.optimizerBytes));
  op->setAttr("fwd_flops", f64(t.fwdFlops));
  op->setAttr("train_flops_per_token", f64(t.trainFlopsPerToken));
  op->setAttr("train_flops_per_token_recompute",
              f64(t.trainFlopsPerTokenRecompute));
  op->setAttr("act_bytes", f64(t.actBytes));
  op->setAttr("act_bytes_selective", f64(t.actBytesSelective));
  op->setAttr("act_bytes_full", f64(t.actBytesFull));
  op->setAttr("kv_cache_bytes_per_token", f64(t.kvCacheBytesPerToken));

  if (tooLarge)
    return op.emitOpError()
           << "model-cost: a cost does not fit in 64 bits (micro-batch "
           << static_cast<int64_t>(microBatch) << " too large?)";

  // Cross-check a uniform model against SluiceModelCost's closed forms.
  std::optional<TransformerConfig> cfg = uniformConfig(op);
  if (!cfg)
    return success();
  const double L = static_cast<double>(cfg->layers);
  auto disagree = [&](const char *what, double ours, double theirs) {
    return op.emitOpError()
           << "model-cost: the blocks give " << what << " "
           << sluice::formatNumber(ours) << " but SluiceModelCost gives "
           << sluice::formatNumber(theirs);
  };
  const int64_t refParams = countParameters(*cfg).total();
  if (refParams != t.params)
    return disagree("parameters", static_cast<double>(t.params),
                    static_cast<double>(refParams));
  TrainingFlops ref = trainingFlops(*cfg, 1);
  if (!close(t.fwdFlops, ref.forward()))
    return disagree("forward FLOPs", t.fwdFlops, ref.forward());
  if (!close(t.trainFlopsPerTokenRecompute, trainingFlopsPerToken(*cfg, true)))
    return disagree("training FLOPs per token (recompute)",
                    t.trainFlopsPerTokenRecompute,
                    trainingFlopsPerToken(*cfg, true));
  const std::pair<Recompute, double> acts[] = {
      {Recompute::None, t.actBytes},
      {Recompute::Selective, t.actBytesSelective},
      {Recompute::Full, t.actBytesFull}};
  for (auto [r, ours] : acts) {
    double theirs = L * activationBytesPerLayer(*cfg, microBatch, r);
    if (!close(ours, theirs))
      return disagree("activation bytes", ours, theirs);
  }
  if (!close(t.kvCacheBytesPerToken, kvCacheBytesPerToken(*cfg)))
    return disagree("KV-cache bytes per token", t.kvCacheBytesPerToken,
                    kvCacheBytesPerToken(*cfg));
  op->setAttr("cross_checked", b.getUnitAttr());
  return success();
}

LogicalResult ModelCostPass::annotate(JobOp job) {
  auto model = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      job, job.getModelAttr());
  if (!model)
    return success(); // the verifier reports it
  Builder b(job.getContext());
  JobCosts c = jobCosts(job, model);
  bool tooLarge = false;
  auto i64 = [&](double v) {
    if (!(v >= 0 && v < 9.0e18)) {
      tooLarge = true;
      v = 0;
    }
    return b.getI64IntegerAttr(static_cast<int64_t>(std::llround(v)));
  };
  SmallVector<Attribute> groups;
  for (const JobLayerCosts &g : c.groups) {
    NamedAttrList d;
    d.append("count", b.getI64IntegerAttr(g.count));
    d.append("params", b.getI64IntegerAttr(g.cost.params));
    d.append("fwd_flops", i64(g.cost.fwdFlops));
    d.append("act_bytes", i64(g.cost.actBytes));
    d.append("act_bytes_selective", i64(g.cost.actBytesSelective));
    d.append("hidden", b.getI64IntegerAttr(g.hidden));
    d.append("heads", b.getI64IntegerAttr(g.heads));
    d.append("kv_dim", b.getI64IntegerAttr(g.kvDim));
    d.append("ffn", b.getI64IntegerAttr(g.ffn));
    d.append("gated", b.getBoolAttr(g.gated));
    if (g.experts > 0) {
      d.append("experts", b.getI64IntegerAttr(g.experts));
      d.append("top_k", b.getI64IntegerAttr(g.topK));
      d.append("capacity", b.getF64FloatAttr(g.capacity));
    }
    groups.push_back(d.getDictionary(job.getContext()));
  }
  job->setAttr("cost_seq", b.getI64IntegerAttr(c.seq));
  job->setAttr("layer_costs", b.getArrayAttr(groups));
  job->setAttr("other_params", b.getI64IntegerAttr(c.otherParams));
  job->setAttr("head_fwd_flops", i64(c.headFwdFlops));
  job->setAttr("params", b.getI64IntegerAttr(c.params));
  job->setAttr("param_bytes", i64(c.paramBytes));
  job->setAttr("grad_bytes", i64(c.gradBytes));
  job->setAttr("optimizer_bytes", i64(c.optimizerBytes));
  job->setAttr("kv_cache_bytes_per_token", i64(c.kvCacheBytesPerToken));
  if (tooLarge)
    return job.emitOpError()
           << "model-cost: a cost does not fit in 64 bits";
  return success();
}

void ModelCostPass::runOnOperation() {
  if (microBatch <= 0) {
    getOperation().emitError()
        << "model-cost: micro-batch must be positive, got "
        << static_cast<int64_t>(microBatch);
    return signalPassFailure();
  }
  for (auto op : getOperation().getOps<TransformerOp>())
    if (failed(annotate(op)))
      signalPassFailure();
  for (auto job : getOperation().getOps<JobOp>())
    if (failed(annotate(job)))
      signalPassFailure();
}
