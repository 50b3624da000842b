//===- OffloadSchedule.h - Per-layer swap plan for training -----*- C++ -*-===//
//
// What an offload planner decides, in the form the training runtime
// executes: for every (layer, phase) of one training step, in execution
// order (forward 0..L-1, backward L-1..0, optimizer 0..L-1), which
// per-layer tensors to prefetch before the entry's compute, which to swap
// out and which to discard after it, and which the plan keeps resident.
//
// Tensors are named by (layer, slot). A tensor an entry needs that is not
// resident is fetched on demand (a stall the measurements count), so every
// well-formed schedule computes the same result; the schedule decides only
// the memory and the overlap. Planner output (off-plan) maps onto it: one
// entry per layer and phase, actions from the plan's per-layer decisions.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_OFFLOADSCHEDULE_H
#define SLUICE_RUNTIME_SRC_TRAIN_OFFLOADSCHEDULE_H

#include "sluice/tier.h"

#include "runtime/src/train/Abft.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::train {

enum class Phase : uint8_t { Forward, Backward, Optimizer };

/// The per-layer tensors of a model layer (TrainModel.h).
enum class Slot : uint8_t {
  Param,      ///< weights and bias (persistent)
  Grad,       ///< their gradient
  AdamM,      ///< Adam first moment (persistent)
  AdamV,      ///< Adam second moment (persistent)
  Activation  ///< the layer's input, saved for the backward pass
};
constexpr unsigned kSlotCount = 5;

struct TensorRef {
  uint32_t layer = 0;
  Slot slot = Slot::Param;
  bool operator==(const TensorRef &o) const {
    return layer == o.layer && slot == o.slot;
  }
};

struct ScheduleEntry {
  uint32_t layer = 0;
  Phase phase = Phase::Forward;
  /// Issued before this entry computes; for this entry or later ones.
  std::vector<TensorRef> prefetch;
  /// Issued after this entry computes (asynchronous writes).
  std::vector<TensorRef> swapOut;
  /// After this entry computes: the contents are dead (no write).
  std::vector<TensorRef> discard;
  /// Stay resident (documentation of the plan; checked not to conflict).
  std::vector<TensorRef> keep;
  /// The plan expects this entry's I/O to be hidden under compute.
  bool ioHidden = true;
};

/// Payload bytes (no swap-file header or padding) moved for the tensors of
/// one home tier in one step.
struct TierIo {
  uint64_t written = 0;
  /// Read back, or asked back while still being written (the tier manager
  /// then keeps the memory instead of reading; which of the two happens
  /// depends on timing, their sum does not).
  uint64_t read = 0;
};

struct OffloadSchedule {
  std::vector<ScheduleEntry> entries;
  /// Home tier of each slot's tensors (SLUICE_TIER_DEVICE or _HOST).
  std::array<sluice_tier_t, kSlotCount> homes = {
      SLUICE_TIER_DEVICE, SLUICE_TIER_DEVICE, SLUICE_TIER_HOST,
      SLUICE_TIER_HOST, SLUICE_TIER_DEVICE};
  /// Memory budgets the plan was made for (0 = not given; the trainer's
  /// options decide).
  uint64_t deviceBudget = 0, hostBudget = 0;
  /// What the plan predicts one steady-state step moves (step >= 2, a
  /// commit every step, the trainer's step counter not included), per home
  /// tier (index SLUICE_TIER_DEVICE, SLUICE_TIER_HOST).
  /// Checksums on the layer GEMMs (Abft.h); the schedule file's "abft".
  AbftMode abft = AbftMode::Off;
  bool hasPrediction = false;
  std::array<TierIo, 2> predicted{};
  /// Where the schedule came from ("built in: swapAll", or the plan's
  /// decisions as the schedule file gives them).
  std::string origin;

  /// Everything stays resident: no I/O (the reference for bit-exactness).
  static OffloadSchedule keepAll(uint32_t layers);
  /// Every layer's tensors live on disk between uses (ZeRO-Infinity-like):
  /// each entry prefetches what the entry `lookahead` steps later needs and
  /// swaps out or discards what it no longer needs.
  static OffloadSchedule swapAll(uint32_t layers, uint32_t lookahead = 1);
};

/// The tensors entry (layer, phase) reads and the ones it overwrites.
void entryTensors(uint32_t layer, Phase phase, uint32_t layers,
                  std::vector<TensorRef> &reads,
                  std::vector<TensorRef> &writes);

/// "" when `schedule` is well formed for `layers` layers, else what is
/// wrong ("entry 3: expected backward of layer 2, got forward of layer 3");
/// `badEntry` (when given) receives the index of the entry at fault, or
/// SIZE_MAX when the fault is not in one entry. Entries run forward
/// 0..L-1, then backward L-1..0 with the optimizer entry of each layer
/// anywhere after its backward entry (after all backward entries, as
/// ZeRO-Infinity does, or right after it, as active gradient offloading
/// does): every such order computes the same bits.
std::string validate(const OffloadSchedule &schedule, uint32_t layers,
                     size_t *badEntry = nullptr);

const char *phaseName(Phase phase);
const char *slotName(Slot slot);

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_OFFLOADSCHEDULE_H
