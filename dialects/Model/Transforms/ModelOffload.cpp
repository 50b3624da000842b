//===- ModelOffload.cpp - Offload plans for model jobs --------------------===//
#include "dialects/Model/Transforms/ModelOffload.h"

#include "compiler/Analysis/Offload/FinetuneDataParallel.h"
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "compiler/Analysis/Offload/OffloadExport.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "compiler/Analysis/TopoAnalysis.h"
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "dialects/Model/Transforms/OffloadSchedule.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::model;

bool sluice::model::hasModelJobs(ModuleOp module) {
  return !module.getOps<JobOp>().empty();
}

namespace {

/// One job's inputs for the planners.
struct Prepared {
  TransformerConfig config; ///< names the model in reports
  offload::ModelCosts costs;
  double paramBytes = 0, gradBytes = 0, optimizerBytes = 0;
  offload::Machine machine; ///< its first GPU alone
  /// GPUs like the first (same server, memory and compute), the first
  /// included: what a finetune job plans data parallelism over.
  std::vector<std::string> gpuGroup;
};

/// The value of quantity `name` of `d`, 0 when absent.
double quantityOf(const analysis::TopoDevice &d, StringRef name) {
  const analysis::QuantityProp *q = d.findQuantity(name);
  return q ? q->value : 0.0;
}

/// The planners' costs from the attributes model-cost attached to `job`.
FailureOr<offload::ModelCosts> readCosts(JobOp job, TransformerOp model,
                                         Prepared &p) {
  auto missing = [&](StringRef what) {
    return mlir::emitError(job.getLoc())
           << "job '" << job.getSymName() << "' has no model-cost '" << what
           << "' attribute (run the model-cost pass before planning)";
  };
  auto num = [&](DictionaryAttr d, StringRef name,
                 double &out) -> LogicalResult {
    auto a =
        d ? d.getAs<IntegerAttr>(name) : job->getAttrOfType<IntegerAttr>(name);
    if (!a)
      return missing(name);
    out = static_cast<double>(a.getInt());
    return success();
  };
  auto groups = job->getAttrOfType<ArrayAttr>("layer_costs");
  if (!groups)
    return missing("layer_costs");
  offload::ModelCosts c;
  double seq = 0, params = 0;
  if (failed(num({}, "cost_seq", seq)) ||
      failed(num({}, "other_params", c.otherParams)) ||
      failed(num({}, "head_fwd_flops", c.headFwdFlops)) ||
      failed(num({}, "params", params)) ||
      failed(num({}, "param_bytes", p.paramBytes)) ||
      failed(num({}, "grad_bytes", p.gradBytes)) ||
      failed(num({}, "optimizer_bytes", p.optimizerBytes)))
    return failure();
  c.seq = static_cast<int64_t>(seq);
  c.vocab = model.getVocabAttr().getInt();
  c.dtypeBytes = dtypeBytes(model);
  auto layers = model.getBody().front().getOps<LayersOp>();
  auto layer = layers.begin();
  for (Attribute a : groups) {
    auto d = dyn_cast<DictionaryAttr>(a);
    if (!d || layer == layers.end())
      return missing("layer_costs");
    // The planners model one attention and one MLP per layer.
    unsigned attentions = 0, mlps = 0;
    for (Operation &op : (*layer).getBody().front()) {
      attentions += isa<AttentionOp>(op);
      mlps += isa<MlpOp>(op);
    }
    if (attentions != 1 || mlps != 1)
      return mlir::emitError(job.getLoc())
             << "not supported yet: planning model '" << job.getModel()
             << "' (a layer with " << attentions << " attention and " << mlps
             << " mlp blocks; the planners model one of each)";
    ++layer;
    offload::LayerGroup g;
    double count = 0, hidden = 0, heads = 0, kvDim = 0, ffn = 0;
    if (failed(num(d, "count", count)) || failed(num(d, "params", g.params)) ||
        failed(num(d, "fwd_flops", g.fwdFlops)) ||
        failed(num(d, "act_bytes", g.actBytes)) ||
        failed(num(d, "act_bytes_selective", g.actBytesSelective)) ||
        failed(num(d, "hidden", hidden)) || failed(num(d, "heads", heads)) ||
        failed(num(d, "kv_dim", kvDim)) || failed(num(d, "ffn", ffn)))
      return failure();
    auto gated = d.getAs<BoolAttr>("gated");
    if (!gated)
      return missing("gated");
    g.count = static_cast<int64_t>(count);
    g.hidden = static_cast<int64_t>(hidden);
    g.heads = static_cast<int64_t>(heads);
    g.kvDim = static_cast<int64_t>(kvDim);
    g.ffn = static_cast<int64_t>(ffn);
    g.gated = gated.getValue();
    if (d.get("experts")) { // a mixture of experts
      double experts = 0, topK = 0, capacity = 0;
      if (failed(num(d, "experts", experts)) || failed(num(d, "top_k", topK)))
        return failure();
      auto f = d.getAs<FloatAttr>("capacity");
      if (!f)
        return missing("capacity");
      capacity = f.getValueAsDouble();
      g.experts = static_cast<int64_t>(experts);
      g.topK = static_cast<int64_t>(topK);
      g.capacity = capacity;
    }
    c.groups.push_back(g);
  }
  if (layer != layers.end())
    return missing("layer_costs");
  if (std::string err = c.validate(); !err.empty())
    return mlir::emitError(job.getLoc())
           << "job '" << job.getSymName()
           << "': bad model-cost attributes: " << err;
  if (c.params() != params)
    return mlir::emitError(job.getLoc())
           << "job '" << job.getSymName()
           << "': the model-cost layer costs do not add up to params";
  return c;
}

/// The model's hyper-parameters as a TransformerConfig (for reports; the
/// costs come from the attributes).
TransformerConfig describe(TransformerOp model) {
  if (std::optional<TransformerConfig> cfg = uniformConfig(model))
    return *cfg;
  TransformerConfig c;
  c.layers = model.getLayersAttr().getInt();
  c.hidden = model.getHiddenAttr().getInt();
  c.heads = model.getHeadsAttr().getInt();
  c.kvHeads = model.getKvHeadsAttr().getInt();
  c.ffn = model.getFfnAttr().getInt();
  c.seq = model.getSeqAttr().getInt();
  c.vocab = model.getVocabAttr().getInt();
  c.dtypeBytes = dtypeBytes(model);
  for (Operation &op : model.getBody().front()) {
    if (auto h = dyn_cast<HeadOp>(op))
      c.tiedEmbeddings = h.getTied();
    else if (auto e = dyn_cast<EmbeddingOp>(op))
      c.positions =
          e.getPositionsAttr() ? PositionKind::Learned : PositionKind::Rotary;
  }
  model.walk([&](MlpOp m) {
    c.mlp = m.getGated() ? MlpKind::Gated : MlpKind::Standard;
    c.linearBiases = m.getBias();
  });
  model.walk([&](NormOp n) { c.norm = n.getKind(); });
  return c;
}

/// The job's precision (its model's dtype), optimizer, lr and steps, for
/// the DeepSpeed export.
model::TrainingSettings trainingSettings(JobOp job) {
  model::TrainingSettings s;
  if (auto m = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
          job, job.getModelAttr())) {
    Type t = m.getDtype();
    s.precision = isa<BFloat16Type>(t)  ? model::Precision::Bf16
                  : isa<Float32Type>(t) ? model::Precision::Fp32
                                        : model::Precision::Fp16;
  }
  if (job.getOptimizer())
    if (auto o = model::parseOptimizer(job.getOptimizer()->str()))
      s.optimizer = *o;
  if (auto lr = job.getLrAttr())
    s.lr = lr.getValueAsDouble();
  if (auto steps = job.getStepsAttr())
    s.steps = steps.getInt();
  return s;
}

FailureOr<Prepared> prepare(JobOp job, const analysis::TopoGraph &graph,
                            StringRef topology) {
  if (job.getTopology() != topology)
    return mlir::emitError(job.getLoc())
           << "job '" << job.getSymName() << "' runs on '" << job.getTopology()
           << "' but the flattened topology is '" << topology
           << "' (pass --top=" << job.getTopology() << ")";
  auto model = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      job, job.getModelAttr());
  if (!model)
    return mlir::emitError(job.getLoc())
           << "'" << job.getModel() << "' does not name a model.transformer";
  Prepared p;
  FailureOr<offload::ModelCosts> costs = readCosts(job, model, p);
  if (failed(costs))
    return failure();
  p.costs = std::move(*costs);
  p.config = describe(model);
  p.config.seq = p.costs.seq;

  std::vector<unsigned> gpus = analysis::devicesOfKind(graph, "gpu");
  if (gpus.empty())
    return mlir::emitError(job.getLoc())
           << "topology '" << topology << "' has no gpu";
  const analysis::TopoDevice &first = graph.devices[gpus.front()];
  const std::string gpu = first.name;
  // A finetune job plans data parallelism over the GPUs like the first;
  // the others are named, never planned away in silence.
  std::vector<std::string> others;
  for (unsigned d : gpus) {
    const analysis::TopoDevice &dev = graph.devices[d];
    bool like = dev.group == first.group &&
                quantityOf(dev, "memory") == quantityOf(first, "memory") &&
                quantityOf(dev, "compute") == quantityOf(first, "compute");
    if (like && job.getAction() == JobAction::Finetune)
      p.gpuGroup.push_back(dev.name);
    else if (d != gpus.front())
      others.push_back(dev.name);
  }
  if (!others.empty()) {
    InFlightDiagnostic w = mlir::emitWarning(job.getLoc());
    w << "job '" << job.getSymName() << "' is planned on ";
    if (job.getAction() == JobAction::Finetune)
      w << p.gpuGroup.size() << " gpu" << (p.gpuGroup.size() > 1 ? "s" : "")
        << " like '" << gpu << "' (data parallel), without '" << others.front()
        << "'"
        << (others.size() > 1
                ? " and " + std::to_string(others.size() - 1) + " more"
                : std::string())
        << ": a finetune job's GPUs share one host and have the same memory "
           "and compute";
    else
      w << "'" << gpu << "' alone, but topology '" << topology << "' has "
        << gpus.size() << " gpus: the infer planner offloads to one gpu";
    w << " (a `train` job plans data, tensor and pipeline parallelism over "
         "all of them)";
  }
  auto machine = offload::machineFromTopo(graph, gpu);
  if (!machine)
    return mlir::emitError(job.getLoc())
           << "cannot plan job '" << job.getSymName() << "' on '" << topology
           << "': " << llvm::toString(machine.takeError());
  machine->name = topology.str() + ":" + gpu;
  p.machine = std::move(*machine);
  return p;
}

offload::FinetuneJob finetuneJob(JobOp job, const Prepared &p) {
  offload::FinetuneJob fj;
  fj.model = p.config;
  fj.costs = p.costs;
  fj.batch = job.getBatchAttr().getInt();
  fj.microBatch =
      job.getMicroBatchAttr() ? job.getMicroBatchAttr().getInt() : 0;
  // Bytes per parameter of each model state, from model-cost's totals
  // (SGD with momentum keeps 8 optimizer bytes per parameter, Adam 12).
  const double n = p.costs.params();
  fj.precision.paramBytes = p.paramBytes / n;
  fj.precision.gradBytes = p.gradBytes / n;
  fj.precision.optimizerBytes = p.optimizerBytes / n;
  // What the CPU update moves per parameter (TransformerCost.h).
  if (job.getOptimizer())
    if (auto o = model::parseOptimizer(job.getOptimizer()->str()))
      fj.precision.updateBytes = model::optimizerCost(*o).updateBytes;
  if (auto r = job.getLoraRankAttr())
    fj.lora.rank = r.getInt();
  fj.lora.nf4 = job.getQuantize() == WeightQuant::Nf4;
  return fj;
}

/// The planner's tier for a schedule's `gpu`, `cpu`, `nvme`, `csd`.
offload::Tier plannerTier(Tier t) {
  switch (t) {
  case Tier::Gpu:
    return offload::Tier::Gpu;
  case Tier::Cpu:
    return offload::Tier::Host;
  case Tier::Nvme:
    return offload::Tier::Nvme;
  case Tier::Csd:
    return offload::Tier::Csd;
  }
  llvm_unreachable("unknown tier");
}

/// The tiers a finetune job's schedule pins, checked against the machine
/// of its topology: an error at the job for a tier the topology lacks.
LogicalResult pinTiers(JobOp job, const offload::Machine &m, StringRef topology,
                       offload::FinetuneOptions &o) {
  for (auto [what, pin, out] :
       {std::tuple{"params", job.getParamHome(), &o.paramHome},
        std::tuple{"grads", job.getGradHome(), &o.gradHome},
        std::tuple{"optimizer", job.getOptimizerHome(), &o.optimizerHome}}) {
    if (!pin)
      continue;
    if ((*pin == Tier::Nvme && !m.nvme.present()) ||
        (*pin == Tier::Csd && !m.csd.present()))
      return mlir::emitError(job.getLoc())
             << "job '" << job.getSymName() << "': its schedule keeps " << what
             << " on " << stringifyTier(*pin) << ", but topology '" << topology
             << "' has no " << stringifyTier(*pin) << " device that cpu '"
             << m.devices.cpu << "' reaches";
    *out = plannerTier(*pin);
  }
  return success();
}

offload::FinetuneOptions finetuneOptions(JobOp job) {
  offload::FinetuneOptions o;
  // `recompute: true`: keep only the layer inputs and recompute the rest;
  // `recompute: false`: recompute nothing; absent: the planner chooses.
  o.recompute = job.getRecompute();
  return o;
}

offload::InferenceOptions inferenceOptions(JobOp job) {
  offload::InferenceOptions o;
  // A job that states its batch plans blocks of exactly that many sequences.
  if (auto b = job.getBatchAttr()) {
    o.gpuBatchSizes = {b.getInt()};
    o.maxGpuBatches = 1;
  }
  return o;
}

} // namespace

LogicalResult
sluice::model::planModelJobs(ModuleOp module, const analysis::TopoGraph &graph,
                             StringRef topology, StringRef jobName,
                             OffloadFormat format, llvm::raw_ostream &os,
                             bool remarks) {
  llvm::SmallVector<JobOp> jobs;
  std::string names;
  for (JobOp job : module.getOps<JobOp>()) {
    if (job.getAction() == JobAction::Train ||
        job.getAction() == JobAction::Distill)
      continue; // model-plan-parallel and model-plan-distill plan them
    names += (names.empty() ? "" : ", ") + job.getSymName().str();
    if (jobName.empty() || job.getSymName() == jobName)
      jobs.push_back(job);
  }
  if (jobs.empty())
    return mlir::emitError(module.getLoc())
           << (jobName.empty()
                   ? std::string("no finetune or infer job")
                   : "no finetune or infer job named '" + jobName.str() +
                         "' (" +
                         (names.empty() ? std::string("the program has none")
                                        : "finetune and infer jobs: " + names) +
                         ")");
  if ((format == OffloadFormat::Trace || format == OffloadFormat::DeepSpeed)) {
    if (jobs.size() != 1)
      return mlir::emitError(module.getLoc())
             << "--format="
             << (format == OffloadFormat::Trace ? "trace" : "deepspeed")
             << " writes one job; choose one with --job=NAME";
    if (format == OffloadFormat::DeepSpeed &&
        jobs.front().getAction() != JobAction::Finetune)
      return mlir::emitError(jobs.front().getLoc())
             << "--format=deepspeed applies to finetune jobs (DeepSpeed's "
                "configuration is for training); plan infer job '"
             << jobs.front().getSymName()
             << "' in --format=table, json, trace or mlir";
  }

  bool failed = false;
  llvm::json::Object all;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  // The symbol of a job's plan.schedule (`--format=mlir`): the job's name
  // and `suffix`, or a located error when the module already has it.
  auto scheduleName = [&](JobOp job,
                          StringRef suffix) -> std::optional<std::string> {
    std::string name = (job.getSymName() + suffix).str();
    if (!SymbolTable::lookupSymbolIn(module, name))
      return name;
    mlir::emitError(job.getLoc())
        << "cannot name the schedule of job '" << job.getSymName()
        << "': symbol '" << name << "' exists";
    return std::nullopt;
  };
  for (JobOp job : jobs) {
    FailureOr<Prepared> p = prepare(job, graph, topology);
    if (llvm::failed(p)) {
      failed = true;
      continue;
    }
    std::string reason;
    if (job.getAction() == JobAction::Finetune) {
      offload::FinetuneJob fj = finetuneJob(job, *p);
      offload::FinetuneOptions fo = finetuneOptions(job);
      if (llvm::failed(pinTiers(job, p->machine, topology, fo))) {
        failed = true;
        continue;
      }
      // One machine per GPU count: the first k GPUs of the group.
      std::vector<offload::Machine> machines;
      for (size_t k = 1; k <= p->gpuGroup.size(); ++k) {
        auto mk = offload::machineForGpus(graph, p->machine,
                                          ArrayRef(p->gpuGroup).take_front(k));
        if (!mk) {
          mlir::emitError(job.getLoc())
              << "cannot plan job '" << job.getSymName() << "' on '" << topology
              << "': " << llvm::toString(mk.takeError());
          break;
        }
        if (k > 1)
          mk->name = topology.str() + " (" + std::to_string(k) + " gpus from " +
                     p->gpuGroup.front() + ")";
        machines.push_back(std::move(*mk));
      }
      if (machines.size() != p->gpuGroup.size()) {
        failed = true;
        continue;
      }
      auto dp = offload::planFinetuneOverGpus(fj, machines, fo);
      if (!dp) {
        mlir::emitError(job.getLoc())
            << "cannot plan job '" << job.getSymName()
            << "': " << llvm::toString(dp.takeError());
        failed = true;
        continue;
      }
      offload::FinetunePlan *plan = &dp->plan;
      p->machine = machines[dp->machine];
      if (!plan->fewerGpusReason.empty())
        mlir::emitWarning(job.getLoc())
            << "job '" << job.getSymName() << "' uses " << plan->gpus << " of "
            << machines.size() << " gpus: " << plan->fewerGpusReason;
      if (!plan->feasible)
        reason = (plan->gpus > 1 ? "on " + std::to_string(plan->gpus) +
                                       " gpus (data parallel), "
                                 : std::string()) +
                 plan->infeasibleReason;
      if (remarks) {
        InFlightDiagnostic d = job.emitRemark();
        d << "job '" << job.getSymName() << "': " << plan->candidates.size()
          << " candidates (micro-batch "
          << (plan->microBatchSearched ? "searched" : "pinned")
          << ", recompute "
          << (job.getRecompute()
                  ? (*job.getRecompute() ? "pinned to true" : "pinned to false")
                  : "searched")
          << ")";
        for (const std::string &l : offload::finetuneSearchLines(*plan))
          d << "; " << l;
      }
      switch (format) {
      case OffloadFormat::Summary:
        os << "job " << job.getSymName() << ":\n"
           << offload::finetuneSummary(*plan, fj, p->machine);
        break;
      case OffloadFormat::Json:
        all[job.getSymName()] =
            offload::finetunePlanToJson(*plan, fj, p->machine);
        break;
      case OffloadFormat::Trace:
        if (plan->feasible)
          os << llvm::formatv("{0:2}", offload::finetuneTrace(*plan)) << "\n";
        break;
      case OffloadFormat::DeepSpeed:
        if (plan->feasible) {
          offload::DeepSpeedOptions dso;
          dso.training = trainingSettings(job);
          auto ds = offload::deepSpeedConfig(*plan, fj, p->machine, dso);
          if (!ds) {
            mlir::emitError(job.getLoc()) << llvm::toString(ds.takeError());
            failed = true;
            continue;
          }
          os << llvm::formatv("{0:2}", *ds) << "\n";
        }
        break;
      case OffloadFormat::Mlir: {
        if (!plan->feasible)
          break;
        std::optional<std::string> name = scheduleName(job, "_iteration");
        if (!name || llvm::failed(buildFinetuneSchedule(builder, job.getLoc(),
                                                        *name, topology, *plan,
                                                        p->machine, graph))) {
          failed = true;
          continue;
        }
        break;
      }
      }
    } else {
      offload::InferenceJob ij;
      ij.model = p->config;
      ij.costs = p->costs;
      ij.prompt = p->costs.seq;
      ij.generate = job.getTokensAttr().getInt();
      if (auto c = job.getCompressTensors()) {
        ij.compressWeights = *c != CompressedTensors::Cache;
        ij.compressCache = *c != CompressedTensors::Weights;
      }
      auto plan = offload::planInference(ij, p->machine, inferenceOptions(job));
      if (!plan) {
        mlir::emitError(job.getLoc())
            << "cannot plan job '" << job.getSymName()
            << "': " << llvm::toString(plan.takeError());
        failed = true;
        continue;
      }
      if (!plan->feasible)
        reason = plan->infeasibleReason;
      switch (format) {
      case OffloadFormat::Json:
        all[job.getSymName()] =
            offload::inferencePlanToJson(*plan, ij, p->machine);
        break;
      case OffloadFormat::Trace:
        if (plan->feasible)
          os << llvm::formatv(
                    "{0:2}", offload::inferenceTrace(offload::inferenceSchedule(
                                 ij, p->machine, *plan)))
             << "\n";
        break;
      case OffloadFormat::Mlir: {
        if (!plan->feasible)
          break;
        std::optional<std::string> name = scheduleName(job, "_generation");
        if (!name || llvm::failed(buildInferenceSchedule(
                         builder, job.getLoc(), *name, topology, *plan,
                         offload::inferenceSchedule(ij, p->machine, *plan),
                         p->machine, graph))) {
          failed = true;
          continue;
        }
        break;
      }
      default:
        os << "job " << job.getSymName() << ":\n"
           << offload::inferenceSummary(*plan, ij, p->machine);
        break;
      }
    }
    if (!reason.empty()) {
      mlir::emitError(job.getLoc())
          << "job '" << job.getSymName() << "' does not fit on '" << topology
          << "': " << reason;
      failed = true;
    }
  }
  if (format == OffloadFormat::Json)
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(all))) << "\n";
  if (format == OffloadFormat::Mlir && !failed) {
    if (llvm::failed(mlir::verify(module)))
      return failure();
    module.print(os);
    os << "\n";
  }
  return failure(failed);
}
