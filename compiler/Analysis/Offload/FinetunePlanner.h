//===- FinetunePlanner.h - Offload plans for fine-tuning --------*- C++ -*-===//
//
// Plans one fine-tuning iteration of a decoder-only transformer on one GPU
// with host memory, an NVMe array and optional computational storage:
//
//  - a home tier for each tensor class (fp16 parameters, fp32 master
//    parameters and Adam states, fp16 gradients, activation checkpoints and
//    swapped activations);
//  - per layer, which of Ratel's four matmul-input activations are swapped
//    out (ranked by recompute FLOPs saved per byte, kept while the swap stays
//    hidden under the layer's forward compute; host memory first, then the
//    NVMe array) and which are recomputed;
//  - the optimizer: CPU Adam per parameter group as soon as its gradient
//    arrives ("active gradient offloading", overlapping the backward pass),
//    with states in host memory or streamed from/to NVMe (read, update,
//    write pipelined), or the update on CSD devices near the states
//    (Smart-Infinity) with optional gradient compression.
//
// Every candidate plan is scheduled by an event model with one in-order
// stream per resource (GPU compute, H2D, D2H, SSD read, SSD write, CPU
// optimizer, CSD optimizer); the iteration time is the makespan, i.e. the
// critical path through compute, transfers and their dependencies. The
// fastest plan that fits wins; when none fits, the plan names the binding
// constraint ("host memory: need 1.9 TiB, have 230 GiB usable").
//
// The micro-batch (a divisor of the batch, unless the job pins one) and the
// recomputation (how many of the ranked activations are swapped instead of
// recomputed, unless pinned) are searched jointly with the placement; every
// candidate is reported with the reason it lost.
//
// docs/offload.md describes the model, its formulas and its validation.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEPLANNER_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEPLANNER_H

#include "compiler/Analysis/Model/TransformerCost.h"
#include "compiler/Analysis/Offload/ModelCosts.h"
#include "compiler/Analysis/Offload/OffloadAction.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::offload {

/// Where a tensor class lives between its uses.
enum class Tier { Gpu, Host, Nvme, Csd };
llvm::StringRef tierName(Tier t); // "gpu", "host", "nvme", "csd"

/// Ratel's four matmul-input activations of a layer, b*s*{3h, h, 4h, h}
/// elements for GPT (q/k/v; attention context; MLP hidden; attention
/// output), in this order. Sizes follow the model's GQA and MLP width.
constexpr unsigned kNumSwappable = 4;
llvm::StringRef swappableName(unsigned i); // "qkv", "context", ...

/// The fine-tuning job.
struct FinetuneJob {
  model::TransformerConfig model; ///< seq = the training sequence length
  /// Sequences per iteration, over all GPUs of the machine (each of its
  /// Machine::gpus data-parallel GPUs runs batch / gpus of them).
  int64_t batch = 0;
  /// Sequences per micro-batch of one GPU (gradients accumulate over
  /// batch / gpus / microBatch of them); 0 = the planner chooses among the
  /// divisors of batch / gpus.
  int64_t microBatch = 0;
  /// Bytes per parameter of the model states: fp16 parameters (2), fp16
  /// gradients (2), fp32 master weights + optimizer states (12 for Adam;
  /// 8 for SGD with momentum, 6 for 8-bit Adam states + fp32 master...).
  model::StatePrecision precision = model::StatePrecision::mixedAdam();
  /// The per-layer costs (for one sequence of model.seq tokens); without
  /// them, uniformCosts(model). With them, `model` only names the model in
  /// reports (layers, hidden, seq) and sizes DeepSpeed's buffers, and the
  /// layers are planned one by one (they may differ).
  std::optional<ModelCosts> costs;
  /// LoRA (Hu et al. 2021): the base weights are frozen and rank-`rank`
  /// adapters (A: r x in, B: out x r) on every linear layer of attention
  /// and MLP are trained; gradients, optimizer states and updates exist for
  /// the adapters only, and the frozen layers' backward computes input
  /// gradients only (no weight gradients). With `nf4`, QLoRA (Dettmers et
  /// al. 2023): the frozen base in 4-bit NormalFloat with double
  /// quantization (kNf4BytesPerParam), dequantized to 16 bits before each
  /// GEMM (extra GPU memory traffic per pass). rank 0: full fine-tuning.
  struct Lora {
    int64_t rank = 0;
    bool nf4 = false;
  } lora;
};

/// Bytes per parameter of an NF4 base (QLoRA): 4 bits, plus one 8-bit
/// constant per 64 weights and one fp32 constant per 256 of those (double
/// quantization, 0.127 bits per parameter).
constexpr double kNf4BytesPerParam = (4.0 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
/// GPU memory traffic per parameter of dequantizing NF4 to 16 bits for one
/// GEMM: read the 4-bit codes and constants, write and read back bf16.
constexpr double kNf4DequantBytesPerParam = kNf4BytesPerParam + 2.0 + 2.0;

/// Bytes per gradient element kept by top-k compression: an fp16 value
/// and an int32 index (Smart-Infinity, deepspeed/runtime/swap_tensor/
/// optimizer_utils.py, _swap_out_gradients).
constexpr double kTopKBytesPerKept = 2.0 + 4.0;
/// GPU memory traffic per gradient element of the magnitude sort before
/// top-k selection (Smart-Infinity sorts the whole gradient,
/// `grad.abs().sort(descending=True)`): abs (read and write 2 B), the
/// int64 index sequence (8 B), and a radix sort of 16-bit keys with int64
/// values in two 8-bit digit passes, each reading keys for the histogram
/// (2 B) and reading and writing keys and values (20 B). Derived from
/// that pass structure, not measured (docs/offload.md).
constexpr double kTopKSortBytesPerElement = 2 + 2 + 8 + 2 * (2 + 20);
/// Bytes per gradient element DeepSpeed's optimizer swapper writes to
/// NVMe: fp32 (the paper's Table I, 2M; the swapper's buffers have the
/// optimizer's dtype).
constexpr double kSwapGradBytes = 4;

/// Knobs; the defaults plan like Ratel (plus CSD when the machine has it).
struct FinetuneOptions {
  /// CPU Adam per layer as soon as the layer's gradients arrive; false =
  /// after the whole backward pass (ZeRO-Infinity's order).
  bool activeGradientOffload = true;
  /// Recomputation in the backward pass. nullopt: searched (how many of
  /// Ratel's ranked activations are swapped, the rest recomputed); true:
  /// full recomputation (only the layer-input checkpoints are kept, the
  /// job's `recompute: true`); false: none (a candidate that would
  /// recompute anything is rejected, `recompute: false`).
  std::optional<bool> recompute;
  /// Attention without the s^2 score tensors in memory (FlashAttention):
  /// a layer's working set is 34*s*b*h bytes instead of s*b*h*(34+5as/h).
  bool flashAttention = true;
  /// The GPU working set of a layer in backward is this factor times its
  /// stored activations (the activations plus their gradients).
  double activationWorkFactor = 2.0;
  /// Gradient compression ratio for CSD updates (Smart-Infinity): the
  /// gradients written to the CSDs are `gradCompression` x 2N bytes.
  double gradCompression = 1.0;
  /// Top-k gradient compression for CSD updates (Smart-Infinity's
  /// SmartComp; 0 = none, else the kept fraction, the paper's default 1%):
  /// per block the GPU takes the gradients back, sorts them by magnitude
  /// and sends the kept values with their indices (kTopKBytesPerKept each)
  /// to the CSDs, whose accelerator decompresses them before the update
  /// (CsdArray::decompressRate). Excludes gradCompression.
  double gradTopK = 0;
  /// CSD updates with Smart-Infinity's data transfer handler (SU+O): each
  /// CSD's accelerator computes while its flash moves the other subgroups;
  /// false (SU): per subgroup the read, the update and the write run one
  /// after another. Either way one SSD's reads and writes share its flash.
  bool csdTransferOverlap = true;
  /// Bytes per parameter the host reads back from the CSDs after their
  /// update; 0 = the fp16 parameters (the CSDs write an fp16 copy).
  /// Smart-Infinity reads the fp32 master back (4: the paper's Table I,
  /// 2M; its FPGA host code writes the fp32 parameter file).
  double csdReadBackBytes = 0;
  /// DeepSpeed's ZeRO-Infinity optimizer swapper (Smart-Infinity's
  /// baseline) when the optimizer states live on NVMe: the gradients go to
  /// the NVMe array as fp32 during the backward pass (kSwapGradBytes) and
  /// come back with the states, and each block's read, CPU update and
  /// write run one after another (DeepSpeed's pipeline_read and
  /// pipeline_write, off by default and in Smart-Infinity's config).
  bool zeroInfinitySwap = false;
  /// Restrict the search (nullopt = search).
  std::optional<Tier> paramHome;
  std::optional<Tier> optimizerHome;
  /// Where gradients go: Host (a CPU update: optimizer states in host
  /// memory or on NVMe) or Csd (the update on computational storage).
  std::optional<Tier> gradHome;
  /// Host staging buffers (layer groups in flight) for NVMe/CSD streams.
  int64_t stagingLayers = 2;
};

/// The activation decision of one layer.
struct LayerActivations {
  std::array<bool, kNumSwappable> swapped{}; ///< which are swapped out
  double swapBytes = 0;      ///< moved out: checkpoint (+ swapped tensors)
  double recomputeFlops = 0; ///< in backward
  Tier tier = Tier::Host;    ///< where the swapped bytes wait
  bool checkpointOnly = false;
};

/// Activation decisions. The scalar fields are those of the first layer
/// (every layer of a uniform model decides alike); `perLayer` has each.
struct ActivationPlan {
  std::array<bool, kNumSwappable> swapped{}; ///< which are swapped out
  double swapBytesPerLayer = 0;              ///< checkpoint + swapped tensors
  double recomputeFlopsPerLayer = 0;
  std::vector<LayerActivations> perLayer;
  int64_t layersOnHost = 0; ///< layers whose swaps stay in host memory
  int64_t layersOnNvme = 0; ///< layers whose swaps go on to the NVMe array
  /// Layers that keep only their input checkpoint (no room for the swaps)
  /// and recompute all four tensors; counted in layersOnHost/OnNvme too.
  int64_t layersCheckpointOnly = 0;
};

/// Bytes of each tier the plan needs at its peak.
struct TierBytes {
  double gpu = 0, host = 0, nvme = 0, csd = 0;
};

/// Bytes moved per iteration on each link.
struct LinkBytes {
  double h2d = 0, d2h = 0, ssdRead = 0, ssdWrite = 0, csdInternal = 0;
};

/// One candidate the search examined and what became of it.
struct CandidateReport {
  int64_t microBatch = 0;
  Tier paramHome = Tier::Host;
  Tier optimizerHome = Tier::Host;
  int64_t buffers = 2;      ///< GPU parameter buffers (0 when resident)
  unsigned swapCount = 0;   ///< how many of the ranked activations may swap
  bool feasible = false;    ///< fits every tier and the job's pins
  double iterationTime = 0; ///< seconds, when feasible and scheduled
  /// Memory need and usable bytes of the binding tier (feasible or not).
  double need = 0, have = 0;
  /// Why it was not chosen; empty for the chosen plan. One of: the binding
  /// memory constraint ("GPU memory: need 23 GiB, have 21.6 GiB usable"),
  /// a pin it breaks ("recomputes 1.2 PFLOP per iteration, but
  /// recompute is pinned to false"), "slower: 14.2 s, the chosen plan 13.1 s",
  /// or "slower: at least 40 s (lower bound), the chosen plan 13.1 s".
  std::string rejection;
  /// "micro-batch 8 param=host opt=host buffers=2 swap=4".
  std::string label() const;
  /// label() + ": 13.512 s" / ": infeasible (...)" / ": rejected (...)".
  std::string str() const;
};

struct FinetunePlan {
  bool feasible = false;
  /// When infeasible: the binding constraint of the least infeasible
  /// candidate, e.g. "GPU memory: need 29.6 GiB, have 21.6 GiB usable",
  /// followed by where that smallest need (relative to the usable) was
  /// found when the micro-batch was searched ("... (the smallest relative
  /// need among 300 candidates over micro-batches 1 to 32: micro-batch 32
  /// param=host opt=nvme buffers=1 swap=0)").
  std::string infeasibleReason;

  /// LoRA: the adapters' parameters (0 for a full fine-tune).
  double trainableParams = 0;

  // Decisions.
  Tier paramHome = Tier::Host;     ///< fp16 parameters
  Tier masterHome = Tier::Host;    ///< fp32 master parameters
  Tier optimizerHome = Tier::Host; ///< Adam momentum and variance
  Tier gradHome = Tier::Host;      ///< where fp16 gradients go
  bool updateOnCsd = false;
  /// The update runs after the whole backward pass (ZeRO-Infinity's order,
  /// FinetuneOptions::activeGradientOffload false), not per layer during it.
  bool updateAfterBackward = false;
  int64_t paramBuffers = 2; ///< GPU layer buffers (2 = prefetch overlap)
  int64_t microBatch = 0;   ///< sequences per micro-batch of one GPU
  int64_t accumulationSteps = 1;
  bool microBatchSearched = false; ///< false: the job pinned it
  /// Data-parallel GPUs (Machine::gpus); the schedule is one GPU's, the
  /// others run the same in lockstep on their share of the batch.
  int64_t gpus = 1;
  /// The GPU counts planFinetuneOverGpus() tried, fewest first (empty when
  /// one machine was planned), and, when the plan uses fewer GPUs than the
  /// machine has, why.
  struct GpuCount {
    int64_t gpus = 1;
    bool feasible = false;
    double iterationTime = 0; ///< seconds, when feasible
    std::string rejection;    ///< why not chosen; empty for the chosen
  };
  std::vector<GpuCount> gpuCounts;
  std::string fewerGpusReason;
  ActivationPlan activations;

  // Predictions.
  double iterationTime = 0; ///< seconds (makespan of `schedule`)
  double modelFlops = 0;    ///< forward + backward (what TFLOPS counts)
  double hardwareFlops = 0; ///< + recomputation
  double tflops() const {
    return iterationTime > 0 ? modelFlops / iterationTime / 1e12 : 0;
  }
  TierBytes peak;     ///< needed at the peak
  TierBytes capacity; ///< usable
  LinkBytes links;
  std::array<double, kNumStreams> busy{}; ///< seconds each stream works
  /// The schedule of one iteration, in issue order.
  std::vector<Action> schedule;
  /// Every candidate examined, in search order (micro-batches from the
  /// largest), each with the reason it was not chosen.
  std::vector<CandidateReport> candidates;
};

/// The micro-batches planFinetune() tries for `job` on `gpus` GPUs: the
/// pinned one, or every divisor of the batch per GPU from the largest
/// (equal micro-batches keep an iteration at exactly `batch` sequences, as
/// DeepSpeed's batch = micro x accumulation x GPUs requires; powers of two
/// would not divide a batch of 48).
std::vector<int64_t> microBatchCandidates(const FinetuneJob &job,
                                          int64_t gpus = 1);

/// The checks planFinetune makes of its inputs before planning: the
/// model, the machine, the batch against the GPUs and the micro-batch, the
/// options and the homes they pin against what the machine has. Errors name
/// the figure and its value.
llvm::Error checkFinetuneInputs(const FinetuneJob &job, const Machine &machine,
                                const FinetuneOptions &opts);

/// Plans `job` on `machine`. Errors only for invalid inputs (a bad model,
/// batch not a multiple of the micro-batch, an unusable machine); a job
/// that fits nowhere returns a plan with feasible = false.
llvm::Expected<FinetunePlan> planFinetune(const FinetuneJob &job,
                                          const Machine &machine,
                                          const FinetuneOptions &opts = {});

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEPLANNER_H
