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

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_MODELCOSTS_H
