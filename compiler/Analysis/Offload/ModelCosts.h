//===- ModelCosts.h - Per-layer costs the offload planners read -*- C++ -*-===//
//
// The planners' view of a model: its layers in groups of identical
// consecutive layers, each with its parameters, forward FLOPs and stored
// activations for one sequence of the job's length, plus the shapes that
// size Ratel's swappable tensors and the KV cache; and the rest of the model
// (embeddings, final norm, head). sluicec fills it from the attributes the
// model-cost pass attaches to a model.job (dialects/Model/Transforms), so a
// model whose layers differ is planned layer by layer; uniformCosts() builds
// it from SluiceModelCost's closed forms for a uniform TransformerConfig
// (the planners' default when a job carries no costs).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_MODELCOSTS_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_MODELCOSTS_H

#include "compiler/Analysis/Model/GemmModel.h"
#include "compiler/Analysis/Model/TransformerCost.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::offload {

/// `count` identical consecutive transformer layers. Costs are for one layer
/// and one sequence of the job's `seq` tokens.
struct LayerGroup {
  int64_t count = 0;
  double params = 0;            ///< parameters of one layer
  double fwdFlops = 0;          ///< forward FLOPs
  double actBytes = 0;          ///< stored for backward, no recomputation
  double actBytesSelective = 0; ///< with selective recomputation
  // Shapes.
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kvDim = 0; ///< kv_heads * head_dim
  int64_t ffn = 0;
  bool gated = false; ///< SwiGLU: gate and up projections
  /// A mixture of experts: `experts` MLPs of width `ffn` (0: a dense MLP),
  /// `topK` per token, capacity factor `capacity`.
  int64_t experts = 0, topK = 0;
  double capacity = 1;
  /// Expert MLPs a token passes through: min(capacity * topK, experts).
  double routedPerToken() const;
};

struct ModelCosts {
  std::vector<LayerGroup> groups;
  double otherParams = 0;  ///< embeddings, positions, final norm, head
  double headFwdFlops = 0; ///< the logits, one sequence
  int64_t seq = 0;         ///< tokens per sequence the costs are for
  int64_t vocab = 0;
  int64_t dtypeBytes = 2;

  int64_t layers() const;
  double params() const;
  /// Forward FLOPs of one sequence (layers and logits).
  double fwdFlops() const;
  /// The group of layer `l` (0-based; l < layers()).
  const LayerGroup &groupOf(int64_t l) const;
  /// KV-cache bytes per token of one layer of `g`.
  double kvBytesPerToken(const LayerGroup &g) const {
    return 2.0 * static_cast<double>(g.kvDim) *
           static_cast<double>(dtypeBytes);
  }
  /// Empty when usable, else what is wrong ("group 2 has count 0").
  std::string validate() const;
};

/// The costs of a uniform model (SluiceModelCost's formulas) at cfg.seq.
ModelCosts uniformCosts(const model::TransformerConfig &cfg);

/// Attained GPU FLOP/s of a layer's (or the head's) forward and backward
/// passes: the FLOPs of its GEMMs over their model::gemmTime. The planners
/// divide a block's FLOPs (model-cost's, which may count more than the
/// GEMMs) by these rates.
struct ComputeRates {
  double forward = 0, backward = 0;
};

/// The GEMMs of one layer of `g` over `sequences` sequences of `seq`
/// tokens: q/k/v projection, fused attention (FlashAttention: batch
/// sequences x heads of seq x seq x 2 head_dim, moving Q, K, V and O
/// only), output projection, MLP up (and gate), MLP down.
std::vector<model::GemmShape> layerForwardGemms(const LayerGroup &g,
                                                double sequences, int64_t seq,
                                                model::GemmDtype dtype);
/// The backward GEMMs of `forward`: a data-gradient (M x K x N) and a
/// weight-gradient (K x N x M) GEMM per projection; attention twice its
/// forward work and traffic.
std::vector<model::GemmShape>
backwardGemms(const std::vector<model::GemmShape> &forward);
/// Forward and backward rates of a layer of `g` for `sequences` sequences.
ComputeRates layerRates(const ModelCosts &c, const LayerGroup &g,
                        double sequences, const model::GemmDevice &d);
/// The logits GEMM (tokens x vocab x hidden of the last layer) and its
/// backward.
ComputeRates headRates(const ModelCosts &c, double sequences,
                       const model::GemmDevice &d);

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_MODELCOSTS_H
