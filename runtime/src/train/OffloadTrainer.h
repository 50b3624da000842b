//===- OffloadTrainer.h - Training with tensors swapped to disk -*- C++ -*-===//
//
// Trains a TrainModel (TrainModel.h: the MLP of Mlp.h, the transformer of
// Transformer.h) with every per-layer tensor (parameters,
// gradients, Adam moments, saved activations) held by a tier manager
// (sluice/tier.h) and moved between memory and swap files as an
// OffloadSchedule says. The arithmetic is the same as ReferenceTrainer's,
// so the parameters after N steps are bit-identical.
//
// A step is all or nothing on disk: the persistent tensors (parameters,
// Adam moments, the step counter) become the committed state only when the
// step's manifest is written. A step that fails (I/O error, corrupt swap
// file, budget exceeded) returns the error and leaves the trainer unusable;
// OffloadTrainer::restore() reopens the last committed state and training
// continues from there, with the same bits as if nothing had failed.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_OFFLOADTRAINER_H
#define SLUICE_RUNTIME_SRC_TRAIN_OFFLOADTRAINER_H

#include "runtime/src/train/Abft.h"
#include "runtime/src/train/Mlp.h"
#include "runtime/src/train/OffloadSchedule.h"
#include "runtime/src/train/TrainModel.h"
#include "sluice/tier.h"

#include <memory>
#include <string>

namespace sluice::train {

struct OffloadOptions {
  std::string swapDir;         ///< must exist
  sluice_io_engine_t *engine = nullptr; ///< borrowed
  OffloadSchedule schedule;
  /// Bytes of the emulated device (parameters, gradients, activations) and
  /// of host memory (Adam moments).
  uint64_t deviceBudget = UINT64_MAX;
  uint64_t hostBudget = UINT64_MAX;
  bool direct = true;
  bool durable = true;
  /// Commit every this many steps (>= 1).
  uint32_t commitEvery = 1;
  /// The device tier in real GPU memory (sluice_tier_options_t::device_cuda):
  /// device tensors live in cuMemAlloc'd memory between entries; each
  /// entry copies its tensors to host views, computes on the CPU and parks
  /// what it wrote back on the GPU.
  bool cudaDevice = false;
  int cudaOrdinal = 0;
  /// Checksums on every layer GEMM (Abft.h): off, fail the step on a
  /// detected fault, or recompute the GEMM (up to abftRetries times, then
  /// fail). The schedule's "abft" key sets it when the options leave it off.
  AbftMode abft = AbftMode::Off;
  uint32_t abftRetries = 2;
  /// Bit flips injected into GEMM outputs (tests and measurements).
  FaultInjection faults;
};

/// Time accounting since creation (nanoseconds).
struct OffloadStats {
  uint64_t computeNs = 0;
  uint64_t stallNs = 0;        ///< blocked waiting for tensors (entries)
  uint64_t stallHiddenNs = 0;  ///< of which in entries the plan marks hidden
  uint64_t commitNs = 0;       ///< end-of-step commits (writes + manifest)
  uint64_t ioBusyNs = 0;       ///< engine time with I/O in flight
  uint64_t demandFetches = 0;  ///< needed tensors the plan had not prefetched
  uint64_t steps = 0;
  /// Per schedule entry, summed over steps.
  std::vector<uint64_t> entryStallNs, entryComputeNs;
  /// The checked GEMMs and the injected faults.
  AbftStats abft;
};

class OffloadTrainer {
public:
  ~OffloadTrainer();
  /// Creates the tensors, writes them out and commits step 0.
  static sluice_status_t create(const TrainModel &model, OffloadOptions options,
                                std::unique_ptr<OffloadTrainer> &out,
                                sluice_error_t *error);
  /// Reopens the last committed state in options.swapDir.
  static sluice_status_t restore(const TrainModel &model,
                                 OffloadOptions options,
                                 std::unique_ptr<OffloadTrainer> &out,
                                 sluice_error_t *error);
  /// The MLP of Mlp.h (MlpModel).
  static sluice_status_t create(const MlpConfig &config, OffloadOptions options,
                                std::unique_ptr<OffloadTrainer> &out,
                                sluice_error_t *error) {
    return create(MlpModel(config), std::move(options), out, error);
  }
  static sluice_status_t restore(const MlpConfig &config,
                                 OffloadOptions options,
                                 std::unique_ptr<OffloadTrainer> &out,
                                 sluice_error_t *error) {
    return restore(MlpModel(config), std::move(options), out, error);
  }

  /// Runs step steps()+1 under the schedule; `loss` receives its loss.
  sluice_status_t step(float *loss, sluice_error_t *error);
  uint64_t steps() const { return done; }
  uint64_t committedSteps() const { return committed; }
  /// Copies the current parameters of `layer` (fetching them if needed).
  sluice_status_t params(uint32_t layer, std::vector<float> &out,
                         sluice_error_t *error);
  const OffloadStats &stats() const { return totals; }
  sluice_tier_manager_t *manager() { return tiers; }
  std::string manifestPath() const;
  sluice_tensor_t tensor(TensorRef ref) const;

private:
  OffloadTrainer() = default;
  /// create() (fresh) and restore() (!fresh): builds a trainer and sets it up.
  static sluice_status_t make(const TrainModel &model, OffloadOptions options,
                              bool fresh, std::unique_ptr<OffloadTrainer> &out,
                              sluice_error_t *error);
  sluice_status_t setUp(bool fresh, sluice_error_t *error);
  sluice_status_t runStep(float *loss, sluice_error_t *error);
  /// A checked GEMM found a fault it could not correct: fails the step.
  sluice_status_t computeFailed(uint32_t layer, const char *phase,
                                const AbftFault &fault, sluice_error_t *error);
  sluice_status_t ensure(const std::vector<TensorRef> &reads,
                         const std::vector<TensorRef> &writes, bool hidden,
                         sluice_error_t *error);
  sluice_status_t issuePrefetch(const std::vector<TensorRef> &refs,
                                sluice_error_t *error);
  sluice_status_t commit(uint64_t step, sluice_error_t *error);
  /// Moves the host views of `refs` back to GPU memory (CUDA device tier).
  sluice_status_t park(const std::vector<TensorRef> &refs,
                       sluice_error_t *error);
  float *writable(TensorRef ref);
  const float *readable(TensorRef ref);
  bool isLive(TensorRef ref) const;

  std::unique_ptr<TrainModel> model;
  OffloadOptions options;
  sluice_tier_manager_t *tiers = nullptr;
  std::vector<sluice_tensor_t> ids; // layer * kSlotCount + slot
  sluice_tensor_t stepTensor = 0;
  std::vector<uint8_t> live;        // Activation/Grad written this step
  uint64_t done = 0, committed = 0;
  bool broken = false;
  size_t currentEntry = 0;
  OffloadStats totals;
  std::unique_ptr<AbftGuard> guard;
  bool computeFault = false; ///< the failed step's cause: a checked GEMM
};

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_OFFLOADTRAINER_H
