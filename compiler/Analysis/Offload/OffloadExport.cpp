//===- OffloadExport.cpp - Offload plans as JSON, traces, tables ----------===//
#include "compiler/Analysis/Offload/OffloadExport.h"

#include "compiler/Analysis/TraceEvents.h"
#include "dialects/Model/IR/ModelSchema.h"
#include "support/Units.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace sluice;
using namespace sluice::offload;
using analysis::kTraceMetadataCategory;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

static std::string bytesStr(double v) {
  return formatQuantity(v, Dim::bytes());
}
static std::string timeStr(double v) { return formatQuantity(v, Dim::time()); }

static Object machineJson(const Machine &m) {
  Object o{{"name", m.name},
           {"gpu_memory_bytes", m.gpuMemory},
           {"gpu_peak_flops", m.gpuPeakFlops},
           {"gpu_efficiency", m.gpuEfficiency},
           {"host_memory_bytes", m.hostMemory},
           {"cpu_adam_params_per_s", m.cpuAdamRate},
           {"h2d_bytes_per_s", m.h2dBandwidth},
           {"d2h_bytes_per_s", m.d2hBandwidth},
           {"nvme_count", m.nvme.count},
           {"nvme_read_bytes_per_s", m.nvme.readBandwidth},
           {"nvme_write_bytes_per_s", m.nvme.writeBandwidth},
           {"nvme_capacity_bytes", m.nvme.capacity},
           {"csd_count", m.csd.count}};
  if (m.gpus > 1) {
    o["gpus"] = m.gpus;
    Array names;
    for (const std::string &n : m.devices.gpuGroup)
      names.push_back(n);
    o["gpu_devices"] = std::move(names);
    o["peer_bytes_per_s"] = m.peerBandwidth;
  }
  return o;
}

/// The data-parallel part of a fine-tune plan (absent on one GPU).
static void dataParallelJson(Object &o, const FinetunePlan &p,
                             const FinetuneJob &job) {
  if (p.gpuCounts.empty() && p.gpus <= 1)
    return;
  Array counts;
  for (const FinetunePlan::GpuCount &c : p.gpuCounts) {
    Object co{{"gpus", c.gpus},
              {"feasible", c.feasible},
              {"chosen", c.gpus == p.gpus}};
    if (c.feasible)
      co["iteration_time_s"] = c.iterationTime;
    if (!c.rejection.empty())
      co["rejected"] = c.rejection;
    counts.push_back(std::move(co));
  }
  Object dp{{"gpus", p.gpus},
            {"batch_per_gpu", job.batch / std::max<int64_t>(1, p.gpus)},
            {"sharding", "zero-3"},
            {"gpu_counts", std::move(counts)}};
  if (!p.fewerGpusReason.empty())
    dp["fewer_gpus_reason"] = p.fewerGpusReason;
  o["data_parallel"] = std::move(dp);
}

/// Streams a plan's exports list: the peer stream only with several GPUs.
static bool listed(const FinetunePlan &p, unsigned s) {
  return Stream(s) != Stream::Peer || p.gpus > 1;
}

static double parameters(const model::TransformerConfig &c,
                         const std::optional<ModelCosts> &costs) {
  return costs ? costs->params()
               : static_cast<double>(model::countParameters(c).total());
}

static Object modelJson(const model::TransformerConfig &c,
                        const std::optional<ModelCosts> &costs) {
  Object o{{"layers", c.layers},      {"hidden", c.hidden},
           {"heads", c.heads},        {"kv_heads", c.effectiveKvHeads()},
           {"ffn", c.effectiveFfn()}, {"seq", c.seq},
           {"vocab", c.vocab}};
  if (!costs) {
    o["parameters"] = model::countParameters(c).total();
    return o;
  }
  // The costs the plan used (sluicec: the model-cost pass's attributes).
  o["parameters"] = costs->params();
  Array groups;
  for (const LayerGroup &g : costs->groups) {
    Object group{{"count", g.count},
                 {"params", g.params},
                 {"fwd_flops", g.fwdFlops},
                 {"act_bytes", g.actBytes},
                 {"act_bytes_selective", g.actBytesSelective},
                 {"ffn", g.ffn},
                 {"kv_dim", g.kvDim},
                 {"gated", g.gated}};
    if (g.experts > 0) {
      group["experts"] = g.experts;
      group["top_k"] = g.topK;
      group["capacity_factor"] = g.capacity;
    }
    groups.push_back(std::move(group));
  }
  o["layer_groups"] = std::move(groups);
  o["other_params"] = costs->otherParams;
  o["head_fwd_flops"] = costs->headFwdFlops;
  return o;
}

/// One line per layer group of `costs` (none without costs).
static void costLines(llvm::raw_ostream &os,
                      const std::optional<ModelCosts> &costs) {
  if (!costs)
    return;
  os << "\n  model-cost, per layer and sequence of " << costs->seq
     << " tokens:\n";
  int64_t first = 0;
  for (const LayerGroup &g : costs->groups) {
    os << "  layers " << first << "-" << first + g.count - 1 << ": "
       << llvm::format("%.0f", g.params) << " params, "
       << llvm::format("%.0f", g.fwdFlops) << " fwd FLOPs, "
       << llvm::format("%.0f", g.actBytes) << " activation bytes (ffn "
       << g.ffn;
    if (g.experts > 0)
      os << ", " << g.experts << " experts, top " << g.topK << ", capacity "
         << llvm::format("%g", g.capacity);
    os << ")\n";
    first += g.count;
  }
}

static Object tierJson(const TierBytes &t) {
  return Object{
      {"gpu", t.gpu}, {"host", t.host}, {"nvme", t.nvme}, {"csd", t.csd}};
}

Value offload::finetunePlanToJson(const FinetunePlan &p, const FinetuneJob &job,
                                  const Machine &m) {
  Object o;
  o["job"] =
      Object{{"kind", model::stringifyJobAction(model::JobAction::Finetune)},
             {"model", modelJson(job.model, job.costs)},
             {"batch", job.batch},
             {"micro_batch", p.microBatch},
             {"accumulation_steps", p.accumulationSteps}};
  o["machine"] = machineJson(m);
  o["feasible"] = p.feasible;
  if (!p.feasible)
    o["binding_constraint"] = p.infeasibleReason;
  dataParallelJson(o, p, job);
  Array swapped;
  for (unsigned i = 0; i < kNumSwappable; ++i)
    if (p.activations.swapped[i])
      swapped.push_back(swappableName(i).str());
  if (job.lora.rank > 0)
    o["lora"] = Object{{"rank", job.lora.rank},
                       {"base", job.lora.nf4 ? "nf4" : "16-bit"},
                       {"trainable_params", p.trainableParams}};
  o["homes"] = Object{{"params_fp16", tierName(p.paramHome).str()},
                      {"master_params_fp32", tierName(p.masterHome).str()},
                      {"optimizer_states", tierName(p.optimizerHome).str()},
                      {"grads_fp16", tierName(p.gradHome).str()},
                      {"optimizer_update", p.updateOnCsd ? "csd" : "cpu"}};
  o["activations"] = Object{
      {"swapped", std::move(swapped)},
      {"swap_bytes_per_layer", p.activations.swapBytesPerLayer},
      {"recompute_flops_per_layer", p.activations.recomputeFlopsPerLayer},
      {"layers_on_host", p.activations.layersOnHost},
      {"layers_on_nvme", p.activations.layersOnNvme},
      {"layers_checkpoint_only", p.activations.layersCheckpointOnly}};
  o["param_buffers"] = p.paramBuffers;
  o["peak_bytes"] = tierJson(p.peak);
  o["usable_bytes"] = tierJson(p.capacity);
  if (p.feasible) {
    o["iteration_time_s"] = p.iterationTime;
    o["model_flops"] = p.modelFlops;
    o["hardware_flops"] = p.hardwareFlops;
    o["tflops"] = p.tflops();
    if (p.gpus > 1)
      o["tflops_per_gpu"] = p.tflops() / static_cast<double>(p.gpus);
    o["link_bytes"] = Object{{"h2d", p.links.h2d},
                             {"d2h", p.links.d2h},
                             {"ssd_read", p.links.ssdRead},
                             {"ssd_write", p.links.ssdWrite},
                             {"csd_internal", p.links.csdInternal}};
    Object busy;
    for (unsigned s = 0; s < kNumStreams; ++s)
      if (listed(p, s))
        busy[streamName(static_cast<Stream>(s))] = p.busy[s];
    o["stream_busy_s"] = std::move(busy);
    Array sched;
    for (const Action &a : p.schedule)
      sched.push_back(Object{{"stream", streamName(a.stream).str()},
                             {"start_s", a.start},
                             {"end_s", a.end},
                             {"bytes", a.bytes},
                             {"flops", a.flops},
                             {"tensor", a.tensor},
                             {"what", a.what},
                             {"layer", a.layer},
                             {"micro_batch", a.microBatch}});
    o["schedule"] = std::move(sched);
  }
  Array cands;
  for (const CandidateReport &c : p.candidates) {
    Object co{{"micro_batch", c.microBatch},
              {"params_fp16", tierName(c.paramHome).str()},
              {"optimizer_states", tierName(c.optimizerHome).str()},
              {"param_buffers", c.buffers},
              {"swap_count", static_cast<int64_t>(c.swapCount)},
              {"feasible", c.feasible},
              {"chosen", c.feasible && c.rejection.empty()}};
    if (c.iterationTime > 0)
      co["iteration_time_s"] = c.iterationTime;
    if (!c.rejection.empty())
      co["rejected"] = c.rejection;
    cands.push_back(std::move(co));
  }
  o["candidates"] = std::move(cands);
  o["micro_batch_searched"] = p.microBatchSearched;
  return o;
}

/// The label of an action in traces and plan IR: "params prefetch L3",
/// "grads offload head mb1" (fine-tuning), "weights load L3 t5", "layer
/// prefill L3" (inference).
std::string offload::actionLabel(const Action &a, bool microBatches,
                                 bool inference) {
  std::string s =
      a.tensor + " " + a.what + " " +
      (a.layer < 0 ? std::string("head") : "L" + std::to_string(a.layer));
  if (microBatches)
    s += " mb" + std::to_string(a.microBatch);
  if (inference && a.step > 0)
    s += " t" + std::to_string(a.step);
  return s;
}

/// Chrome trace events of `actions` on the streams `listedStream` keeps.
static Value actionTrace(llvm::ArrayRef<Action> actions,
                         llvm::StringRef process, bool inference,
                         llvm::function_ref<bool(unsigned)> listedStream) {
  Array ev;
  ev.push_back(Object{{"name", "process_name"},
                      {"cat", kTraceMetadataCategory},
                      {"ph", "M"},
                      {"pid", 1},
                      {"args", Object{{"name", process.str()}}}});
  for (unsigned s = 0; s < kNumStreams; ++s) {
    if (!listedStream(s))
      continue;
    ev.push_back(
        Object{{"name", "thread_name"},
               {"cat", kTraceMetadataCategory},
               {"ph", "M"},
               {"pid", 1},
               {"tid", static_cast<int64_t>(s)},
               {"args", Object{{"name", streamName(Stream(s)).str()}}}});
    ev.push_back(
        Object{{"name", "thread_sort_index"},
               {"cat", kTraceMetadataCategory},
               {"ph", "M"},
               {"pid", 1},
               {"tid", static_cast<int64_t>(s)},
               {"args", Object{{"sort_index", static_cast<int64_t>(s)}}}});
  }
  for (const Action &a : actions) {
    Object args{{"layer", a.layer}};
    if (inference)
      args["step"] = a.step;
    else
      args["micro_batch"] = a.microBatch;
    if (a.bytes > 0)
      args["bytes"] = a.bytes;
    if (a.flops > 0)
      args["flops"] = a.flops;
    ev.push_back(Object{{"name", actionLabel(a, false, inference)},
                        {"cat", a.tensor},
                        {"ph", "X"},
                        {"pid", 1},
                        {"tid", static_cast<int64_t>(a.stream)},
                        {"ts", a.start * 1e6},
                        {"dur", (a.end - a.start) * 1e6},
                        {"args", std::move(args)}});
  }
  return Object{{"traceEvents", std::move(ev)}, {"displayTimeUnit", "ms"}};
}

Value offload::finetuneTrace(const FinetunePlan &p) {
  return actionTrace(p.schedule, "sluice offload iteration", false,
                     [&](unsigned s) { return listed(p, s); });
}

Value offload::inferenceTrace(llvm::ArrayRef<Action> schedule) {
  return actionTrace(schedule, "sluice offloaded generation", true,
                     [](unsigned s) {
                       switch (Stream(s)) {
                       case Stream::GpuCompute:
                       case Stream::H2D:
                       case Stream::D2H:
                       case Stream::SsdRead:
                       case Stream::SsdWrite:
                       case Stream::CpuCompute:
                         return true;
                       default:
                         return false;
                       }
                     });
}

static const char *dsDevice(Tier t) {
  switch (t) {
  case Tier::Gpu:
    return "none";
  case Tier::Host:
    return "cpu";
  case Tier::Nvme:
  case Tier::Csd:
    return "nvme";
  }
  return "none";
}

llvm::Expected<Value> offload::deepSpeedConfig(const FinetunePlan &p,
                                               const FinetuneJob &job,
                                               const Machine &m,
                                               const DeepSpeedOptions &opts) {
  if (!p.feasible)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no DeepSpeed configuration for an infeasible plan (" +
            p.infeasibleReason + ")");
  const model::TransformerConfig &c = job.model;
  model::ParameterBreakdown pb = model::countParameters(c);
  // The largest single parameter tensor: the embedding or an MLP matrix.
  double largest = std::max({static_cast<double>(c.vocab * c.hidden),
                             static_cast<double>(c.effectiveFfn() * c.hidden),
                             static_cast<double>(c.hidden * c.hidden)});
  auto roundUp = [](double v, double q) { return std::ceil(v / q) * q; };
  const int64_t bufferSize = static_cast<int64_t>(roundUp(largest, 1e6));
  double layerParams = static_cast<double>(pb.perLayer.total());
  if (job.costs) {
    layerParams = 0;
    for (const LayerGroup &g : job.costs->groups)
      layerParams = std::max(layerParams, g.params);
  }
  const int64_t subGroup = static_cast<int64_t>(roundUp(layerParams, 1e6));

  Object zero{{"stage", 3},
              {"contiguous_gradients", true},
              {"overlap_comm", true},
              {"sub_group_size", subGroup},
              {"stage3_max_live_parameters", bufferSize * 2},
              {"stage3_prefetch_bucket_size", bufferSize},
              {"stage3_param_persistence_threshold", 0}};
  if (p.paramHome != Tier::Gpu) {
    Object op{{"device", dsDevice(p.paramHome)},
              {"pin_memory", true},
              {"buffer_count", std::max<int64_t>(5, 2 * p.paramBuffers + 1)},
              {"buffer_size", bufferSize}};
    if (p.paramHome == Tier::Nvme || p.paramHome == Tier::Csd) {
      op["nvme_path"] = opts.nvmePath;
      op["max_in_cpu"] = bufferSize;
    }
    zero["offload_param"] = std::move(op);
  }
  Object oo{{"device", dsDevice(p.optimizerHome)}, {"pin_memory", true}};
  if (p.optimizerHome == Tier::Nvme || p.optimizerHome == Tier::Csd) {
    oo["nvme_path"] = opts.nvmePath;
    oo["buffer_count"] = 4;
    oo["pipeline_read"] = true;
    oo["pipeline_write"] = true;
    oo["fast_init"] = false;
  }
  zero["offload_optimizer"] = std::move(oo);

  Object cfg{{"train_batch_size", job.batch},
             {"train_micro_batch_size_per_gpu", p.microBatch},
             {"gradient_accumulation_steps", p.accumulationSteps},
             {"zero_optimization", std::move(zero)},
             {"activation_checkpointing",
              Object{{"partition_activations", false},
                     {"cpu_checkpointing", true},
                     {"contiguous_memory_optimization", false},
                     {"number_checkpoints", c.layers}}}};
  if (p.paramHome == Tier::Nvme || p.optimizerHome == Tier::Nvme ||
      p.paramHome == Tier::Csd || p.optimizerHome == Tier::Csd) {
    int64_t drives = std::max<int64_t>(1, std::max(m.nvme.count, m.csd.count));
    cfg["aio"] = Object{{"block_size", 1048576},
                        {"queue_depth", 8 * std::min<int64_t>(drives, 4)},
                        {"thread_count", std::min<int64_t>(drives, 8)},
                        {"single_submit", false},
                        {"overlap_events", true}};
  }
  if (llvm::Error e = model::addDeepSpeedTraining(cfg, opts.training,
                                                  p.optimizerHome != Tier::Gpu))
    return std::move(e);
  return Value(std::move(cfg));
}

std::vector<std::string> offload::finetuneSearchLines(const FinetunePlan &p) {
  std::vector<std::string> out;
  const std::vector<CandidateReport> &cs = p.candidates;
  for (size_t i = 0; i < cs.size();) {
    size_t j = i;
    while (j < cs.size() && cs[j].microBatch == cs[i].microBatch)
      ++j;
    // The chosen, else the fastest scheduled, else the lowest bound, else
    // a pin violation, else the smallest memory need of this micro-batch.
    const CandidateReport *chosen = nullptr, *fastest = nullptr,
                          *bounded = nullptr, *pinned = nullptr,
                          *least = nullptr;
    for (size_t k = i; k < j; ++k) {
      const CandidateReport &c = cs[k];
      if (c.feasible && c.rejection.empty())
        chosen = &c;
      else if (c.feasible && c.iterationTime > 0) {
        if (!fastest || c.iterationTime < fastest->iterationTime)
          fastest = &c;
      } else if (c.feasible) {
        if (!bounded)
          bounded = &c;
      } else if (c.need <= c.have) {
        if (!pinned)
          pinned = &c;
      } else if (!least || c.need / c.have < least->need / least->have) {
        least = &c;
      }
    }
    std::string line =
        "micro-batch " + std::to_string(cs[i].microBatch) + " x " +
        std::to_string(p.accumulationSteps * p.microBatch / cs[i].microBatch) +
        ": ";
    if (chosen)
      line += "chosen, " + timeStr(chosen->iterationTime) + " (" +
              chosen->label() + ")";
    else if (fastest)
      line += "best scheduled " + timeStr(fastest->iterationTime) + " (" +
              fastest->label() + "), slower than the chosen plan";
    else if (bounded)
      line += bounded->rejection;
    else if (pinned)
      line += "rejected, " + pinned->rejection + " (" + pinned->label() + ")";
    else if (least)
      line += "infeasible, smallest need " + least->rejection;
    out.push_back(std::move(line));
    i = j;
  }
  return out;
}

/// Data parallelism: the GPUs, the batch split, and each GPU count tried.
static void gpuCountLines(llvm::raw_ostream &os, const FinetunePlan &p,
                          const FinetuneJob &job, const Machine &m) {
  if (p.gpuCounts.empty() && p.gpus <= 1)
    return;
  os << "  data parallel   " << p.gpus << " GPU" << (p.gpus > 1 ? "s" : "");
  if (p.gpus > 1) {
    os << " (";
    for (size_t i = 0; i < m.devices.gpuGroup.size(); ++i)
      os << (i ? ", " : "") << m.devices.gpuGroup[i];
    os << "), ZeRO-3 sharded states, " << job.batch / p.gpus
       << " sequences per GPU; collectives "
       << (m.peerBandwidth > 0
               ? "over peer links at " +
                     formatQuantity(m.peerBandwidth, Dim::bandwidth())
               : std::string("through host memory"))
       << ", host links " << formatQuantity(m.h2dBandwidth, Dim::bandwidth())
       << " per GPU";
  }
  os << "\n";
  for (const FinetunePlan::GpuCount &c : p.gpuCounts) {
    os << "    " << c.gpus << " GPU" << (c.gpus > 1 ? "s" : " ") << ": ";
    if (c.gpus == p.gpus)
      os << (c.feasible ? "chosen, " + timeStr(c.iterationTime)
                        : "infeasible, " + c.rejection);
    else if (c.feasible)
      os << timeStr(c.iterationTime) << ", " << c.rejection;
    else
      os << c.rejection;
    os << "\n";
  }
}

static void searchLines(llvm::raw_ostream &os, const FinetunePlan &p) {
  os << "\n  micro-batch and recomputation "
     << (p.microBatchSearched ? "searched" : "(micro-batch pinned by the job)")
     << ", " << p.candidates.size() << " candidates:\n";
  for (const std::string &l : finetuneSearchLines(p))
    os << "  " << l << "\n";
}

std::string offload::finetuneSummary(const FinetunePlan &p,
                                     const FinetuneJob &job, const Machine &m) {
  std::string out;
  llvm::raw_string_ostream os(out);
  const double n = parameters(job.model, job.costs);
  os << "Fine-tune plan: " << llvm::format("%.1f", n / 1e9) << "B parameters (L"
     << job.model.layers << ", h" << job.model.hidden << ", seq "
     << job.model.seq << ") on " << m.name << ", batch " << job.batch
     << " (micro-batch " << p.microBatch << " x " << p.accumulationSteps
     << (p.gpus > 1 ? " x " + std::to_string(p.gpus) + " GPUs" : std::string())
     << ")\n";
  gpuCountLines(os, p, job, m);
  if (!p.feasible) {
    os << "  infeasible: " << p.infeasibleReason << "\n";
    searchLines(os, p);
    costLines(os, job.costs);
    return out;
  }
  os << "  iteration time  " << timeStr(p.iterationTime) << "\n"
     << "  throughput      " << llvm::format("%.1f", p.tflops()) << " TFLOPS"
     << (p.gpus > 1 ? ", " +
                          std::to_string(static_cast<int64_t>(std::lround(
                              p.tflops() / static_cast<double>(p.gpus)))) +
                          " per GPU"
                    : std::string())
     << " (model FLOPs " << formatQuantity(p.modelFlops, Dim::flops())
     << ", with recomputation " << formatQuantity(p.hardwareFlops, Dim::flops())
     << ")\n";
  const bool lora = job.lora.rank > 0;
  if (lora)
    os << "  LoRA            rank " << job.lora.rank
       << " adapters: " << llvm::format("%.3f", p.trainableParams / 1e9)
       << "B trainable parameters ("
       << llvm::format("%.2f", 100.0 * p.trainableParams / n)
       << "% of the model), frozen base in "
       << (job.lora.nf4 ? "NF4 (QLoRA)" : "16 bits") << "\n";
  os << "\n  tensor class               home\n";
  os << (!lora          ? "  fp16 parameters            "
         : job.lora.nf4 ? "  nf4 base + adapters        "
                        : "  16-bit base + adapters     ")
     << tierName(p.paramHome) << " ("
     << (p.gpus > 1 && p.paramHome == Tier::Gpu
             ? "1/" + std::to_string(p.gpus) + " on each, "
             : std::string())
     << p.paramBuffers << " GPU layer buffers)\n";
  os << (lora ? "  adapters' fp32 master      "
              : "  fp32 master parameters     ")
     << tierName(p.masterHome) << "\n";
  os << (lora ? "  adapters' optimizer states "
              : "  Adam momentum, variance    ")
     << tierName(p.optimizerHome) << " (update on "
     << (p.updateOnCsd ? "csd" : "cpu")
     << (p.updateAfterBackward ? ", after the backward pass)\n"
                               : ", per layer during backward)\n");
  os << (lora ? "  adapters' gradients        "
              : "  fp16 gradients             ")
     << tierName(p.gradHome) << "\n";
  std::string sw = "layer input";
  for (unsigned i = 0; i < kNumSwappable; ++i)
    if (p.activations.swapped[i])
      sw += ", " + swappableName(i).str();
  os << "  swapped activations        " << sw << " ("
     << bytesStr(p.activations.swapBytesPerLayer) << "/layer; "
     << p.activations.layersOnHost << " layers on host, "
     << p.activations.layersOnNvme << " on nvme";
  if (p.activations.layersCheckpointOnly)
    os << ", " << p.activations.layersCheckpointOnly << " checkpoint only";
  os << ")\n";
  os << "  recomputed per layer       "
     << formatQuantity(p.activations.recomputeFlopsPerLayer, Dim::flops())
     << "\n";
  // Layers whose decisions differ (non-uniform models, or layers that keep
  // only their checkpoint): one line per run of equal layers.
  const std::vector<LayerActivations> &pl = p.activations.perLayer;
  auto same = [](const LayerActivations &a, const LayerActivations &b) {
    return a.swapped == b.swapped && a.swapBytes == b.swapBytes &&
           a.recomputeFlops == b.recomputeFlops && a.tier == b.tier &&
           a.checkpointOnly == b.checkpointOnly;
  };
  bool differ = false;
  for (const LayerActivations &la : pl)
    differ |= !same(la, pl.front());
  for (size_t i = 0; differ && i < pl.size();) {
    size_t j = i;
    while (j + 1 < pl.size() && same(pl[j + 1], pl[i]))
      ++j;
    std::string what = "layer input";
    for (unsigned k = 0; k < kNumSwappable; ++k)
      if (pl[i].swapped[k])
        what += ", " + swappableName(k).str();
    os << "    layers " << i << "-" << j << ": " << what << " ("
       << bytesStr(pl[i].swapBytes) << "/layer on " << tierName(pl[i].tier)
       << "), recompute " << formatQuantity(pl[i].recomputeFlops, Dim::flops())
       << "\n";
    i = j + 1;
  }
  os << "\n";
  os << "  tier   peak need    usable\n";
  auto tier = [&](const char *name, double need, double have) {
    if (have <= 0 && need <= 0)
      return;
    os << "  " << llvm::left_justify(name, 6) << " "
       << llvm::left_justify(bytesStr(need), 12) << " " << bytesStr(have)
       << "\n";
  };
  tier("gpu", p.peak.gpu, p.capacity.gpu);
  tier("host", p.peak.host, p.capacity.host);
  tier("nvme", p.peak.nvme, p.capacity.nvme);
  tier("csd", p.peak.csd, p.capacity.csd);
  os << "\n  stream          bytes        busy       utilization\n";
  double bytes[kNumStreams] = {0};
  for (const Action &a : p.schedule)
    bytes[static_cast<unsigned>(a.stream)] += a.bytes;
  for (unsigned s = 0; s < kNumStreams; ++s) {
    if (p.busy[s] <= 0 || !listed(p, s))
      continue;
    os << "  " << llvm::left_justify(streamName(Stream(s)), 15) << " "
       << llvm::left_justify(Stream(s) == Stream::GpuCompute
                                 ? std::string("-")
                                 : bytesStr(bytes[s]),
                             12)
       << " " << llvm::left_justify(timeStr(p.busy[s]), 10) << " "
       << llvm::format("%5.1f%%", 100.0 * p.busy[s] / p.iterationTime) << "\n";
  }
  searchLines(os, p);
  costLines(os, job.costs);
  return out;
}

static int64_t pct(double f) {
  return static_cast<int64_t>(std::lround(f * 100));
}

Value offload::inferencePlanToJson(const InferencePlan &p,
                                   const InferenceJob &job, const Machine &m) {
  Object o;
  o["job"] =
      Object{{"kind", model::stringifyJobAction(model::JobAction::Infer)},
             {"model", modelJson(job.model, job.costs)},
             {"prompt", job.prompt},
             {"generate", job.generate}};
  Object machine = machineJson(m);
  machine["infer_layer_overhead_s"] = m.inferLayerOverhead;
  machine["pageable_bytes_per_s"] = m.pageableBandwidth;
  machine["cpu_attention_flops"] = m.cpuAttentionFlops;
  o["machine"] = std::move(machine);
  o["feasible"] = p.feasible;
  if (!p.feasible) {
    o["binding_constraint"] = p.infeasibleReason;
    // An evaluated policy (evaluateInferencePolicy) that does not fit still
    // has its times; a search that found nothing has none.
    if (!(p.tokensPerSecond > 0))
      return o;
  }
  const InferencePolicy &q = p.policy;
  o["flexgen_policy"] = Object{{"gpu_batch_size", q.gpuBatch},
                               {"num_gpu_batches", q.numGpuBatches},
                               {"w_gpu_percent", pct(q.weights.gpu)},
                               {"w_cpu_percent", pct(q.weights.cpu)},
                               {"cache_gpu_percent", pct(q.cache.gpu)},
                               {"cache_cpu_percent", pct(q.cache.cpu)},
                               {"act_gpu_percent", pct(q.activations.gpu)},
                               {"act_cpu_percent", pct(q.activations.cpu)},
                               {"overlap", q.overlap},
                               {"sep_layer", true},
                               {"pin_weight", true},
                               {"cpu_cache_compute", q.cpuAttention},
                               {"attn_sparsity", 1.0},
                               {"compress_weight", job.compressWeights},
                               {"compress_cache", job.compressCache}};
  o["fractions"] =
      Object{{"weights", Array{q.weights.gpu, q.weights.cpu, q.weights.disk}},
             {"cache", Array{q.cache.gpu, q.cache.cpu, q.cache.disk}},
             {"activations",
              Array{q.activations.gpu, q.activations.cpu, q.activations.disk}}};
  auto terms = [](const PhaseTerms &t) {
    return Object{{"compute_s", t.compute},
                  {"cpu_attention_s", t.cpu},
                  {"h2d_s", t.h2d},
                  {"d2h_s", t.d2h},
                  {"disk_read_s", t.diskRead},
                  {"disk_write_s", t.diskWrite},
                  {"bottleneck", t.bottleneck()}};
  };
  o["prefill_per_layer"] = terms(p.prefill);
  o["decode_per_layer"] = terms(p.decode);
  o["prefill_time_s"] = p.prefillTime;
  o["decode_time_s"] = p.decodeTime;
  o["total_time_s"] = p.totalTime();
  o["tokens_per_s"] = p.tokensPerSecond;
  o["memory_bytes"] =
      Object{{"gpu", p.gpuBytes}, {"cpu", p.cpuBytes}, {"disk", p.diskBytes}};
  o["lps_solved"] = p.lpsSolved;
  return o;
}

std::string offload::inferenceSummary(const InferencePlan &p,
                                      const InferenceJob &job,
                                      const Machine &m) {
  std::string out;
  llvm::raw_string_ostream os(out);
  const double n = parameters(job.model, job.costs);
  os << "Offloaded inference plan: " << llvm::format("%.1f", n / 1e9)
     << "B parameters (L" << job.model.layers << ", h" << job.model.hidden
     << ") on " << m.name << ", prompt " << job.prompt << ", generate "
     << job.generate << "\n";
  if (job.compressWeights || job.compressCache)
    os << "  compression      4-bit groups of 64 ("
       << (job.compressWeights && job.compressCache ? "weights and KV cache"
           : job.compressWeights                    ? "weights"
                                                    : "KV cache")
       << (job.compressWeights
               ? "): predicted throughput not validated with compressed "
                 "weights, 1.3-1.5x above FlexGen's published runs at its "
                 "policies (docs/offload.md)\n"
               : "): validated on FlexGen's published OPT-30B run "
                 "(docs/offload.md)\n");
  if (!p.feasible) {
    os << "  infeasible: " << p.infeasibleReason << "\n";
    // An evaluated policy that does not fit still has its times.
    if (!(p.tokensPerSecond > 0)) {
      costLines(os, job.costs);
      return out;
    }
  }
  const InferencePolicy &q = p.policy;
  os << "  block            " << q.gpuBatch << " x " << q.numGpuBatches << " = "
     << q.blockSize() << " sequences\n"
     << "  throughput       " << llvm::format("%.3f", p.tokensPerSecond)
     << " tokens/s (prefill " << timeStr(p.prefillTime) << ", decode "
     << timeStr(p.decodeTime) << ")\n\n"
     << "  tensor         gpu     cpu     disk\n";
  auto row = [&](const char *name, const Split &s) {
    os << "  " << llvm::left_justify(name, 12)
       << llvm::format("%6.1f%%  %6.1f%%  %6.1f%%", 100 * s.gpu, 100 * s.cpu,
                       100 * s.disk)
       << "\n";
  };
  row("weights", q.weights);
  row("KV cache", q.cache);
  row("activations", q.activations);
  if (q.cpuAttention)
    os << "  attention        decode attention over the CPU/disk cache on the "
          "CPU (cpu_cache_compute)\n";
  os << "\n  per layer      compute    CPU attn   host->GPU  GPU->host  disk "
        "read  disk write  bound by\n";
  auto phase = [&](const char *name, const PhaseTerms &t) {
    os << "  " << llvm::left_justify(name, 12);
    for (double v : {t.compute, t.cpu, t.h2d, t.d2h, t.diskRead, t.diskWrite})
      os << " " << llvm::left_justify(timeStr(v), 10);
    os << " " << t.bottleneck() << "\n";
  };
  phase("prefill", p.prefill);
  phase("decode/token", p.decode);
  os << "\n  memory: gpu " << bytesStr(p.gpuBytes) << ", cpu "
     << bytesStr(p.cpuBytes) << ", disk " << bytesStr(p.diskBytes) << " ("
     << p.lpsSolved << " LPs solved)\n";
  costLines(os, job.costs);
  return out;
}
