//===- OffloadSchedule.cpp - Per-layer swap plan for training -------------===//
#include "runtime/src/train/OffloadSchedule.h"

#include <algorithm>
#include <cstdint>

using namespace sluice::train;

const char *sluice::train::phaseName(Phase phase) {
  switch (phase) {
  case Phase::Forward:
    return "forward";
  case Phase::Backward:
    return "backward";
  case Phase::Optimizer:
    return "optimizer";
  }
  return "?";
}

const char *sluice::train::slotName(Slot slot) {
  switch (slot) {
  case Slot::Param:
    return "param";
  case Slot::Grad:
    return "grad";
  case Slot::AdamM:
    return "adam_m";
  case Slot::AdamV:
    return "adam_v";
  case Slot::Activation:
    return "act";
  }
  return "?";
}

void sluice::train::entryTensors(uint32_t layer, Phase phase, uint32_t layers,
                                 std::vector<TensorRef> &reads,
                                 std::vector<TensorRef> &writes) {
  reads.clear();
  writes.clear();
  switch (phase) {
  case Phase::Forward:
    reads = {{layer, Slot::Param}, {layer, Slot::Activation}};
    if (layer + 1 < layers)
      writes = {{layer + 1, Slot::Activation}};
    break;
  case Phase::Backward:
    reads = {{layer, Slot::Param}, {layer, Slot::Activation}};
    writes = {{layer, Slot::Grad}};
    break;
  case Phase::Optimizer:
    reads = {{layer, Slot::Grad}};
    writes = {{layer, Slot::Param}, {layer, Slot::AdamM}, {layer, Slot::AdamV}};
    break;
  }
}

namespace {

/// (layer, phase) of entry k in execution order.
void canonical(size_t k, uint32_t layers, uint32_t &layer, Phase &phase) {
  if (k < layers) {
    layer = static_cast<uint32_t>(k);
    phase = Phase::Forward;
  } else if (k < 2 * size_t(layers)) {
    layer = static_cast<uint32_t>(2 * size_t(layers) - 1 - k);
    phase = Phase::Backward;
  } else {
    layer = static_cast<uint32_t>(k - 2 * size_t(layers));
    phase = Phase::Optimizer;
  }
}

} // namespace

OffloadSchedule OffloadSchedule::keepAll(uint32_t layers) {
  OffloadSchedule s;
  s.entries.resize(3 * size_t(layers));
  for (size_t k = 0; k < s.entries.size(); ++k)
    canonical(k, layers, s.entries[k].layer, s.entries[k].phase);
  return s;
}

OffloadSchedule OffloadSchedule::swapAll(uint32_t layers, uint32_t lookahead) {
  OffloadSchedule s = keepAll(layers);
  const size_t n = s.entries.size();
  std::vector<TensorRef> reads, writes;
  for (size_t k = 0; k < n; ++k) {
    ScheduleEntry &e = s.entries[k];
    // Prefetch what the entry `lookahead` ahead reads (and, at the start,
    // what the first entries read).
    for (size_t j = (k == 0 ? 0 : k + lookahead); j <= k + lookahead && j < n;
         ++j) {
      entryTensors(s.entries[j].layer, s.entries[j].phase, layers, reads,
                   writes);
      // Reads, and the persistent tensors the optimizer updates in place
      // (activations and gradients an entry writes are not read).
      std::vector<TensorRef> wanted = reads;
      for (const TensorRef &w : writes)
        if (w.slot == Slot::Param || w.slot == Slot::AdamM ||
            w.slot == Slot::AdamV)
          wanted.push_back(w);
      for (const TensorRef &r : wanted)
        if (std::find(e.prefetch.begin(), e.prefetch.end(), r) ==
            e.prefetch.end())
          e.prefetch.push_back(r);
    }
    // After the entry: swap out what was used, unless the next entry
    // reads it too.
    entryTensors(e.layer, e.phase, layers, reads, writes);
    std::vector<TensorRef> nextReads, nextWrites;
    if (k + 1 < n)
      entryTensors(s.entries[k + 1].layer, s.entries[k + 1].phase, layers,
                   nextReads, nextWrites);
    auto usedNext = [&](const TensorRef &r) {
      return std::find(nextReads.begin(), nextReads.end(), r) !=
                 nextReads.end() ||
             std::find(nextWrites.begin(), nextWrites.end(), r) !=
                 nextWrites.end();
    };
    std::vector<TensorRef> touched = reads;
    touched.insert(touched.end(), writes.begin(), writes.end());
    for (const TensorRef &r : touched) {
      if (usedNext(r)) {
        e.keep.push_back(r);
        continue;
      }
      bool dead = (e.phase == Phase::Backward && r.slot == Slot::Activation) ||
                  (e.phase == Phase::Optimizer && r.slot == Slot::Grad);
      (dead ? e.discard : e.swapOut).push_back(r);
    }
  }
  // What the plan expects to hide: an entry's inputs were prefetched
  // `lookahead` entries earlier, so they hide under that entry's compute if
  // it is a matrix product (forward or backward: batch/2 flops per byte of
  // parameters) but not under an Adam update (~10 flops per 28 bytes
  // moved), and the first entry's inputs cannot hide at all.
  for (size_t k = 0; k < n; ++k)
    s.entries[k].ioHidden = lookahead > 0 && k >= lookahead &&
                            s.entries[k - lookahead].phase != Phase::Optimizer;
  return s;
}

std::string sluice::train::validate(const OffloadSchedule &schedule,
                                    uint32_t layers, size_t *badEntry) {
  if (badEntry)
    *badEntry = SIZE_MAX;
  if (schedule.entries.size() != 3 * size_t(layers))
    return "expected " + std::to_string(3 * size_t(layers)) +
           " entries (forward, backward, optimizer of " +
           std::to_string(layers) + " layers), got " +
           std::to_string(schedule.entries.size());
  for (unsigned s = 0; s < kSlotCount; ++s)
    if (schedule.homes[s] != SLUICE_TIER_DEVICE &&
        schedule.homes[s] != SLUICE_TIER_HOST)
      return std::string("the home of ") + slotName(static_cast<Slot>(s)) +
             " tensors must be the device or the host tier";
  auto at = [&](size_t k, const std::string &what) {
    if (badEntry)
      *badEntry = k;
    return "entry " + std::to_string(k) + ": " + what;
  };
  // The order: forward 0..L-1, backward L-1..0, each optimizer entry
  // after its layer's backward.
  std::vector<uint8_t> backwardDone(layers, 0), optimizerDone(layers, 0);
  uint32_t nextBackward = layers ? layers - 1 : 0;
  for (size_t k = 0; k < schedule.entries.size(); ++k) {
    const ScheduleEntry &e = schedule.entries[k];
    std::string got = std::string(phaseName(e.phase)) + " of layer " +
                      std::to_string(e.layer);
    if (k < layers) {
      if (e.layer != k || e.phase != Phase::Forward)
        return at(k, "expected forward of layer " + std::to_string(k) +
                         ", got " + got);
      continue;
    }
    if (e.layer >= layers)
      return at(k, "layer " + std::to_string(e.layer) + " does not exist");
    if (e.phase == Phase::Optimizer) {
      if (!backwardDone[e.layer])
        return at(k, "optimizer of layer " + std::to_string(e.layer) +
                         " before its backward");
      if (optimizerDone[e.layer])
        return at(k, "second optimizer entry of layer " +
                         std::to_string(e.layer));
      optimizerDone[e.layer] = 1;
      continue;
    }
    bool allBackward = std::all_of(backwardDone.begin(), backwardDone.end(),
                                   [](uint8_t b) { return b != 0; });
    if (e.phase != Phase::Backward || allBackward || e.layer != nextBackward)
      return at(k, (allBackward ? std::string("expected an optimizer entry")
                                : "expected backward of layer " +
                                      std::to_string(nextBackward)) +
                       ", got " + got);
    backwardDone[e.layer] = 1;
    if (nextBackward)
      --nextBackward;
  }
  for (size_t k = 0; k < schedule.entries.size(); ++k) {
    const ScheduleEntry &e = schedule.entries[k];
    std::string where = "entry " + std::to_string(k) + ": ";
    if (badEntry)
      *badEntry = k;
    for (const auto *list : {&e.prefetch, &e.swapOut, &e.discard, &e.keep})
      for (const TensorRef &r : *list) {
        if (r.layer >= layers || static_cast<unsigned>(r.slot) >= kSlotCount)
          return where + "tensor of layer " + std::to_string(r.layer) +
                 " (slot " + std::to_string(static_cast<unsigned>(r.slot)) +
                 ") does not exist";
      }
    for (const TensorRef &r : e.keep)
      for (const auto *list : {&e.swapOut, &e.discard})
        if (std::find(list->begin(), list->end(), r) != list->end())
          return where + "layer " + std::to_string(r.layer) + " " +
                 slotName(r.slot) + " is both kept and moved out";
    for (const TensorRef &r : e.discard)
      if (r.slot == Slot::Param || r.slot == Slot::AdamM ||
          r.slot == Slot::AdamV)
        return where + "layer " + std::to_string(r.layer) + " " +
               slotName(r.slot) +
               " is persistent state and cannot be discarded";
    // A discarded tensor must be dead: no later entry reads it.
    std::vector<TensorRef> reads, writes;
    for (const TensorRef &r : e.discard)
      for (size_t j = k + 1; j < schedule.entries.size(); ++j) {
        const ScheduleEntry &later = schedule.entries[j];
        entryTensors(later.layer, later.phase, layers, reads, writes);
        if (std::find(reads.begin(), reads.end(), r) != reads.end())
          return where + "discards layer " + std::to_string(r.layer) + " " +
                 slotName(r.slot) + ", which entry " + std::to_string(j) +
                 " (" + phaseName(later.phase) + " of layer " +
                 std::to_string(later.layer) + ") reads";
      }
  }
  if (badEntry)
    *badEntry = SIZE_MAX;
  return "";
}
