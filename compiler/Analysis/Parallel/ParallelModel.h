//===- ParallelModel.h - Memory and time of a 3D-parallel config -*- C++
//-*-===//
//
// The cost model of one training iteration of a decoder-only transformer
// under Megatron-LM-style 3D parallelism on a ParallelCluster (docs/
// parallel.md states every formula and its source):
//
//  - memory per GPU of the most loaded (first) pipeline stage: its model
//    states (Megatron's 18 B/param; the distributed optimizer / ZeRO-1
//    6 + 12/d; ZeRO-2 2 + 14/d and ZeRO-3 16/d with 16 B/param, DeepSpeed)
//    plus the activations of Korthikanti et al. (TP, SP, selective or full
//    recomputation; min(m, p) micro-batches in flight under 1F1B, times
//    1 + (p-1)/(p*v) interleaved), times a calibration factor, against the
//    GPU memory minus a reserve;
//  - time: per stage, the forward (F) and backward (B) time of one
//    micro-batch: GEMMs on a roofline (peak x kernel efficiency, or the
//    memory bandwidth for thin GEMMs: the efficiency depends on the GEMM
//    shapes), plus the tensor-parallel all-reduces (ring over the links the
//    TP group uses, slowest link); the pipeline by Pipette's 1F1B critical
//    path with the p2p time of a round through every stage boundary
//    (C_pp, each boundary at its slowest TP rank's link); the
//    gradient all-reduce of each data-parallel group as the faster of a flat
//    ring and Pipette's intra-/inter-host rings (slowest link of each); the
//    optimizer step as memory-bound over the states;
//  - a mixture of experts (model.moe()): expert parallelism of degree ep
//    (DeepSpeed-MoE, Megatron-LM's --expert-model-parallel-size): the experts
//    of each layer sharded over ep consecutive ranks of each data-parallel
//    group; expert states / ep, their gradients reduced over the dp / ep
//    replicas of each expert; two all-to-alls (dispatch, combine) per MoE
//    layer and micro-batch forward and two backward.
//
// A Placement maps ranks (Megatron order: TP fastest, then DP, then PP) to
// GPUs; the identity is Megatron-LM's default.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELMODEL_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELMODEL_H

#include "compiler/Analysis/Model/TransformerCost.h"
#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::parallel {

/// The training job.
struct TrainJob {
  model::TransformerConfig model; ///< seq = the training sequence length
  int64_t globalBatch = 0;        ///< sequences per iteration
  /// 0 = search the micro-batch size; else fixed.
  int64_t microBatch = 0;
  /// The job asked for recomputation (`recompute: true`): only Selective
  /// and Full are searched.
  bool recomputeRequired = false;
};

/// Knobs of the model, each an assumption stated in docs/parallel.md.
struct ModelOptions {
  /// Attained fraction of the peak by large GEMMs (cuBLAS on A100/H100).
  double kernelEfficiency = 0.75;
  /// Attention score kernels (softmax, Q*K^T, scores*V) attain this.
  double attentionEfficiency = 0.5;
  /// Real usage over Korthikanti's formulas and the model states
  /// (fragmentation, workspaces, NCCL buffers): estimate x this factor.
  double memoryCalibration = 1.10;
  /// Bytes per GPU the plan may not use (CUDA context, cuBLAS workspace).
  double memoryReserve = 2.0 * 1024 * 1024 * 1024;
  /// Fraction of a link's bandwidth NCCL collectives attain.
  double collectiveEfficiency = 0.85;
  /// Fraction of a host's memory optimizer offload may use (the OS, the
  /// framework, pinned buffers and the data loader take the rest).
  double hostUsableFraction = 0.9;
  /// Optimus-CC compression (opt-in: it is lossy): 0 = off, else the rank r
  /// of the low-rank (one power iteration, PowerSGD-style) compression of
  /// the epilogue's backward sends and of the gradients of the stages whose
  /// all-reduce is on the critical path. Each is kept only where it pays.
  int64_t compressRank = 0;
};

/// One point of the search space.
struct ParallelConfig {
  int64_t tp = 1, pp = 1, dp = 1;
  /// Expert parallelism (mixtures of experts only): each layer's experts
  /// sharded over ep ranks of each data-parallel group (ep divides dp and
  /// the experts; Megatron-LM needs sequence parallelism with tp > 1).
  int64_t ep = 1;
  int64_t microBatch = 1;
  int64_t virtualStages = 1; ///< interleaved 1F1B chunks per stage
  model::Recompute recompute = model::Recompute::None;
  bool sequenceParallel = false;
  /// 0 none, 1 distributed optimizer (ZeRO-1), 2 and 3 (DeepSpeed, pp = 1).
  int64_t zeroStage = 0;
  /// Optimizer offload (ZeRO-Offload; Megatron-LM's --optimizer-cpu-offload):
  /// each GPU's shard of the fp32 master weights and optimizer states lives
  /// in its host's memory and the host's CPUs update it after the backward
  /// pass (gradients down, updated parameters up). Needs zeroStage >= 1.
  bool offloadOptimizer = false;
  /// Micro-batches per iteration per pipeline (globalBatch / (dp * b)).
  int64_t microBatches(const TrainJob &job) const {
    return job.globalBatch / (dp * microBatch);
  }
  /// "tp 8 pp 4 dp 2 ep 2 b 1 v 2 selective sp zero 1 offload" (ep only
  /// when above 1)
  std::string str() const;
  bool operator==(const ParallelConfig &o) const;
};

/// Rank r runs on GPU gpuOfRank[r]. Ranks follow Megatron-LM's order:
/// tp = r % t, dp = (r / t) % d, pp = r / (t * d). With expert parallelism
/// the expert-parallel group of a rank is the ep consecutive dp ranks
/// dp / ep * ep .. + ep - 1 (same tp and pp ranks), and its experts' data-
/// parallel group the dp ranks congruent to it modulo ep (Megatron-LM).
struct Placement {
  std::vector<int64_t> gpuOfRank;
  /// Megatron-LM's default: rank r on GPU r.
  static Placement identity(int64_t n);
};

/// Why a configuration is rejected, in search order.
enum class Constraint {
  None,
  Divisibility, ///< heads, layers, batch, hidden not divisible
  TensorSpan,   ///< a TP group would span hosts
  Memory,       ///< the first stage does not fit
};
llvm::StringRef constraintName(Constraint c);

/// Memory of the most loaded GPU (the first stage), bytes.
struct MemoryEstimate {
  double params = 0, grads = 0, optimizer = 0;
  double activations = 0;
  double calibrated = 0; ///< (states + activations) x calibration
  double available = 0;  ///< GPU memory minus the reserve
  /// Optimizer offload: the optimizer states a host holds for its GPUs
  /// (`optimizer` is then 0), against its usable memory.
  double hostNeed = 0, hostAvailable = 0;
  bool fits() const {
    return calibrated <= available && hostNeed <= hostAvailable;
  }
  /// The larger of need / usable on the GPU and on the host.
  double ratio() const {
    return std::max(calibrated / available,
                    hostNeed > 0 ? hostNeed / hostAvailable : 0.0);
  }
};

/// Time of one iteration, seconds.
struct TimeEstimate {
  double forward = 0;    ///< F of the slowest stage, one micro-batch
  double backward = 0;   ///< B likewise (recomputation included)
  double tensorComm = 0; ///< of F + B: the TP all-reduces
  /// Of F + B: the expert all-to-alls of one micro-batch (4 per MoE layer,
  /// 6 with full recomputation); 0 without expert parallelism.
  double expertComm = 0;
  double p2p = 0;        ///< C_pp: p2p of one round (forward + backward)
  double pipeline = 0;   ///< Pipette's T_pp
  double dataComm = 0;   ///< gradient all-reduce / reduce-scatter+all-gather
  /// The optimizer step: on the GPU, memory-bound over the states; with
  /// offload, gradients down + the host CPUs' update + parameters up.
  double optimizer = 0;
  double iteration = 0;
  double modelFlops = 0; ///< per iteration (forward + backward, no recompute)
  double hardwareFlops = 0; ///< + recomputation
  double tflopsPerGpu = 0;  ///< model FLOPs / iteration / N
  double mfu = 0;           ///< modelFlops / (iteration * N * peak)
  double hfu = 0;           ///< hardwareFlops / (iteration * N * peak)
  /// Optimus-CC (ModelOptions::compressRank > 0), only what pays:
  int64_t compressRank = 0; ///< 0: nothing compressed
  /// The backward sends of the last `compressedMicroBatches` micro-batches
  /// (the cool-down, min(m, p - 1)) at every stage boundary; 0: none.
  int64_t compressedMicroBatches = 0;
  /// Stages whose data-parallel gradients are compressed (increasing).
  std::vector<int64_t> compressedDataStages;
  /// The iteration without compression (== iteration when none is kept).
  double uncompressedIteration = 0;
  double epilogueSaving = 0; ///< seconds the epilogue compression saves
  /// With compressedMicroBatches: the backward half of C_pp compressed
  /// (its sends of one round, with the codec's compute), s.
  double compressedBackwardP2p = 0;
  double dataSaving = 0;     ///< seconds the DP compression saves
};

struct Estimate {
  Constraint rejected = Constraint::None;
  std::string reason; ///< when rejected: the constraint with numbers
  MemoryEstimate memory;
  TimeEstimate time;
};

/// Checks divisibility and the host span of TP, for `n` GPUs.
Constraint checkShape(const TrainJob &job, const ParallelCluster &cluster,
                      const ParallelConfig &c, std::string *reason = nullptr);

/// The memory estimate of `c` (no placement needed).
MemoryEstimate estimateMemory(const TrainJob &job,
                              const ParallelCluster &cluster,
                              const ParallelConfig &c,
                              const ModelOptions &opts = {});

/// Shape check, memory and time of `c` under placement `pl`.
Estimate evaluate(const TrainJob &job, const ParallelCluster &cluster,
                  const ParallelConfig &c, const Placement &pl,
                  const ModelOptions &opts = {});

/// The communication part of the time that depends on the placement:
/// the TP all-reduce time per micro-batch (max over groups), C_pp and the
/// DP time. Exposed for the placement search.
struct CommTimes {
  double tensor = 0, p2p = 0, data = 0;
  /// One expert all-to-all of one micro-batch (max over the ep groups).
  double expert = 0;
  /// With ModelOptions::compressRank > 0 only: the backward half of C_pp
  /// (per boundary its slowest backward send), the same compressed
  /// (rank-r message, plus the compress and decompress compute), and per
  /// stage its DP time uncompressed and compressed (max over its TP ranks).
  double p2pBackward = 0, p2pBackwardCompressed = 0;
  std::vector<double> dataPerStage, dataPerStageCompressed;
};
CommTimes commTimes(const TrainJob &job, const ParallelCluster &cluster,
                    const ParallelConfig &c, const Placement &pl,
                    const ModelOptions &opts = {});

/// Ring all-reduce time of `bytes` over `ranks` (GPU indices in ring
/// order): 2(k-1)/k * bytes / (slowest link x efficiency) + 2(k-1) x the
/// slowest latency. 0 for fewer than two ranks.
double ringAllReduce(const ParallelCluster &cluster,
                     llvm::ArrayRef<int64_t> ranks, double bytes,
                     double efficiency);

/// All-to-all time where each of `ranks` (k GPUs) holds `bytes` and sends
/// bytes / k to every other (pairwise exchange: k - 1 sends one after the
/// other, each at its own link): max over the ranks of the sum over its
/// peers of bytes / k / (link x efficiency) + latency. On uniform links
/// (k-1)/k x bytes / (bw x efficiency) + (k-1) x latency. 0 for fewer than
/// two ranks.
double pairwiseAllToAll(const ParallelCluster &cluster,
                        llvm::ArrayRef<int64_t> ranks, double bytes,
                        double efficiency);

/// Bytes one GPU holds in one expert all-to-all (dispatch or combine) of
/// one MoE layer and micro-batch: its b x s / t tokens (sequence parallel
/// with tp > 1) times routedPerToken() copies (top_k x capacity factor, at
/// most the experts) times hidden x dtype; 0 for a dense model. Of these,
/// (ep - 1) / ep leave the GPU.
double expertAllToAllBytes(const TrainJob &job, const ParallelConfig &c);

/// Parameters one GPU holds: of the first and the last pipeline stage, and
/// of them the experts' (the same in every stage: L / pp layers x the
/// experts' matrices / (tp x ep)).
struct StageParams {
  double first = 0, last = 0;
  double expert = 0;
};
StageParams stageParams(const model::TransformerConfig &m,
                        const ParallelConfig &c);

/// Memory and time of `c` (shape already checked) with the communication
/// times `comm`; with all-zero `comm`, a lower bound on the iteration time
/// of every placement (the search's bound).
Estimate evaluateWithComm(const TrainJob &job, const ParallelCluster &cluster,
                          const ParallelConfig &c, const CommTimes &comm,
                          const ModelOptions &opts = {});

/// Pipette's 1F1B critical path for p stages, m micro-batches, per-stage
/// F and B of one micro-batch and C_pp per round: m >= p:
/// floor(m/p)(p(F+B) + C) + (p-1)(F+B); else p(F+B) + C + (m-1)(F+B).
/// Interleaved (v > 1): the bubble term (p-1)(F+B) becomes (p-1)(F+B)/v and
/// the p2p of a round is paid v times.
double pipetteCriticalPath(int64_t p, int64_t m, int64_t v, double F, double B,
                           double C);

/// Bytes of a (rows x cols) matrix after rank-r compression: its two
/// factors, (rows + cols) r elements, never more than rows x cols.
double lowRankBytes(double rows, double cols, int64_t r, double dtype);

/// Optimus-CC's epilogue-only compression on Pipette's path: only the
/// backward sends of the cool-down are on the critical path, and the
/// formula charges them as the backward half of the last round's C_pp
/// (v times interleaved): T = pipetteCriticalPath(p, m, v, F, B, C) -
/// v (Cb - Cb') for p > 1, where Cb is that backward half and Cb' the
/// same compressed (with the compress/decompress compute).
double epilogueCriticalPath(int64_t p, int64_t m, int64_t v, double F, double B,
                            double C, double Cb, double CbCompressed);

/// Selective stage compression of the gradient reduction: with D_s and
/// D'_s the stage times uncompressed and compressed, the reduction takes
/// target = max_s min(D_s, D'_s); the stages compressed are exactly those
/// with D_s > target (the ones on the critical path). Returns them
/// (increasing) and sets `time` to the reduction time (max_s D_s when none).
std::vector<int64_t> selectDataStages(llvm::ArrayRef<double> D,
                                      llvm::ArrayRef<double> DCompressed,
                                      double &time);

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELMODEL_H
