//===- sluice-plan-offload.cpp - Offload planner command line -------------===//
//
// Plans an offloaded fine-tuning iteration (--job=finetune) or an offloaded
// inference run (--job=infer) of a transformer on one machine, given by a
// preset name or by a .sluice topology file, and prints a summary, the plan
// as JSON, a Chrome/Perfetto trace or a DeepSpeed configuration.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "compiler/Analysis/Offload/OffloadExport.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"
#include "compiler/Analysis/Offload/RuntimeSchedule.h"
#include "compiler/Analysis/Offload/SmartInfinity.h"
#include "compiler/Analysis/TopoAnalysis.h"
#include "compiler/Pipelines/Compilation.h"
#include "dialects/Common/ToolVersion.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "support/NumberFormat.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <chrono>

using namespace sluice;
using namespace sluice::offload;
namespace cl = llvm::cl;

static cl::OptionCategory cat("sluice-plan-offload options");

static cl::opt<std::string> modelName(
    "model", cl::desc("Model preset (or give --layers/--hidden/--heads)"),
    cl::cat(cat));
static cl::opt<int64_t> layers("layers", cl::desc("Transformer layers"),
                               cl::init(0), cl::cat(cat));
static cl::opt<int64_t> hidden("hidden", cl::desc("Hidden size"), cl::init(0),
                               cl::cat(cat));
static cl::opt<int64_t> heads("heads", cl::desc("Attention heads"),
                              cl::init(0), cl::cat(cat));
static cl::opt<int64_t> vocab("vocab", cl::desc("Vocabulary (with --layers)"),
                              cl::init(50257), cl::cat(cat));
static cl::opt<int64_t> seq("seq",
                            cl::desc("Training sequence length (0: the "
                                     "model's; 1024 with --layers)"),
                            cl::init(0), cl::cat(cat));
static cl::opt<std::string>
    machineName("machine",
                cl::desc("Machine preset, or a .sluice topology file"),
                cl::init("rtx4090-12nvme"), cl::cat(cat));
static cl::opt<std::string>
    topology("topology",
             cl::desc("Topology of the .sluice file (default: the last)"),
             cl::init(""), cl::cat(cat));
static cl::opt<std::string> gpuPath(
    "gpu", cl::desc("GPU device of the topology (default: the first gpu)"),
    cl::init(""), cl::cat(cat));
static cl::opt<std::string>
    cpuPath("cpu", cl::desc("CPU device (default: the one nearest the GPU)"),
            cl::init(""), cl::cat(cat));
static cl::opt<double>
    gpuEfficiency("gpu-efficiency",
                  cl::desc("Attained fraction of the GPU peak (0: the "
                           "machine's)"),
                  cl::init(0), cl::cat(cat));
static cl::opt<double> cpuAdamRate(
    "cpu-adam-rate",
    cl::desc("CPU optimizer rate, parameters/s (0: the machine's)"),
    cl::init(0), cl::cat(cat));
static cl::opt<double> layerOverheadUs(
    "layer-overhead-us",
    cl::desc("Infer: runtime overhead per layer, GPU batch and step, "
             "microseconds (0: the machine's)"),
    cl::init(0));
static cl::opt<double> pageableGBs(
    "pageable-gbs",
    cl::desc("Infer: host<->GPU rate of pageable copies (KV cache, hidden "
             "states), GB/s (0: the machine's)"),
    cl::init(0));
static cl::opt<double> cpuAttentionGflops(
    "cpu-attention-gflops",
    cl::desc("Infer: CPU attention rate, GFLOP/s (0: the machine's)"),
    cl::init(0));
static cl::opt<std::string> policyOpt(
    "policy",
    cl::desc("Infer: evaluate this FlexGen policy instead of searching: "
             "GBS,N,WG,WC,CG,CC,HG,HC percents (disk is the rest) and "
             "optionally ,cpu for cpu_cache_compute"),
    cl::init(""));
static cl::opt<double> hostMemoryGiB(
    "host-memory-gib", cl::desc("Host memory to plan with (0: the machine's)"),
    cl::init(0), cl::cat(cat));

enum class JobKind { Finetune, Infer };
static cl::opt<JobKind>
    jobKind("job", cl::desc("What to plan"), cl::init(JobKind::Finetune),
            cl::values(clEnumValN(JobKind::Finetune, "finetune",
                                  "one fine-tuning iteration"),
                       clEnumValN(JobKind::Infer, "infer",
                                  "offloaded batched generation")),
            cl::cat(cat));
static cl::opt<int64_t> batch("batch", cl::desc("Sequences per iteration"),
                              cl::init(8), cl::cat(cat));
static cl::opt<int64_t> microBatch(
    "micro-batch",
    cl::desc("Micro-batch (0: the planner chooses a divisor of the batch)"),
    cl::init(0), cl::cat(cat));
static cl::opt<int64_t> prompt("prompt", cl::desc("Prompt tokens (infer)"),
                               cl::init(512), cl::cat(cat));
static cl::opt<int64_t> generate("generate",
                                 cl::desc("Generated tokens (infer)"),
                                 cl::init(32), cl::cat(cat));
static cl::opt<std::string> compress(
    "compress",
    cl::desc("Infer: FlexGen's 4-bit compression of weights, cache, or "
             "both (none, weights, cache, all)"),
    cl::init("none"), cl::cat(cat));
static cl::opt<bool> noActiveGrad(
    "no-active-grad-offload",
    cl::desc("Run the optimizer after the backward pass (ZeRO-Infinity)"),
    cl::init(false), cl::cat(cat));
static cl::opt<bool> noSwap("no-activation-swap",
                            cl::desc("Checkpoint layer inputs only"),
                            cl::init(false), cl::cat(cat));
static cl::opt<double> gradCompression(
    "grad-compression",
    cl::desc("Gradient compression ratio for CSD updates (1 = none)"),
    cl::init(1.0), cl::cat(cat));
static cl::opt<std::string> smartInfinity(
    "smart-infinity",
    cl::desc("Finetune as Smart-Infinity's configuration base (ZeRO-"
             "Infinity), su, su+o or su+o+c; the summary adds the speedup "
             "over base on the same machine (docs/offload.md)"),
    cl::init(""), cl::cat(cat));
static cl::opt<std::string> nvmePath("nvme-path",
                                     cl::desc("nvme_path for DeepSpeed"),
                                     cl::init("/local_nvme"), cl::cat(cat));

static cl::opt<double> gpuMemoryMiB(
    "gpu-memory-mib",
    cl::desc("GPU memory to plan with, MiB (0: the machine's)"), cl::init(0),
    cl::cat(cat));
static cl::opt<std::string> paramHomeOpt(
    "param-home",
    cl::desc("Restrict the parameters' home: gpu, host, nvme or csd"),
    cl::init(""), cl::cat(cat));
static cl::opt<std::string> optimizerHomeOpt(
    "optimizer-home",
    cl::desc("Restrict the optimizer states' home: gpu, host, nvme or csd"),
    cl::init(""), cl::cat(cat));
static cl::opt<std::string> mlpWidths(
    "mlp-widths",
    cl::desc("--format=schedule: widths of the MLP the runtime trains "
             "(inputs,...,outputs; one layer per transformer layer)"),
    cl::init(""), cl::cat(cat));
static cl::opt<int64_t> mlpBatch("mlp-batch",
                                 cl::desc("--format=schedule: MLP batch rows"),
                                 cl::init(32), cl::cat(cat));

static cl::opt<std::string> runtimeModel(
    "runtime-model",
    cl::desc("--format=schedule: the model the runtime trains: mlp (needs "
             "--mlp-widths) or transformer (the planned model itself, "
             "fp32, --batch sequences; docs/offload-runtime.md)"),
    cl::init("mlp"), cl::cat(cat));

static cl::opt<std::string> abftOpt(
    "abft",
    cl::desc("--format=schedule: checksums on the runtime's layer GEMMs: "
             "off, fail or recompute (docs/offload-runtime.md)"),
    cl::init(""), cl::cat(cat));

enum class Format { Summary, Json, Trace, DeepSpeed, Schedule };
static cl::opt<Format> format(
    "format", cl::desc("Output"), cl::init(Format::Summary),
    cl::values(clEnumValN(Format::Summary, "summary", "human-readable table"),
               clEnumValN(Format::Json, "json", "the plan as JSON"),
               clEnumValN(Format::Trace, "trace",
                          "Chrome/Perfetto trace of the iteration"),
               clEnumValN(Format::DeepSpeed, "deepspeed",
                          "DeepSpeed ZeRO-Infinity configuration"),
               clEnumValN(Format::Schedule, "schedule",
                          "the per-layer schedule the offload runtime "
                          "executes (needs --mlp-widths)")),
    cl::cat(cat));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::init("-"), cl::cat(cat));
static cl::opt<bool> timePlanning(
    "time", cl::desc("Print the planning time (seconds) to stderr"),
    cl::init(false), cl::cat(cat));

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "sluice-plan-offload: error: " << msg << "\n";
  return 1;
}

/// The numeric options, checked before anything uses them: an override
/// that is NaN or negative is an error, not the machine's value.
static bool checkOptions() {
  auto bad = [](const llvm::Twine &msg) {
    fail(msg);
    return false;
  };
  for (cl::opt<double> *o :
       {&gpuMemoryMiB, &hostMemoryGiB, &cpuAdamRate, &gpuEfficiency,
        &layerOverheadUs, &pageableGBs, &cpuAttentionGflops})
    if (!std::isfinite(o->getValue()) || o->getValue() < 0)
      return bad("--" + o->ArgStr + " must be a finite number >= 0 (0: the "
                 "machine's), got " + formatNumber(o->getValue()));
  if (gpuEfficiency > 1)
    return bad("--gpu-efficiency must be at most 1, got " +
               formatNumber(gpuEfficiency));
  if (!std::isfinite(gradCompression) || gradCompression <= 0 ||
      gradCompression > 1)
    return bad("--grad-compression must lie in (0, 1] (1: none), got " +
               formatNumber(gradCompression));
  for (cl::opt<int64_t> *o : {&layers, &hidden, &heads, &seq, &microBatch})
    if (o->getValue() < 0)
      return bad("--" + o->ArgStr + " must be >= 0, got " +
                 llvm::Twine(o->getValue()));
  for (cl::opt<int64_t> *o : {&vocab, &batch, &prompt, &generate, &mlpBatch})
    if (o->getValue() <= 0)
      return bad("--" + o->ArgStr + " must be positive, got " +
                 llvm::Twine(o->getValue()));
  return true;
}

/// --policy: "GBS,N,WG,WC,CG,CC,HG,HC[,cpu]" as FlexGen's command line
/// gives it (--gpu-batch-size, --num-gpu-batches, --percent, --cpu).
static llvm::Expected<InferencePolicy> parsePolicy(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 9> parts;
  text.split(parts, ',');
  auto bad = [&] {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--policy must be GBS,N,WG,WC,CG,CC,HG,HC[,cpu] (integers; percents "
        "0-100), got '" +
            text + "'");
  };
  bool cpu = parts.size() == 9 && parts.back() == "cpu";
  if (parts.size() != 8 && !cpu)
    return bad();
  int64_t v[8];
  for (unsigned i = 0; i < 8; ++i)
    if (parts[i].trim().getAsInteger(10, v[i]) || v[i] < 0 ||
        (i >= 2 && v[i] > 100))
      return bad();
  auto split = [&](int64_t g, int64_t c) {
    return Split{g / 100.0, c / 100.0, (100 - g - c) / 100.0};
  };
  InferencePolicy q;
  q.gpuBatch = v[0];
  q.numGpuBatches = v[1];
  q.weights = split(v[2], v[3]);
  q.cache = split(v[4], v[5]);
  q.activations = split(v[6], v[7]);
  q.cpuAttention = cpu;
  return q;
}

/// The inference runtime figures the command line overrides.
static void applyInferOverrides(Machine &m) {
  if (layerOverheadUs > 0)
    m.inferLayerOverhead = layerOverheadUs * 1e-6;
  if (pageableGBs > 0)
    m.pageableBandwidth = pageableGBs * 1e9;
  if (cpuAttentionGflops > 0)
    m.cpuAttentionFlops = cpuAttentionGflops * 1e9;
}

/// The machine: a preset, or the topology of a .sluice file.
static std::optional<Machine> loadMachine() {
  TopoMachineOptions topts;
  if (gpuEfficiency > 0)
    topts.gpuEfficiency = gpuEfficiency;
  if (cpuAdamRate > 0)
    topts.cpuAdamRate = cpuAdamRate;
  std::optional<Machine> m;
  if (!llvm::StringRef(machineName).ends_with(".sluice")) {
    m = machinePreset(machineName);
    if (!m) {
      fail("unknown machine '" + machineName + "' (presets: " +
           machinePresetNames() + "; or a .sluice file)");
      return std::nullopt;
    }
  } else {
    if (!llvm::sys::fs::exists(machineName)) {
      fail("cannot open file '" + machineName + "'");
      return std::nullopt;
    }
    mlir::DialectRegistry registry;
    registerSluiceDialects(registry);
    mlir::MLIRContext ctx(registry);
    ctx.loadAllAvailableDialects();
    ctx.printOpOnDiagnostic(false); // errors name the source, not the IR
    llvm::SourceMgr sourceMgr;
    mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &ctx);
    Compilation c(ctx, sourceMgr);
    if (mlir::failed(c.parse(machineName)) || mlir::failed(c.check()) ||
        mlir::failed(c.lower()) || mlir::failed(c.flatten(topology)))
      return std::nullopt;
    auto graph = extractTopoGraph(c.module());
    if (mlir::failed(graph))
      return std::nullopt;
    std::string gpu = gpuPath;
    if (gpu.empty()) {
      std::vector<unsigned> gpus = analysis::devicesOfKind(*graph, "gpu");
      if (gpus.empty()) {
        fail("topology of '" + machineName + "' has no gpu");
        return std::nullopt;
      }
      gpu = graph->devices[gpus.front()].name;
    }
    if (hostMemoryGiB > 0)
      topts.hostMemory = hostMemoryGiB * 1024.0 * 1024.0 * 1024.0;
    auto built = machineFromTopo(*graph, gpu, cpuPath, topts);
    if (!built) {
      fail(machineName + ": " + llvm::toString(built.takeError()));
      return std::nullopt;
    }
    built->name = llvm::sys::path::stem(machineName).str() + ":" + gpu;
    if (gpuMemoryMiB > 0)
      built->gpuMemory = gpuMemoryMiB * 1024.0 * 1024.0;
    applyInferOverrides(*built);
    return *built;
  }
  if (gpuEfficiency > 0)
    m->gpuEfficiency = gpuEfficiency;
  if (gpuMemoryMiB > 0)
    m->gpuMemory = gpuMemoryMiB * 1024.0 * 1024.0;
  if (hostMemoryGiB > 0)
    m->hostMemory = hostMemoryGiB * 1024.0 * 1024.0 * 1024.0;
  if (cpuAdamRate > 0)
    m->cpuAdamRate = cpuAdamRate;
  applyInferOverrides(*m);
  if (std::string err = m->validate(); !err.empty()) {
    fail("machine '" + m->name + "': " + err);
    return std::nullopt;
  }
  return m;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Compilation::flatten applies the pass-manager options: register them
  // (hidden; --help-hidden lists them).
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  installVersionPrinter("sluice-plan-offload");
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluice-plan-offload: offload plans for fine-tuning and inference\n\n"
      "Models: " + modelPresetNames() +
          "\nMachines: " + machinePresetNames() + ", or a .sluice file\n");

  if (!checkOptions())
    return 1;
  std::optional<model::TransformerConfig> cfg;
  if (!modelName.empty()) {
    if (layers || hidden || heads)
      return fail("give --model or --layers/--hidden/--heads, not both");
    cfg = modelPreset(modelName, seq);
    if (!cfg)
      return fail("unknown model '" + modelName +
                  "' (presets: " + modelPresetNames() + ")");
  } else {
    if (!layers || !hidden || !heads)
      return fail("give --model=<preset> or --layers, --hidden and --heads");
    cfg = model::TransformerConfig::gpt(layers, hidden, heads,
                                        seq > 0 ? seq : 1024, vocab);
  }
  if (std::string err = cfg->validate(); !err.empty())
    return fail("invalid model: " + err);
  std::optional<Machine> machine = loadMachine();
  if (!machine)
    return 1;

  std::string err;
  auto out = mlir::openOutputFile(outputFilename, &err);
  if (!out)
    return fail(err);
  llvm::raw_ostream &os = out->os();
  auto t0 = std::chrono::steady_clock::now();
  auto reportTime = [&] {
    if (timePlanning)
      llvm::errs() << "planning time: "
                   << std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - t0)
                          .count()
                   << " s\n";
  };

  if (jobKind == JobKind::Finetune) {
    FinetuneJob job{*cfg, batch, microBatch};
    FinetuneOptions opts;
    opts.activeGradientOffload = !noActiveGrad;
    if (noSwap)
      opts.recompute = true;
    opts.gradCompression = gradCompression;
    for (auto [text, home] :
         {std::pair{&paramHomeOpt, &opts.paramHome},
          std::pair{&optimizerHomeOpt, &opts.optimizerHome}}) {
      if (text->empty())
        continue;
      std::optional<Tier> t;
      for (Tier k : {Tier::Gpu, Tier::Host, Tier::Nvme, Tier::Csd})
        if (tierName(k) == *text)
          t = k;
      if (!t)
        return fail("unknown tier '" + text->getValue() + "' for --" +
                    text->ArgStr.str() + " (expected gpu, host, nvme or csd)");
      *home = t;
    }
    std::optional<SmartInfinityConfig> si;
    if (!smartInfinity.empty()) {
      si = parseSmartInfinityConfig(smartInfinity);
      if (!si)
        return fail("--smart-infinity must be base, su, su+o or su+o+c, got '" +
                    smartInfinity + "'");
      if (noActiveGrad || noSwap || gradCompression != 1.0 ||
          !paramHomeOpt.empty() || !optimizerHomeOpt.empty())
        return fail("--smart-infinity sets the homes, the update order, "
                    "recomputation and compression itself; drop "
                    "--param-home, --optimizer-home, --no-active-grad-offload, "
                    "--no-activation-swap and --grad-compression");
      opts = smartInfinityOptions(*si);
    }
    auto plan = planFinetune(job, *machine, opts);
    reportTime();
    if (!plan)
      return fail(llvm::toString(plan.takeError()));
    switch (format) {
    case Format::Summary:
      os << finetuneSummary(*plan, job, *machine);
      if (si && *si != SmartInfinityConfig::Base && plan->feasible) {
        auto base = planFinetune(
            job, *machine, smartInfinityOptions(SmartInfinityConfig::Base));
        if (!base)
          return fail(llvm::toString(base.takeError()));
        if (base->feasible)
          os << llvm::formatv(
              "Smart-Infinity {0}: {1:F2}x over ZeRO-Infinity (base: {2:F3} "
              "s, {0}: {3:F3} s)\n",
              smartInfinityConfigName(*si),
              base->iterationTime / plan->iterationTime, base->iterationTime,
              plan->iterationTime);
        else
          os << "Smart-Infinity " << smartInfinityConfigName(*si)
             << ": no speedup, ZeRO-Infinity (base) is infeasible: "
             << base->infeasibleReason << "\n";
      }
      break;
    case Format::Json:
      os << llvm::formatv("{0:2}", finetunePlanToJson(*plan, job, *machine))
         << "\n";
      break;
    case Format::Trace:
      if (!plan->feasible)
        return fail("no trace: " + plan->infeasibleReason);
      os << llvm::formatv("{0}", finetuneTrace(*plan)) << "\n";
      break;
    case Format::DeepSpeed: {
      DeepSpeedOptions dso;
      dso.nvmePath = nvmePath;
      auto ds = deepSpeedConfig(*plan, job, *machine, dso);
      if (!ds)
        return fail(llvm::toString(ds.takeError()));
      os << llvm::formatv("{0:2}", *ds) << "\n";
      break;
    }
    case Format::Schedule: {
      RuntimeModel rm;
      if (runtimeModel == "transformer") {
        if (!mlpWidths.empty())
          return fail("--mlp-widths is for --runtime-model=mlp; the runtime "
                      "transformer is the planned model");
        auto tm = transformerRuntimeModel(job.model, job.batch);
        if (!tm)
          return fail(llvm::toString(tm.takeError()));
        rm = std::move(*tm);
      } else if (runtimeModel == "mlp") {
        if (mlpWidths.empty())
          return fail("--format=schedule needs --mlp-widths (the MLP the "
                      "runtime trains, one layer per transformer layer)");
        auto widths = parseWidths(mlpWidths);
        if (!widths)
          return fail(llvm::toString(widths.takeError()));
        rm.widths = *widths;
        rm.batch = mlpBatch;
      } else {
        return fail("--runtime-model must be mlp or transformer, not '" +
                    runtimeModel + "'");
      }
      if (!abftOpt.empty() && abftOpt != "off" && abftOpt != "fail" &&
          abftOpt != "recompute")
        return fail("--abft must be off, fail or recompute, not '" + abftOpt +
                    "'");
      rm.abft = abftOpt;
      auto sched = finetuneRuntimeSchedule(*plan, job, opts, rm);
      if (!sched)
        return fail(llvm::toString(sched.takeError()));
      os << llvm::formatv("{0:2}", *sched) << "\n";
      break;
    }
    }
  } else {
    InferenceJob job{*cfg, prompt, generate};
    if (compress == "weights" || compress == "all")
      job.compressWeights = true;
    if (compress == "cache" || compress == "all")
      job.compressCache = true;
    if (compress != "none" && compress != "weights" && compress != "cache" &&
        compress != "all")
      return fail("--compress must be none, weights, cache or all, got '" +
                  compress + "'");
    llvm::Expected<InferencePlan> plan =
        policyOpt.empty() ? planInference(job, *machine)
                          : [&]() -> llvm::Expected<InferencePlan> {
      auto q = parsePolicy(policyOpt);
      if (!q)
        return q.takeError();
      return evaluateInferencePolicy(job, *machine, *q);
    }();
    reportTime();
    if (!plan)
      return fail(llvm::toString(plan.takeError()));
    switch (format) {
    case Format::Summary:
      os << inferenceSummary(*plan, job, *machine);
      break;
    case Format::Json:
      os << llvm::formatv("{0:2}", inferencePlanToJson(*plan, job, *machine))
         << "\n";
      break;
    case Format::Trace:
      if (!plan->feasible)
        return fail("no trace of an infeasible plan: " +
                    plan->infeasibleReason);
      os << llvm::formatv("{0:2}", inferenceTrace(
                                       inferenceSchedule(job, *machine, *plan)))
         << "\n";
      break;
    case Format::DeepSpeed:
    case Format::Schedule:
      return fail("--format=deepspeed and schedule are for --job=finetune; "
                  "use summary, json or trace for inference");
    }
  }
  out->keep();
  return 0;
}
