//===- ModelCostWalk.h - Costs of model ops ---------------------*- C++ -*-===//
//
// The per-block cost formulas of the model dialect (parameters, forward
// FLOPs, stored activations) and the totals of a model.transformer, computed
// by walking its ops; and uniformConfig(), the SluiceModelCost configuration
// of a uniform transformer, which the model-cost pass cross-checks against
// and the job lowering hands to the offload planners. docs/dialects/model.md
// lists the formulas.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_TRANSFORMS_MODELCOSTWALK_H
#define SLUICE_DIALECTS_MODEL_TRANSFORMS_MODELCOSTWALK_H

#include "compiler/Analysis/Model/TransformerCost.h"
#include "dialects/Model/IR/ModelOps.h"
#include <optional>
#include <vector>

namespace sluice::model {

/// Costs of one block (or the sum of several). FLOPs are forward FLOPs for
/// one sequence of `seq` tokens; activation bytes are for `microBatch`
/// sequences.
struct BlockCost {
  int64_t params = 0;
  double fwdFlops = 0;
  double actBytes = 0;          ///< stored for backward, no recomputation
  double actBytesSelective = 0; ///< with selective recomputation
  BlockCost &operator+=(const BlockCost &o) {
    params += o.params;
    fwdFlops += o.fwdFlops;
    actBytes += o.actBytes;
    actBytesSelective += o.actBytesSelective;
    return *this;
  }
};

/// The cost of one block op (embedding, norm, attention, mlp, head) in a
/// model with sequence length `seq`.
BlockCost blockCost(mlir::Operation *op, int64_t seq, int64_t microBatch);

/// The totals of a transformer.
struct ModelTotals {
  int64_t params = 0;
  double fwdFlops = 0;       ///< per sequence
  double layersFwdFlops = 0; ///< the part in model.layers
  double actBytes = 0, actBytesSelective = 0, actBytesFull = 0;
  double paramBytes = 0, gradBytes = 0, optimizerBytes = 0;
  double trainFlopsPerToken = 0, trainFlopsPerTokenRecompute = 0;
  double kvCacheBytesPerToken = 0;
};

/// Walks `op`'s blocks.
ModelTotals transformerCost(TransformerOp op, int64_t microBatch);

/// One model.layers op's layer, as a job sees it: its costs for one
/// sequence of the job's length and the shapes of its (first) attention and
/// MLP.
struct JobLayerCosts {
  int64_t count = 0;
  BlockCost cost; ///< one layer, one sequence
  int64_t hidden = 0, heads = 0, kvDim = 0, ffn = 0;
  bool gated = false;
  /// A mixture of experts (0 experts: a dense MLP).
  int64_t experts = 0, topK = 0;
  double capacity = 1;
  int64_t attentions = 0, mlps = 0; ///< blocks of each kind in the layer
};

/// What the model-cost pass attaches to a model.job: the costs of its
/// model at the job's sequence length (`seq`, else the model's), per
/// sequence, and the model states for the job's optimizer (optimizerCost
/// in TransformerCost.h: 12 bytes per parameter for Adam/AdamW, 8 for SGD
/// with momentum and Lion, 4 plus the factored moments for Adafactor) and
/// the host bytes its update moves per parameter.
struct JobCosts {
  int64_t seq = 0;
  std::vector<JobLayerCosts> groups; ///< one per model.layers, in order
  int64_t otherParams = 0;           ///< embeddings, norms, head
  double headFwdFlops = 0;           ///< the blocks outside model.layers
  int64_t params = 0;
  double paramBytes = 0, gradBytes = 0, optimizerBytes = 0;
  double updateBytes = 28; ///< per parameter, host memory (CPU update)
  double kvCacheBytesPerToken = 0;
};

JobCosts jobCosts(JobOp job, TransformerOp model);

/// Bytes per element of the model's dtype (2 for f16).
int64_t dtypeBytes(TransformerOp op);

/// SluiceModelCost's description of `op` when its layers are uniform (one
/// model.layers of norm, attention, norm, mlp, one norm kind, biases on all
/// linear layers or none, a final norm); nullopt otherwise.
std::optional<TransformerConfig> uniformConfig(TransformerOp op);

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_TRANSFORMS_MODELCOSTWALK_H
