//===- SmartInfinity.h - Smart-Infinity's configurations as plans -*- C++
//-*-===//
//
// Smart-Infinity (Jang et al., HPCA'24) against its baseline, DeepSpeed
// ZeRO-Infinity with the optimizer states on a RAID 0 of the same SSDs: the
// planner options of each configuration the paper measures (BASE, SU, SU+O,
// SU+O+C), the speedup of one over BASE on the same machine (both planned by
// planFinetune), and the published speedups the validation compares with.
// docs/offload.md, "Smart-Infinity", has the sources of every figure.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_SMARTINFINITY_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_SMARTINFINITY_H

#include "compiler/Analysis/Offload/FinetunePlanner.h"

#include <optional>

namespace sluice::offload {

/// The paper's configurations (Sec. VII-A).
enum class SmartInfinityConfig {
  Base,                   ///< ZeRO-Infinity, optimizer on the RAID 0
  SmartUpdate,            ///< SU: the update on the CSDs
  SmartUpdateOverlap,     ///< SU+O: with the data transfer handler
  SmartUpdateOverlapComp, ///< SU+O+C: and top-k gradient compression
};
/// "base", "su", "su+o", "su+o+c".
llvm::StringRef smartInfinityConfigName(SmartInfinityConfig c);
std::optional<SmartInfinityConfig>
parseSmartInfinityConfig(llvm::StringRef name);

/// The paper's default top-k: 1% of the gradients kept ("2% compression,
/// top 1% selection, an index-value pair per element", Sec. VII-K).
constexpr double kSmartCompTopK = 0.01;

/// Planner options for configuration `c`: parameters in host memory
/// (DeepSpeed's offload_param to cpu), full recomputation (Megatron's
/// --checkpoint-activations), the update after the whole backward pass
/// (the gradient norm and the NaN/Inf check need every gradient first,
/// Sec. IV-C); BASE with the optimizer on NVMe and DeepSpeed's swapper,
/// the others on the CSDs reading back the fp32 master.
FinetuneOptions smartInfinityOptions(SmartInfinityConfig c,
                                     double topK = kSmartCompTopK);

/// Iteration time of BASE over that of `c`, both planned on `m`.
llvm::Expected<double> smartInfinitySpeedup(const FinetuneJob &job,
                                            const Machine &m,
                                            SmartInfinityConfig c,
                                            double topK = kSmartCompTopK);

/// One published speedup over BASE (A5000 unless `a100`).
struct SmartInfinityPublished {
  const char *model; ///< modelPreset name (gpt2-4.0b, ...), seq 1024
  int64_t csds;
  SmartInfinityConfig config;
  double speedup;
  const char *source; ///< where in the paper
  bool a100 = false;  ///< Machine::a100SmartSsd instead of the A5000
  /// Why the model misses this row by more than 25% (nullptr: it does
  /// not); docs/offload.md explains each.
  const char *notMet = nullptr;
};
/// The published speedups the validation compares with (Fig. 9 and
/// Fig. 11(a), read off the figures, and the text's ranges).
llvm::ArrayRef<SmartInfinityPublished> smartInfinityPublished();

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_SMARTINFINITY_H
