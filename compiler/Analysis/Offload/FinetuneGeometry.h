//===- FinetuneGeometry.h - Sizes and FLOPs the planner schedules -*- C++
//-*-===//
//
// Internal to the fine-tune planner (FinetunePlanner.cpp): one micro-batch's
// sizes and FLOPs per block (layers and the head), with LoRA's adapters,
// input-gradient-only backward and QLoRA's dequantization; the model FLOPs
// of an iteration; and the bytes per parameter of the model states the
// planner places (LoRA: the adapters' states spread over all parameters).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEGEOMETRY_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEGEOMETRY_H

#include "compiler/Analysis/Offload/FinetunePlanner.h"

#include <array>
#include <cstdint>
#include <vector>

namespace sluice::offload::detail {

/// Sizes and FLOPs of one layer group for one micro-batch.
struct LayerGeometry {
  double params = 0;
  double fwdFlops = 0;
  double bwdFlops = 0;      ///< 2 x forward; LoRA: input gradients only
  double adapterParams = 0; ///< LoRA adapters of one layer
  double dequantTime = 0;   ///< QLoRA: per GEMM pass over the layer, s
  double ckptBytes = 0;     ///< the layer's input
  std::array<double, kNumSwappable> swapBytes{};
  std::array<double, kNumSwappable> swapRecompute{};
  std::array<unsigned, kNumSwappable> rank{}; ///< by FLOPs per byte
  double work = 0;                            ///< GPU working set of the layer
  ComputeRates rate;                          ///< attained FLOP/s (GEMM model)
};

/// Sizes and FLOPs of one micro-batch, per block.
struct Geometry {
  int64_t layers = 0;
  double N = 0;              ///< all parameters
  double maxLayerParams = 0; ///< the largest layer
  double headParams = 0;     ///< embeddings, positions, final norm, head
  double headFwdFlops = 0;   ///< the logits
  double headBwdFlops = 0;   ///< 2 x forward; LoRA: input gradients only
  double adapterParams = 0;  ///< LoRA: all adapters
  ComputeRates headRate;
  std::vector<LayerGeometry> groups;
  std::vector<size_t> groupOf; ///< layer -> groups index
  double logitsWork = 0;       ///< GPU working set of the logits
  const LayerGeometry &layer(int64_t l) const {
    return groups[groupOf[static_cast<size_t>(l)]];
  }
};

/// The geometry of micro-batches of `b` sequences.
Geometry geometry(const ModelCosts &c, const FinetuneJob::Lora &lora, int64_t b,
                  const FinetuneOptions &opts, const Machine &m);

/// Forward + backward FLOPs of one iteration (LoRA: see modelFlops in
/// FinetuneGeometry.cpp).
double modelFlops(const FinetuneJob &job, const Machine &m,
                  const FinetuneOptions &o);

/// The bytes per model parameter the planner places: the job's, or with
/// LoRA the frozen base's weights (16-bit, or NF4) plus the adapters'
/// weights, and the adapters' gradients, optimizer states and update
/// traffic spread over all N parameters (a fraction A / N of each).
model::StatePrecision statePrecision(const FinetuneJob &job, const Geometry &g);

} // namespace sluice::offload::detail

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEGEOMETRY_H
