//===- FinetuneInputs.cpp - Names and input checks of the planner ---------===//
//
// The fine-tune planner's names (tiers, streams, swappable tensors,
// candidate labels), its micro-batch candidates and the checks of its
// inputs (checkFinetuneInputs), apart from the search and the schedule in
// FinetunePlanner.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"

#include "llvm/ADT/Twine.h"

#include <cstdio>

using namespace sluice;
using namespace sluice::offload;

llvm::StringRef offload::tierName(Tier t) {
  switch (t) {
  case Tier::Gpu:
    return "gpu";
  case Tier::Host:
    return "host";
  case Tier::Nvme:
    return "nvme";
  case Tier::Csd:
    return "csd";
  }
  return "?";
}

llvm::StringRef offload::streamName(Stream s) {
  switch (s) {
  case Stream::GpuCompute:
    return "GPU compute";
  case Stream::H2D:
    return "H2D";
  case Stream::D2H:
    return "D2H";
  case Stream::SsdRead:
    return "SSD read";
  case Stream::SsdWrite:
    return "SSD write";
  case Stream::CpuOptimizer:
    return "CPU optimizer";
  case Stream::CsdOptimizer:
    return "CSD optimizer";
  case Stream::Peer:
    return "GPU peers";
  case Stream::CpuCompute:
    return "CPU compute";
  }
  return "?";
}

llvm::StringRef offload::swappableName(unsigned i) {
  static const char *names[kNumSwappable] = {"qkv", "context", "mlp-hidden",
                                             "attn-out"};
  return i < kNumSwappable ? names[i] : "?";
}

std::string CandidateReport::label() const {
  return ("micro-batch " + llvm::Twine(microBatch) +
          " param=" + tierName(paramHome) + " opt=" + tierName(optimizerHome) +
          " buffers=" + llvm::Twine(buffers) +
          " swap=" + llvm::Twine(swapCount))
      .str();
}

std::string CandidateReport::str() const {
  if (!feasible)
    return label() + ": " + (need > have ? "infeasible (" : "rejected (") +
           rejection + ")";
  std::string t;
  if (iterationTime > 0) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), ": %.3f s", iterationTime);
    t = buf;
  }
  return label() + t + (rejection.empty() ? "" : " (" + rejection + ")");
}

std::vector<int64_t> offload::microBatchCandidates(const FinetuneJob &job,
                                                   int64_t gpus) {
  if (job.microBatch > 0)
    return {job.microBatch};
  const int64_t batch = gpus > 0 ? job.batch / gpus : job.batch;
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= batch; ++d) {
    if (batch % d != 0)
      continue;
    small.push_back(d);
    if (d != batch / d)
      large.push_back(batch / d);
  }
  // From the largest: ties keep the fewest accumulation steps.
  std::vector<int64_t> out(large.begin(), large.end());
  out.insert(out.end(), small.rbegin(), small.rend());
  return out;
}

llvm::Error offload::checkFinetuneInputs(const FinetuneJob &job,
                                         const Machine &machine,
                                         const FinetuneOptions &opts) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (std::string err = job.model.validate(); !err.empty())
    return fail("invalid model: " + err);
  if (job.costs)
    if (std::string err = job.costs->validate(); !err.empty())
      return fail("invalid model costs: " + err);
  if (std::string err = machine.validate(); !err.empty())
    return fail("invalid machine '" + machine.name + "': " + err);
  if (job.batch <= 0)
    return fail("batch must be positive, got " + llvm::Twine(job.batch));
  if (job.batch > model::kMaxSeq)
    return fail("batch must be at most " + llvm::Twine(model::kMaxSeq) +
                " sequences, got " + llvm::Twine(job.batch));
  if (job.batch % machine.gpus != 0)
    return fail("batch " + llvm::Twine(job.batch) +
                " does not split evenly over " + llvm::Twine(machine.gpus) +
                " data-parallel GPUs");
  const int64_t perGpu = job.batch / machine.gpus;
  if (job.microBatch < 0 ||
      (job.microBatch > 0 && perGpu % job.microBatch != 0))
    return fail(
        "batch " + llvm::Twine(perGpu) + (machine.gpus > 1 ? " per GPU" : "") +
        " is not a multiple of the micro-batch " + llvm::Twine(job.microBatch));
  if (!(opts.gradCompression > 0 && opts.gradCompression <= 1))
    return fail("gradient compression ratio must lie in (0, 1]");
  if (!(opts.gradTopK >= 0 && opts.gradTopK <= 1))
    return fail("top-k gradient fraction must lie in [0, 1] (0: none)");
  if (opts.gradTopK > 0 && opts.gradCompression != 1)
    return fail("top-k gradient compression excludes a gradient "
                "compression ratio");
  if (opts.gradTopK > 0 && !(machine.gpuMemoryBandwidth > 0))
    return fail("top-k gradient compression needs the GPU memory bandwidth "
                "(it costs the sort as GPU memory traffic)");
  if (!(opts.csdReadBackBytes >= 0 && opts.csdReadBackBytes <= 16))
    return fail("CSD read-back bytes per parameter must lie in [0, 16]");
  if (job.lora.rank < 0 || job.lora.rank > 65536 ||
      (job.lora.nf4 && job.lora.rank == 0))
    return fail("LoRA rank must lie in [1, 65536] (NF4 needs LoRA), got " +
                llvm::Twine(job.lora.rank));
  if (!(job.precision.paramBytes > 0 && job.precision.gradBytes > 0 &&
        job.precision.optimizerBytes >= 0))
    return fail("state precision: parameter and gradient bytes must be "
                "positive, optimizer bytes non-negative");
  if (!(opts.activationWorkFactor >= 1))
    return fail("activation work factor must be at least 1");
  if (opts.paramHome == Tier::Csd && !machine.csd.present())
    return fail("parameters on CSD requested, but the machine has no csd");
  if (opts.optimizerHome == Tier::Csd && !machine.csd.present())
    return fail("optimizer on CSD requested, but the machine has no csd");
  if ((opts.paramHome == Tier::Nvme || opts.optimizerHome == Tier::Nvme) &&
      !machine.nvme.present())
    return fail("NVMe home requested, but the machine has no nvme array");
  if (opts.optimizerHome == Tier::Gpu)
    return fail("optimizer states on the GPU are not planned (the planner "
                "offloads them); choose host, nvme or csd");
  if (opts.gradHome == Tier::Gpu || opts.gradHome == Tier::Nvme)
    return fail("gradients go to host memory (CPU update) or csd, not " +
                tierName(*opts.gradHome));
  if (opts.gradHome == Tier::Csd && !machine.csd.present())
    return fail("gradients on CSD requested, but the machine has no csd");
  if (opts.gradHome && opts.optimizerHome &&
      (*opts.gradHome == Tier::Csd) != (*opts.optimizerHome == Tier::Csd))
    return fail("gradients in " + tierName(*opts.gradHome) +
                " and optimizer states in " + tierName(*opts.optimizerHome) +
                ": the update runs where the optimizer states live");

  return llvm::Error::success();
}
