//===- InferencePlanner.h - FlexGen-style offloaded inference --*- C++ -*-===//
//
// Throughput-oriented generation with weights, KV cache and activations
// spread over GPU, CPU memory and disk (FlexGen, Sheng et al. 2023). A block
// of gpuBatch x numGpuBatches sequences is processed layer by layer: a
// layer's weights are loaded once per block and reused by every GPU batch,
// and the transfers of the next layer overlap the computation of this one,
// so a prefill layer takes the maximum of its compute and of each link's
// transfer time (host->GPU, GPU->host, disk->host, host->disk); a decode
// layer takes its host->GPU time plus the maximum of the others (FlexGen's
// fitted cost model: its runtime does not hide decode loads). Compute includes
// what FlexGen's runtime pays beyond the links (Machine::inferLayerOverhead
// per layer and GPU batch, the GPU time of 4-bit (de)compression) and,
// with cpu_cache_compute, decode attention on the CPU, which runs between
// the GPU's projections of the same layer (serial with them).
//
// For each (gpuBatch, numGpuBatches) the fractions are the solution of a
// linear program (GLPK): minimise L * T_prefill + L * (n - 1) * T_decode,
// with T_prefill and T_decode bounded below by every per-layer term (all
// linear in the fractions), each placement row summing to 1, and the GPU,
// CPU and disk capacities as constraints. The search keeps the policy with
// the highest generation throughput. docs/offload.md has the terms.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_INFERENCEPLANNER_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_INFERENCEPLANNER_H

#include "compiler/Analysis/Model/TransformerCost.h"
#include "compiler/Analysis/Offload/ModelCosts.h"
#include "compiler/Analysis/Offload/OffloadAction.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::offload {

struct InferenceJob {
  model::TransformerConfig model;
  int64_t prompt = 0;   ///< prompt tokens per sequence
  int64_t generate = 0; ///< generated tokens per sequence
  /// The per-layer costs for one sequence of `prompt` tokens; without them,
  /// uniformCosts(model) at seq = prompt. Layer groups that differ get
  /// their own per-layer terms (the policy is shared by all layers).
  std::optional<ModelCosts> costs;
  /// FlexGen's group-wise 4-bit quantization (groups of 64 along a row,
  /// an fp16 minimum and scale per group: kCompressedBytesPerElement) of
  /// the weights and of the KV cache wherever they are stored and moved;
  /// the GPU decompresses a layer's tensors to 16 bits before it uses them.
  bool compressWeights = false;
  bool compressCache = false;
};

/// Bytes per element of FlexGen's 4-bit group-wise compression: 4 bits
/// plus two fp16 numbers (minimum and scale) per group of 64 elements.
constexpr double kCompressedBytesPerElement = 0.5 + 2.0 * 2.0 / 64;

/// GPU memory traffic per element of FlexGen's unfused PyTorch
/// decompression (TorchCompressedDevice::decompress in FlexGen's
/// compression.py): two uint8 temporaries for the high and low nibbles
/// (read the packed byte, write and read back each: 2 B), their strided
/// scatter into the fp16 output (read 1 B, write 2 x 2 B: half-sector
/// writes cost whole sectors), then in-place div_ by the scale and add_ of
/// the minimum (read and write 2 B each: 8 B). Compression (min, max, sub,
/// mul, clamp, round, pack) is charged the same. Decompression thus runs at
/// B_gpu / 15 elements/s, not at B_gpu / 2.56 (read 4 bits, write 16).
constexpr double kDequantBytesPerElement = 2.0 + 1.0 + 4.0 + 8.0;

/// Memory traffic per fp16 cache element of FlexGen's decode attention
/// (TorchDevice.mha_gen in FlexGen's pytorch_backend.py): the cache slice
/// is permuted and reshaped into a contiguous copy (read and write 2 B),
/// which the bmm then reads (2 B). On the CPU the copy is then converted
/// to fp32 (k.float(), v.float(): read 2 B, write 4 B) and the bmm reads 4
/// B.
constexpr double kGpuAttentionBytesPerElement = 4.0 + 2.0;
constexpr double kCpuAttentionBytesPerElement = 4.0 + 6.0 + 4.0;

struct InferenceOptions {
  /// GPU batch sizes to try (empty: 1, 2, 4, ..., 1024).
  std::vector<int64_t> gpuBatchSizes;
  /// Numbers of GPU batches per block to try: 1..maxGpuBatches.
  int64_t maxGpuBatches = 64;
  /// Solve the LPs exactly (GLPK's rational simplex) after the float one.
  bool exact = false;
};

/// Fractions of one tensor class on each tier (sum to 1).
struct Split {
  double gpu = 0, cpu = 0, disk = 0;
};

/// FlexGen's Policy.
struct InferencePolicy {
  int64_t gpuBatch = 0;
  int64_t numGpuBatches = 0;
  Split weights, cache, activations;
  bool overlap = true;
  /// FlexGen's cpu_cache_compute: decode attention over the cache held on
  /// the CPU or disk runs on the CPU (the cache does not cross the link;
  /// the query goes down and the attention output comes back). The search
  /// tries both where the machine has Machine::cpuAttentionFlops and the
  /// cache is not compressed.
  bool cpuAttention = false;
  int64_t blockSize() const { return gpuBatch * numGpuBatches; }
};

/// The per-layer terms of one phase, in seconds.
struct PhaseTerms {
  double compute = 0, h2d = 0, d2h = 0, diskRead = 0, diskWrite = 0;
  /// Decode attention on the CPU (cpu_cache_compute), after the GPU's
  /// compute of the same layer: the slot's compute path is compute + cpu.
  double cpu = 0;
  /// Decode: the layer's host->GPU loads precede its other work.
  bool serialLoad = false;
  /// max(compute + cpu, h2d, d2h, diskRead, diskWrite) (overlap), or
  /// h2d + max(compute + cpu, d2h, diskRead, diskWrite) with serialLoad.
  double layerTime() const;
  std::string bottleneck() const; ///< the name of the largest term
};

struct InferencePlan {
  bool feasible = false;
  std::string infeasibleReason;
  InferencePolicy policy;
  PhaseTerms prefill; ///< per layer, whole block (the layer mean)
  PhaseTerms decode;  ///< per layer and generated token, whole block
  /// Per layer group (one entry for a uniform model).
  std::vector<PhaseTerms> groupPrefill, groupDecode;
  double prefillTime = 0; ///< sum over layers of the prefill layer time
  double decodeTime = 0;  ///< (n - 1) * sum of the decode layer times
  double totalTime() const { return prefillTime + decodeTime; }
  /// Generated tokens per second: blockSize * generate / totalTime.
  double tokensPerSecond = 0;
  double gpuBytes = 0, cpuBytes = 0, diskBytes = 0; ///< needed
  int64_t lpsSolved = 0;
};

/// Searches (gpuBatch, numGpuBatches) with an LP per pair. Errors only for
/// invalid inputs; a job that fits nowhere gives feasible = false with the
/// constraint that binds for the smallest block.
llvm::Expected<InferencePlan> planInference(const InferenceJob &job,
                                            const Machine &machine,
                                            const InferenceOptions &opts = {});

/// Evaluates one fixed policy with the same cost model (no LP): for
/// checking the LP against a given policy and for FlexGen's published ones.
llvm::Expected<InferencePlan> evaluateInferencePolicy(
    const InferenceJob &job, const Machine &machine,
    const InferencePolicy &policy);

/// The timeline of a feasible plan (the overlap model made explicit): the
/// prefill, then each generated token but the first (which the prefill
/// yields), layer by layer. A layer's slot lasts its layer time
/// (PhaseTerms::layerTime); in it the GPU computes (tensor "layer", what
/// "prefill" or "decode", `flops`) while each link moves what the model
/// charges to that layer, class after class (tensor "weights", "cache" or
/// "activations"; what "load" on H2D, "store" on D2H, "read" from disk,
/// "write" to disk); with CPU attention the CPU computes (stream
/// CpuCompute, tensor "cache", what "attention") right after the GPU's
/// compute. `step` is 0 for the prefill and k for token k. The
/// decode slot's H2D actions come first, the rest start when they end. The
/// last action ends at plan.totalTime() (up to rounding); per stream the
/// busy time equals the sum of the per-layer terms.
std::vector<Action> inferenceSchedule(const InferenceJob &job,
                                      const Machine &machine,
                                      const InferencePlan &plan);

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_INFERENCEPLANNER_H
