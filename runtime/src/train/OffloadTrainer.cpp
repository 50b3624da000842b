//===- OffloadTrainer.cpp - Training with tensors swapped to disk ---------===//
#include "runtime/src/train/OffloadTrainer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

using namespace sluice::train;

namespace {

uint64_t nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

sluice_status_t failWith(sluice_error_t *error, sluice_status_t status,
                         const std::string &message) {
  if (error) {
    sluice_error_clear(error);
    error->status = status;
    std::snprintf(error->message, sizeof(error->message), "%s",
                  message.c_str());
  }
  return status;
}

/// Prefixes the message of a failed call with what the trainer was doing.
sluice_status_t context(sluice_status_t status, sluice_error_t *error,
                        const std::string &what) {
  if (status != SLUICE_STATUS_OK && error) {
    std::string message = what + ": " + error->message;
    std::snprintf(error->message, sizeof(error->message), "%s",
                  message.c_str());
  }
  return status;
}

bool persistentSlot(Slot slot) {
  return slot == Slot::Param || slot == Slot::AdamM || slot == Slot::AdamV;
}

} // namespace

OffloadTrainer::~OffloadTrainer() { sluice_tier_manager_destroy(tiers); }

std::string OffloadTrainer::manifestPath() const {
  return options.swapDir + "/manifest";
}

sluice_tensor_t OffloadTrainer::tensor(TensorRef ref) const {
  return ids[size_t(ref.layer) * kSlotCount + static_cast<unsigned>(ref.slot)];
}

bool OffloadTrainer::isLive(TensorRef ref) const {
  return live[size_t(ref.layer) * kSlotCount + static_cast<unsigned>(ref.slot)];
}

float *OffloadTrainer::writable(TensorRef ref) {
  live[size_t(ref.layer) * kSlotCount + static_cast<unsigned>(ref.slot)] = 1;
  return static_cast<float *>(sluice_tier_tensor_write(tiers, tensor(ref)));
}

const float *OffloadTrainer::readable(TensorRef ref) {
  return static_cast<const float *>(sluice_tier_tensor_read(tiers, tensor(ref)));
}

sluice_status_t OffloadTrainer::make(const TrainModel &model,
                                     OffloadOptions options, bool fresh,
                                     std::unique_ptr<OffloadTrainer> &out,
                                     sluice_error_t *error) {
  std::unique_ptr<OffloadTrainer> t(new OffloadTrainer);
  t->model = model.clone();
  t->options = std::move(options);
  sluice_status_t status = t->setUp(fresh, error);
  if (status == SLUICE_STATUS_OK)
    out = std::move(t);
  return status;
}

sluice_status_t OffloadTrainer::create(const TrainModel &model,
                                       OffloadOptions options,
                                       std::unique_ptr<OffloadTrainer> &out,
                                       sluice_error_t *error) {
  return make(model, std::move(options), true, out, error);
}

sluice_status_t OffloadTrainer::restore(const TrainModel &model,
                                        OffloadOptions options,
                                        std::unique_ptr<OffloadTrainer> &out,
                                        sluice_error_t *error) {
  return make(model, std::move(options), false, out, error);
}

sluice_status_t OffloadTrainer::setUp(bool fresh, sluice_error_t *error) {
  std::string bad = model->check();
  if (bad.empty())
    bad = validate(options.schedule, model->layers());
  if (bad.empty() && options.commitEvery == 0)
    bad = "commitEvery must be at least 1";
  if (bad.empty())
    bad = options.faults.check();
  // The schedule's checks apply unless the options ask for some.
  if (options.abft == AbftMode::Off)
    options.abft = options.schedule.abft;
  guard = std::make_unique<AbftGuard>(options.abft, options.faults,
                                      options.abftRetries);
  if (!bad.empty())
    return failWith(error, SLUICE_STATUS_INVALID_ARGUMENT, bad);
  sluice_tier_options_t topts;
  sluice_tier_options_init(&topts);
  topts.swap_dir = options.swapDir.c_str();
  topts.engine = options.engine;
  // A planned schedule brings the budgets it was made for; explicit
  // options win.
  topts.device_budget = options.deviceBudget == UINT64_MAX &&
                                options.schedule.deviceBudget
                            ? options.schedule.deviceBudget
                            : options.deviceBudget;
  topts.host_budget = options.hostBudget == UINT64_MAX &&
                              options.schedule.hostBudget
                          ? options.schedule.hostBudget
                          : options.hostBudget;
  topts.direct = options.direct;
  topts.durable = options.durable;
  topts.device_cuda = options.cudaDevice ? 1 : 0;
  topts.cuda_ordinal = options.cudaOrdinal;
  const uint32_t L = model->layers();
  ids.assign(size_t(L) * kSlotCount, 0);
  totals.entryStallNs.assign(options.schedule.entries.size(), 0);
  totals.entryComputeNs.assign(options.schedule.entries.size(), 0);
  live.assign(size_t(L) * kSlotCount, 0);
  sluice_status_t status;
  if (!fresh) {
    status = sluice_tier_manager_open(&topts, manifestPath().c_str(), &tiers,
                                      error);
    if (status != SLUICE_STATUS_OK)
      return context(status, error, "restoring the committed state");
  } else {
    status = sluice_tier_manager_create(&topts, &tiers, error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }
  // Tensors: persistent ones come from the manifest when restoring; the
  // others are created empty.
  auto name = [](uint32_t layer, Slot slot) {
    return "L" + std::to_string(layer) + "." + slotName(slot);
  };
  for (uint32_t l = 0; l < L; ++l)
    for (unsigned s = 0; s < kSlotCount; ++s) {
      Slot slot = static_cast<Slot>(s);
      uint64_t bytes =
          sizeof(float) * (slot == Slot::Activation ? model->activationCount(l)
                                                    : model->paramCount(l));
      sluice_tensor_t id;
      if (!fresh && persistentSlot(slot)) {
        status = sluice_tier_tensor_find(tiers, name(l, slot).c_str(), &id,
                                         error);
        if (status == SLUICE_STATUS_OK &&
            sluice_tier_tensor_bytes(tiers, id) != bytes)
          status = failWith(error, SLUICE_STATUS_DATA_CORRUPT,
                            "tensor '" + name(l, slot) +
                                "' in the manifest has another size than the "
                                "model");
        if (status != SLUICE_STATUS_OK)
          return context(status, error, "restoring the committed state");
      } else {
        sluice_tier_t home = options.schedule.homes[s];
        status = sluice_tier_tensor_create(
            tiers, name(l, slot).c_str(), bytes, home,
            persistentSlot(slot) ? SLUICE_TIER_PERSISTENT : 0, &id, error);
        if (status != SLUICE_STATUS_OK)
          return status;
        // Step 0 state goes straight to disk, one tensor at a time, so the
        // model need not fit in memory at once.
        if (slot == Slot::Param)
          model->initParams(
              l, static_cast<float *>(sluice_tier_tensor_write(tiers, id)));
        status = persistentSlot(slot)
                     ? sluice_tier_swap_out(tiers, &id, 1, error)
                     : sluice_tier_discard(tiers, &id, 1, error);
        if (status != SLUICE_STATUS_OK)
          return context(status, error, "writing the initial state");
      }
      ids[size_t(l) * kSlotCount + s] = id;
    }
  if (!fresh) {
    status = sluice_tier_tensor_find(tiers, "train.step", &stepTensor, error);
    if (status == SLUICE_STATUS_OK)
      status = sluice_tier_prefetch(tiers, &stepTensor, 1, error);
    if (status == SLUICE_STATUS_OK)
      status = sluice_tier_wait(tiers, &stepTensor, 1, error);
    if (status != SLUICE_STATUS_OK)
      return context(status, error, "restoring the step counter");
    std::memcpy(&done, sluice_tier_tensor_read(tiers, stepTensor),
                sizeof(done));
    committed = done;
    return SLUICE_STATUS_OK;
  }
  status = sluice_tier_tensor_create(tiers, "train.step", sizeof(uint64_t),
                                     SLUICE_TIER_HOST, SLUICE_TIER_PERSISTENT,
                                     &stepTensor, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  std::vector<sluice_tensor_t> all = {stepTensor};
  status = sluice_tier_swap_out(tiers, all.data(), all.size(), error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_commit(tiers, manifestPath().c_str(), error);
  return context(status, error, "writing the initial state");
}

sluice_status_t OffloadTrainer::issuePrefetch(const std::vector<TensorRef> &refs,
                                              sluice_error_t *error) {
  for (const TensorRef &ref : refs) {
    sluice_tensor_t id = tensor(ref);
    // Activations and gradients not yet written in this step are dead:
    // never read them back, just give them memory.
    if (!persistentSlot(ref.slot) && !isLive(ref) &&
        sluice_tier_tensor_state(tiers, id) != SLUICE_TENSOR_RESIDENT) {
      sluice_status_t status = sluice_tier_discard(tiers, &id, 1, error);
      if (status != SLUICE_STATUS_OK)
        return status;
    }
    sluice_status_t status = sluice_tier_prefetch(tiers, &id, 1, error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }
  return SLUICE_STATUS_OK;
}

sluice_status_t OffloadTrainer::ensure(const std::vector<TensorRef> &reads,
                                       const std::vector<TensorRef> &writes,
                                       bool hidden, sluice_error_t *error) {
  std::vector<TensorRef> needed = reads;
  needed.insert(needed.end(), writes.begin(), writes.end());
  std::vector<sluice_tensor_t> wanted;
  for (const TensorRef &ref : needed) {
    // A read the plan did not prefetch (dead activations and gradients
    // are only given memory, never read).
    if (sluice_tier_tensor_state(tiers, tensor(ref)) ==
            SLUICE_TENSOR_ON_DISK &&
        (persistentSlot(ref.slot) || isLive(ref)))
      ++totals.demandFetches;
    wanted.push_back(tensor(ref));
  }
  uint64_t start = nowNs();
  sluice_status_t status = issuePrefetch(needed, error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_wait(tiers, wanted.data(), wanted.size(), error);
  uint64_t stalled = nowNs() - start;
  totals.stallNs += stalled;
  totals.entryStallNs[currentEntry] += stalled;
  if (hidden)
    totals.stallHiddenNs += stalled;
  return status;
}

sluice_status_t OffloadTrainer::step(float *loss, sluice_error_t *error) {
  if (broken)
    return failWith(error, SLUICE_STATUS_FAILED_PRECONDITION,
                    "a previous step failed; restore the committed state "
                    "(step " +
                        std::to_string(committed) + ") first");
  const uint64_t attempted = done + 1;
  sluice_io_stats_t before, after;
  sluice_io_engine_stats(options.engine, &before);
  sluice_status_t status = runStep(loss, error);
  sluice_io_engine_stats(options.engine, &after);
  totals.ioBusyNs += after.busy_ns - before.busy_ns;
  if (status != SLUICE_STATUS_OK) {
    broken = true;
    // Say only what is known about the state a restore will find.
    std::string state;
    if (sluice_tier_commit_unconfirmed(tiers))
      state = "its manifest is in place but may not be durable: a restore "
              "finds step " +
              std::to_string(attempted) + ", or step " +
              std::to_string(committed) + " after a crash; both are kept";
    else if (status == SLUICE_STATUS_DATA_CORRUPT && !computeFault)
      state = "a swap file is corrupt; a restore verifies whether the "
              "committed state of step " +
              std::to_string(committed) + " is intact";
    else
      state = "the committed state of step " + std::to_string(committed) +
              " is intact";
    return context(status, error,
                   "training step " + std::to_string(attempted) + " failed (" +
                       state + ")");
  }
  ++totals.steps;
  totals.abft = guard->stats();
  return SLUICE_STATUS_OK;
}

sluice_status_t OffloadTrainer::computeFailed(uint32_t layer,
                                              const char *phase,
                                              const AbftFault &fault,
                                              sluice_error_t *error) {
  computeFault = true;
  totals.abft = guard->stats();
  // A failed checksum gives its numbers; a model's own check (a saved
  // token that is not one) only says what it found.
  char numbers[160] = "";
  if (fault.threshold > 0 || fault.got != fault.expected)
    std::snprintf(numbers, sizeof(numbers),
                  " (checksum %.9g, expected %.9g, threshold %.3g)", fault.got,
                  fault.expected, fault.threshold);
  return failWith(
      error, SLUICE_STATUS_DATA_CORRUPT,
      "computation fault in the " + std::string(phase) + " of layer " +
          std::to_string(layer) + ": " + fault.where + numbers +
          (guard->mode() == AbftMode::Recompute
               ? ", still wrong after " +
                     std::to_string(options.abftRetries) + " recomputes"
               : std::string()));
}

sluice_status_t OffloadTrainer::runStep(float *loss, sluice_error_t *error) {
  const uint32_t L = model->layers();
  const uint64_t s = done + 1;
  std::fill(live.begin(), live.end(), 0);
  std::vector<TensorRef> reads, writes;
  guard->startStep();
  bool inputReady = false;
  for (size_t k = 0; k < options.schedule.entries.size(); ++k) {
    const ScheduleEntry &e = options.schedule.entries[k];
    currentEntry = k;
    sluice_status_t status = issuePrefetch(e.prefetch, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    entryTensors(e.layer, e.phase, L, reads, writes);
    if (!inputReady) {
      // The input batch is the first layer's saved activation.
      status = ensure({}, {{0, Slot::Activation}}, e.ioHidden, error);
      if (status != SLUICE_STATUS_OK)
        return status;
      model->beginStep(s, writable({0, Slot::Activation}));
      inputReady = true;
    }
    status = ensure(reads, writes, e.ioHidden, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    // Host access to every tensor of the entry (with a CUDA device tier, a
    // copy from the GPU that can fail).
    std::vector<sluice_tensor_t> views;
    for (const auto *list : {&reads, &writes})
      for (const TensorRef &r : *list)
        views.push_back(tensor(r));
    status = sluice_tier_view(tiers, views.data(), views.size(), error);
    if (status != SLUICE_STATUS_OK)
      return status;
    for (sluice_tensor_t id : views)
      if (!sluice_tier_tensor_read(tiers, id))
        return failWith(error, SLUICE_STATUS_INTERNAL,
                        std::string("tensor '") +
                            sluice_tier_tensor_name(tiers, id) +
                            "' is not resident after its prefetch");
    const uint32_t l = e.layer;
    uint64_t start = nowNs();
    switch (e.phase) {
    case Phase::Forward: {
      float *next = l + 1 < L ? writable({l + 1, Slot::Activation}) : nullptr;
      AbftFault fault;
      if (!model->forward(l, readable({l, Slot::Param}),
                          readable({l, Slot::Activation}), next, *guard, fault))
        return computeFailed(l, "forward", fault, error);
      break;
    }
    case Phase::Backward: {
      AbftFault fault;
      if (!model->backward(l, readable({l, Slot::Param}),
                           readable({l, Slot::Activation}),
                           writable({l, Slot::Grad}), *guard, fault))
        return computeFailed(l, "backward", fault, error);
      break;
    }
    case Phase::Optimizer:
      adamStep(model->adam(), s, model->paramCount(l),
               writable({l, Slot::Param}), readable({l, Slot::Grad}),
               writable({l, Slot::AdamM}), writable({l, Slot::AdamV}));
      break;
    }
    totals.computeNs += nowNs() - start;
    totals.entryComputeNs[k] += nowNs() - start;
    // What stays resident goes back to GPU memory; what leaves is written
    // from its host view (or dropped).
    std::vector<TensorRef> touched;
    for (const auto *list : {&reads, &writes})
      for (const TensorRef &r : *list)
        if (std::find(e.swapOut.begin(), e.swapOut.end(), r) ==
                e.swapOut.end() &&
            std::find(e.discard.begin(), e.discard.end(), r) ==
                e.discard.end())
          touched.push_back(r);
    status = park(touched, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    std::vector<sluice_tensor_t> out1, out2;
    for (const TensorRef &r : e.swapOut)
      out1.push_back(tensor(r));
    for (const TensorRef &r : e.discard)
      out2.push_back(tensor(r));
    status = sluice_tier_swap_out(tiers, out1.data(), out1.size(), error);
    if (status == SLUICE_STATUS_OK)
      status = sluice_tier_discard(tiers, out2.data(), out2.size(), error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }
  if (s % options.commitEvery == 0) {
    sluice_status_t status = commit(s, error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }
  done = s;
  if (loss)
    *loss = model->loss();
  return SLUICE_STATUS_OK;
}

sluice_status_t OffloadTrainer::commit(uint64_t s, sluice_error_t *error) {
  uint64_t start = nowNs();
  const uint32_t L = model->layers();
  sluice_status_t status = sluice_tier_prefetch(tiers, &stepTensor, 1, error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_wait(tiers, &stepTensor, 1, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  std::memcpy(sluice_tier_tensor_write(tiers, stepTensor), &s, sizeof(s));
  // Write back persistent tensors the plan kept resident, keeping them
  // resident (a prefetch during the write cancels the eviction).
  std::vector<sluice_tensor_t> resident;
  for (uint32_t l = 0; l < L; ++l)
    for (Slot slot : {Slot::Param, Slot::AdamM, Slot::AdamV})
      if (sluice_tier_tensor_state(tiers, tensor({l, slot})) ==
          SLUICE_TENSOR_RESIDENT)
        resident.push_back(tensor({l, slot}));
  status = sluice_tier_swap_out(tiers, &stepTensor, 1, error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_swap_out(tiers, resident.data(), resident.size(),
                                  error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_prefetch(tiers, resident.data(), resident.size(),
                                  error);
  if (status == SLUICE_STATUS_OK) {
    status = sluice_tier_commit(tiers, manifestPath().c_str(), error);
    if (status == SLUICE_STATUS_OK)
      committed = s; // on disk, whatever happens next
  }
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_park(tiers, resident.data(), resident.size(), error);
  uint64_t spent = nowNs() - start;
  totals.commitNs += spent;
  return context(status, error, "committing step " + std::to_string(s));
}

sluice_status_t OffloadTrainer::park(const std::vector<TensorRef> &refs,
                                     sluice_error_t *error) {
  if (!options.cudaDevice)
    return SLUICE_STATUS_OK;
  std::vector<sluice_tensor_t> ids;
  for (const TensorRef &r : refs)
    if (sluice_tier_tensor_state(tiers, tensor(r)) == SLUICE_TENSOR_RESIDENT)
      ids.push_back(tensor(r));
  return sluice_tier_park(tiers, ids.data(), ids.size(), error);
}

sluice_status_t OffloadTrainer::params(uint32_t layer, std::vector<float> &out,
                                       sluice_error_t *error) {
  if (layer >= model->layers())
    return failWith(error, SLUICE_STATUS_OUT_OF_RANGE,
                    "no layer " + std::to_string(layer));
  sluice_tensor_t id = tensor({layer, Slot::Param});
  sluice_status_t status = sluice_tier_prefetch(tiers, &id, 1, error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_tier_wait(tiers, &id, 1, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  const float *p = static_cast<const float *>(sluice_tier_tensor_read(tiers, id));
  out.assign(p, p + model->paramCount(layer));
  return SLUICE_STATUS_OK;
}
