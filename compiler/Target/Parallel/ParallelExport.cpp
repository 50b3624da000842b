//===- ParallelExport.cpp - What Megatron-LM and DeepSpeed consume --------===//
#include "compiler/Target/Parallel/ParallelExport.h"

#include "compiler/Target/Parallel/ParallelTrace.h"
#include "dialects/Model/Transforms/ParallelAdversarial.h"

#include "compiler/Analysis/Model/DeepSpeedSections.h"
#include "dialects/Model/IR/ModelOps.h"
#include "support/Units.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::target;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// Where each GPU path lives: its host's index and its local index.
struct GpuHome {
  size_t host = 0;
  size_t local = 0;
};

/// What the writers read of one plan.
struct PlanView {
  mutable plan::ParallelOp op; // op handles: their getters are not const
  mutable model::JobOp job;
  mutable model::TransformerOp model;
  std::vector<std::string> rankGpu; ///< global rank -> GPU path
  int64_t seq = 0;
  int64_t globalBatch = 0;
};

int64_t i64(IntegerAttr a) { return a.getInt(); }
double f64(FloatAttr a) { return a.getValueAsDouble(); }

FailureOr<PlanView> view(plan::ParallelOp op) {
  PlanView v;
  v.op = op;
  v.job =
      SymbolTable::lookupNearestSymbolFrom<model::JobOp>(op, op.getJobAttr());
  if (!v.job)
    return op.emitError() << "'" << op.getJob()
                          << "' does not name a model.job";
  v.model = SymbolTable::lookupNearestSymbolFrom<model::TransformerOp>(
      v.job, v.job.getModelAttr());
  if (!v.model)
    return v.job.emitError()
           << "'" << v.job.getModel() << "' does not name a model.transformer";
  v.seq =
      v.job.getSeqAttr() ? i64(v.job.getSeqAttr()) : i64(v.model.getSeqAttr());
  v.globalBatch = i64(v.job.getBatchAttr());
  for (plan::StageOp s : op.getBody().front().getOps<plan::StageOp>())
    for (Attribute a : s.getGpus())
      v.rankGpu.push_back(cast<StringAttr>(a).getValue().str());
  return v;
}

std::string quantity(double v, const Dim &d) { return formatQuantity(v, d); }

/// "0, 1" of the compressed stages.
std::string stageList(ArrayRef<int64_t> stages) {
  std::string out;
  for (int64_t s : stages)
    out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

/// One line on Optimus-CC's compression, when the plan kept it.
std::string compressionLine(plan::ParallelOp op) {
  if (!op.getCompressRankAttr())
    return "";
  std::string what;
  if (auto n = op.getCompressedMicroBatchesAttr())
    what = "backward sends of the last " + std::to_string(i64(n)) +
           " micro-batch(es) at every stage boundary (epilogue)";
  if (auto st = op.getCompressedDpStagesAttr())
    what += (what.empty() ? "" : "; ") +
            std::string("data-parallel gradients of stage(s) ") +
            stageList(st.asArrayRef());
  const double t = f64(op.getTimeAttr()), u = f64(op.getUncompressedTimeAttr());
  return "  compression (Optimus-CC, lossy, rank " +
         std::to_string(i64(op.getCompressRankAttr())) + "): " + what +
         "; iteration " + quantity(t, Dim::time()) + " vs " +
         quantity(u, Dim::time()) + " uncompressed" +
         llvm::formatv(" ({0:F3}x)", t > 0 ? u / t : 1.0).str() + "\n";
}

/// "server[0].gpu[0..7]"-style short lists for long stages.
std::string gpuList(ArrayAttr gpus) {
  std::string out;
  const size_t n = gpus.size(), shown = n > 8 ? 4 : n;
  for (size_t i = 0; i < shown; ++i)
    out += (i ? ", " : "") + cast<StringAttr>(gpus[i]).getValue().str();
  if (shown < n)
    out += ", ... (" + std::to_string(n) + " gpus, last " +
           cast<StringAttr>(gpus[n - 1]).getValue().str() + ")";
  return out;
}

/// One line on adversarial training, when the job trains adversarially.
std::string adversarialLine(const PlanView &v) {
  plan::ParallelOp op = v.op;
  model::JobOp job = v.job;
  if (!op.getAdversarialEpochAttr() || !job.getAdversarialAttr())
    return "";
  const double adv = f64(op.getAdversarialEpochAttr()),
               plain = f64(op.getPlainEpochAttr());
  const int64_t steps = job.getStepsAttr() ? i64(job.getStepsAttr()) : 1;
  std::string s =
      "  adversarial training (" + job.getAdversarial()->str() +
      "): epoch of " + std::to_string(steps) + " step(s) " +
      quantity(adv, Dim::time()) + " vs " + quantity(plain, Dim::time()) +
      " without" +
      llvm::formatv(" ({0:F2}x); PGD attack ", plain > 0 ? adv / plain : 0.0)
          .str() +
      quantity(f64(op.getAttackTimeAttr()), Dim::time());
  if (auto peer = op.getPeerTimeAttr())
    s += ", peer " + job.getPeer()->str() + " " +
         quantity(f64(peer), Dim::time());
  return s + "\n";
}

/// The job's adversarial options and the predicted epochs.
llvm::json::Value adversarialJson(const PlanView &v) {
  plan::ParallelOp op = v.op;
  model::JobOp job = v.job;
  auto num = [](FloatAttr a, double d) { return a ? a.getValueAsDouble() : d; };
  const bool dbac = *job.getAdversarial() == "dbac";
  const double start = num(job.getAttackFractionAttr(), dbac ? 0.0 : 1.0);
  Object o{{"technique", job.getAdversarial()->str()},
           {"pgd_steps", job.getPgdStepsAttr() ? i64(job.getPgdStepsAttr())
                                               : model::kDefaultPgdSteps},
           {"attack_fraction", start},
           {"attack_fraction_end",
            dbac ? num(job.getAttackFractionEndAttr(), 1.0) : start},
           {"pseudo_batches",
            job.getPseudoBatchesAttr() ? i64(job.getPseudoBatchesAttr()) : 1},
           {"steps", job.getStepsAttr() ? i64(job.getStepsAttr()) : 1},
           {"epoch_s", f64(op.getAdversarialEpochAttr())},
           {"plain_epoch_s", f64(op.getPlainEpochAttr())},
           {"attack_s", f64(op.getAttackTimeAttr())}};
  if (auto e = job.getEpsilonAttr())
    o["epsilon"] = e.getValueAsDouble();
  if (auto e = job.getStepSizeAttr())
    o["step_size"] = e.getValueAsDouble();
  if (auto peer = op.getPeerTimeAttr()) {
    o["peer"] = job.getPeer()->str();
    o["peer_s"] = f64(peer);
  }
  return o;
}

void writeSummary(const PlanView &v, llvm::raw_ostream &os) {
  plan::ParallelOp op = v.op;
  const int64_t tp = i64(op.getTpAttr()), pp = i64(op.getPpAttr()),
                dp = i64(op.getDpAttr());
  const double time = f64(op.getTimeAttr()), def = f64(op.getDefaultTimeAttr());
  os << "job " << v.job.getSymName() << ": train " << v.job.getModel() << " on "
     << op.getTopology() << " (" << tp * pp * dp << " gpus)\n";
  os << "  ways: tp " << tp << " x pp " << pp << " x dp " << dp
     << ", micro-batch " << i64(op.getMicroBatchAttr()) << " x "
     << i64(op.getMicroBatchesAttr()) << " per pipeline (batch "
     << v.globalBatch << "), " << i64(op.getVirtualStagesAttr())
     << " virtual stage(s), recompute "
     << plan::stringifyRecompute(op.getRecompute())
     << (op.getSequenceParallel() ? ", sequence parallel" : "") << ", ZeRO "
     << i64(op.getZeroAttr())
     << (i64(op.getZeroAttr()) == 1 ? " (distributed optimizer)" : "") << "\n";
  if (auto ep = op.getEpAttr())
    os << "  experts: ep " << i64(ep) << " (each layer's experts sharded over "
       << i64(ep) << " gpu(s) of each data-parallel group); all-to-all "
       << quantity(f64(op.getExpertCommAttr()), Dim::time())
       << " per micro-batch (dispatch and combine, forward and backward)\n";
  if (auto t = op.getOffloadTimeAttr())
    os << "  optimizer offloaded to the hosts' CPUs: "
       << quantity(f64(t), Dim::time()) << " per step (gradients down, "
       << "update, parameters up), "
       << quantity(f64(op.getHostMemoryAttr()), Dim::bytes())
       << " of optimizer states per host\n";
  os << "  iteration: " << quantity(time, Dim::time())
     << " predicted; Megatron-LM's default rank order "
     << quantity(def, Dim::time())
     << llvm::formatv(" (placement {0}: {1:F3}x)",
                      plan::stringifyPlacementMethod(op.getPlacement()),
                      time > 0 ? def / time : 1.0)
     << "\n";
  os << "  slowest stage, one micro-batch: forward "
     << quantity(f64(op.getForwardAttr()), Dim::time()) << ", backward "
     << quantity(f64(op.getBackwardAttr()), Dim::time())
     << "; pipeline p2p per round "
     << quantity(f64(op.getP2pAttr()), Dim::time()) << "; gradient reduction "
     << quantity(f64(op.getDataCommAttr()), Dim::time()) << "\n";
  os << compressionLine(op);
  os << adversarialLine(v);
  os << llvm::formatv("  throughput: {0:F1} TFLOP/s per gpu (MFU {1:F1}%)\n",
                      f64(op.getTflopsAttr()), 100.0 * f64(op.getMfuAttr()));
  os << "  memory per gpu: " << quantity(f64(op.getMemoryAttr()), Dim::bytes())
     << " of " << quantity(f64(op.getMemoryAvailableAttr()), Dim::bytes())
     << " (most loaded stage, calibrated)\n";
  os << "  placement (ranks in Megatron-LM order, tp fastest):\n";
  for (plan::StageOp s : op.getBody().front().getOps<plan::StageOp>()) {
    os << "    stage " << i64(s.getIndexAttr()) << " layers";
    for (int64_t first : s.getLayers())
      os << " " << first << "-" << first + i64(s.getChunkLayersAttr()) - 1;
    os << ": " << gpuList(s.getGpus()) << "\n";
  }
}

/// Optimus-CC's part of the plan: null when nothing is compressed.
llvm::json::Value compressionJson(plan::ParallelOp op) {
  if (!op.getCompressRankAttr())
    return nullptr;
  Array stages;
  if (auto st = op.getCompressedDpStagesAttr())
    for (int64_t s : st.asArrayRef())
      stages.push_back(s);
  auto micro = op.getCompressedMicroBatchesAttr();
  return Object{{"method", "optimus-cc low-rank"},
                {"rank", i64(op.getCompressRankAttr())},
                {"epilogue_micro_batches", micro ? i64(micro) : 0},
                {"data_parallel_stages", std::move(stages)},
                {"iteration_time_s", f64(op.getTimeAttr())},
                {"uncompressed_time_s", f64(op.getUncompressedTimeAttr())}};
}

Object toJson(const PlanView &v) {
  plan::ParallelOp op = v.op;
  Array stages;
  for (plan::StageOp s : op.getBody().front().getOps<plan::StageOp>()) {
    Array gpus, layers;
    for (Attribute a : s.getGpus())
      gpus.push_back(cast<StringAttr>(a).getValue().str());
    for (int64_t first : s.getLayers())
      layers.push_back(first);
    stages.push_back(Object{{"index", i64(s.getIndexAttr())},
                            {"layers", std::move(layers)},
                            {"chunk_layers", i64(s.getChunkLayersAttr())},
                            {"gpus", std::move(gpus)}});
  }
  Object out{
      {"job", v.job.getSymName().str()},
      {"topology", op.getTopology().str()},
      {"tp", i64(op.getTpAttr())},
      {"pp", i64(op.getPpAttr())},
      {"dp", i64(op.getDpAttr())},
      {"ep", op.getEpAttr() ? i64(op.getEpAttr()) : 1},
      {"expert_all_to_all_s",
       op.getExpertCommAttr() ? f64(op.getExpertCommAttr()) : 0.0},
      {"micro_batch", i64(op.getMicroBatchAttr())},
      {"micro_batches", i64(op.getMicroBatchesAttr())},
      {"virtual_stages", i64(op.getVirtualStagesAttr())},
      {"recompute", plan::stringifyRecompute(op.getRecompute()).str()},
      {"sequence_parallel", op.getSequenceParallel()},
      {"zero_stage", i64(op.getZeroAttr())},
      {"placement", plan::stringifyPlacementMethod(op.getPlacement()).str()},
      {"iteration_time_s", f64(op.getTimeAttr())},
      {"default_order_time_s", f64(op.getDefaultTimeAttr())},
      {"forward_s", f64(op.getForwardAttr())},
      {"backward_s", f64(op.getBackwardAttr())},
      {"p2p_round_s", f64(op.getP2pAttr())},
      {"data_comm_s", f64(op.getDataCommAttr())},
      {"tflops_per_gpu", f64(op.getTflopsAttr())},
      {"mfu", f64(op.getMfuAttr())},
      {"memory_per_gpu_bytes", f64(op.getMemoryAttr())},
      {"memory_available_bytes", f64(op.getMemoryAvailableAttr())},
      {"compression", compressionJson(op)},
      {"optimizer_offload",
       op.getOffloadTimeAttr()
           ? llvm::json::Value(
                 Object{{"step_s", f64(op.getOffloadTimeAttr())},
                        {"host_bytes", f64(op.getHostMemoryAttr())}})
           : llvm::json::Value(nullptr)},
      {"stages", std::move(stages)}};
  if (op.getAdversarialEpochAttr() && v.job.getAdversarialAttr())
    out["adversarial"] = adversarialJson(v);
  return out;
}

/// Megatron-LM's arguments for the model and the plan.
std::string megatronArgs(const PlanView &v) {
  plan::ParallelOp op = v.op;
  model::TransformerOp m = v.model;
  std::string a;
  auto arg = [&](llvm::StringRef flag, int64_t value) {
    a += " " + flag.str() + " " + std::to_string(value);
  };
  auto flag = [&](llvm::StringRef f) { a += " " + f.str(); };
  arg("--num-layers", i64(m.getLayersAttr()));
  arg("--hidden-size", i64(m.getHiddenAttr()));
  arg("--ffn-hidden-size", i64(m.getFfnAttr()));
  arg("--num-attention-heads", i64(m.getHeadsAttr()));
  if (i64(m.getKvHeadsAttr()) != i64(m.getHeadsAttr())) {
    flag("--group-query-attention");
    arg("--num-query-groups", i64(m.getKvHeadsAttr()));
  }
  arg("--seq-length", v.seq);
  arg("--max-position-embeddings", v.seq);
  bool gated = false, rms = false, bias = true, tied = true, rotary = false;
  m.walk([&](model::MlpOp mlp) {
    gated = mlp.getGated();
    bias = mlp.getBias();
  });
  m.walk(
      [&](model::NormOp n) { rms = n.getKind() == model::NormKind::RMSNorm; });
  m.walk([&](model::HeadOp h) { tied = h.getTied(); });
  m.walk([&](model::EmbeddingOp e) { rotary = !e.getPositionsAttr(); });
  if (gated)
    flag("--swiglu");
  if (rms)
    flag("--normalization RMSNorm");
  if (!bias)
    flag("--disable-bias-linear");
  if (!tied)
    flag("--untie-embeddings-and-output-weights");
  if (rotary)
    flag("--position-embedding-type rope");
  // A mixture of experts: Megatron-core's MoE layers with the all-to-all
  // token dispatcher the plan costs, compute padded to the capacity.
  m.walk([&](model::MlpOp mlp) {
    if (!mlp.isMixture() || a.find("--num-experts") != std::string::npos)
      return;
    arg("--num-experts", i64(mlp.getExpertsAttr()));
    arg("--moe-router-topk", i64(mlp.getTopKAttr()));
    arg("--expert-model-parallel-size",
        op.getEpAttr() ? i64(op.getEpAttr()) : 1);
    flag("--moe-token-dispatcher-type alltoall");
    a += " --moe-expert-capacity-factor " +
         llvm::formatv("{0}", f64(mlp.getCapacityAttr())).str();
    flag("--moe-pad-expert-input-to-capacity");
  });
  arg("--micro-batch-size", i64(op.getMicroBatchAttr()));
  arg("--global-batch-size", v.globalBatch);
  arg("--tensor-model-parallel-size", i64(op.getTpAttr()));
  arg("--pipeline-model-parallel-size", i64(op.getPpAttr()));
  const int64_t virtualStages = i64(op.getVirtualStagesAttr());
  if (virtualStages > 1)
    arg("--num-layers-per-virtual-pipeline-stage",
        i64(m.getLayersAttr()) / (i64(op.getPpAttr()) * virtualStages));
  if (op.getRecompute() == plan::Recompute::Selective)
    flag("--recompute-granularity selective");
  else if (op.getRecompute() == plan::Recompute::Full)
    flag("--recompute-granularity full --recompute-method uniform "
         "--recompute-num-layers 1");
  if (op.getSequenceParallel())
    flag("--sequence-parallel");
  if (i64(op.getZeroAttr()) == 1)
    flag("--use-distributed-optimizer");
  // Megatron-core's CPU optimizer (with the distributed optimizer).
  if (op.getOffloadTimeAttr() && i64(op.getZeroAttr()) == 1)
    flag("--optimizer-cpu-offload");
  // ZeRO-2/3 are DeepSpeed's: Megatron-DeepSpeed runs them with the JSON of
  // --format=deepspeed.
  if (i64(op.getZeroAttr()) >= 2)
    a += " --deepspeed --deepspeed_config ds_config.json --zero-stage " +
         std::to_string(i64(op.getZeroAttr()));
  flag(isa<Float16Type>(m.getDtype()) ? "--fp16" : "--bf16");
  return a.substr(1);
}

LogicalResult writeMegatron(const PlanView &v,
                            llvm::ArrayRef<parallel::HostGpus> hosts,
                            llvm::raw_ostream &os) {
  // ZeRO 2/3 plans run on Megatron-DeepSpeed, whose mixture-of-experts
  // arguments are not Megatron-LM's (the ones megatronArgs writes).
  if (v.op.getEpAttr() && i64(v.op.getZeroAttr()) >= 2)
    return v.job.emitError()
           << "not supported yet: --format=megatron of the ZeRO stage "
           << i64(v.op.getZeroAttr()) << " plan of mixture of experts '"
           << v.job.getModel()
           << "' (Megatron-DeepSpeed's expert arguments are not Megatron-LM's; "
              "--format=json has the plan)";
  llvm::StringMap<GpuHome> home;
  for (size_t h = 0; h < hosts.size(); ++h)
    for (size_t l = 0; l < hosts[h].gpus.size(); ++l)
      home[hosts[h].gpus[l]] = {h, l};
  const size_t g = hosts.front().gpus.size();
  const size_t nodes = v.rankGpu.size() / g;
  os << "#!/usr/bin/env bash\n"
     << "# Megatron-LM launch of job '" << v.job.getSymName()
     << "', planned by sluicec (model-plan-parallel) on '" << v.op.getTopology()
     << "'.\n"
     << (i64(v.op.getZeroAttr()) >= 2
             ? "# ZeRO stage " + std::to_string(i64(v.op.getZeroAttr())) +
                   " is DeepSpeed's: run Megatron-DeepSpeed with the "
                   "ds_config.json of\n# sluicec --emit=plan "
                   "--format=deepspeed.\n"
             : std::string())
     << (v.op.getCompressRankAttr()
             ? "# The plan assumes Optimus-CC compression (see sluicec "
               "--emit=plan): stock\n# Megatron-LM has no flag for it; "
               "without the Optimus-CC fork expect the\n# uncompressed time.\n"
             : std::string())
     << "# Run this script on every host with MASTER_ADDR set; each host\n"
     << "# starts the node rank the plan gave it, with its GPUs in rank "
        "order.\n"
     << "set -euo pipefail\n"
     << "MEGATRON_ARGS=\"" << megatronArgs(v) << "\"\n"
     << "MASTER_PORT=${MASTER_PORT:-6000}\n"
     << "case \"${SLUICE_HOST:?set SLUICE_HOST to this host as the topology "
        "names it}\" "
        "in\n";
  for (size_t node = 0; node < nodes; ++node) {
    std::string visible;
    std::optional<size_t> host;
    for (size_t l = 0; l < g; ++l) {
      auto it = home.find(v.rankGpu[node * g + l]);
      if (it == home.end())
        return v.op.emitError() << "gpu '" << v.rankGpu[node * g + l]
                                << "' is not a gpu of the flat topology";
      if (host && *host != it->second.host)
        return v.op.emitError()
               << "node rank " << node << " spans hosts '" << hosts[*host].host
               << "' and '" << hosts[it->second.host].host
               << "' (torchrun runs a node rank on one host)";
      host = it->second.host;
      visible += (l ? "," : "") + std::to_string(it->second.local);
    }
    os << "  \"" << hosts[*host].host << "\")\n"
       << "    CUDA_VISIBLE_DEVICES=" << visible << " torchrun --nnodes "
       << nodes << " --nproc_per_node " << g << " --node_rank " << node
       << " --master_addr \"$MASTER_ADDR\" --master_port \"$MASTER_PORT\" "
          "pretrain_gpt.py $MEGATRON_ARGS ;;\n";
  }
  os << "  *) echo \"host $SLUICE_HOST is not in the plan\" >&2; exit 1 ;;\n"
     << "esac\n";
  // The rank map, also what a hostfile lists: rank -> host, local GPU.
  os << "# rank map (global rank: host, CUDA device, gpu):\n";
  for (size_t r = 0; r < v.rankGpu.size(); ++r) {
    const GpuHome &h = home.find(v.rankGpu[r])->second;
    os << "#   " << r << ": " << hosts[h.host].host << " cuda:" << h.local
       << " " << v.rankGpu[r] << "\n";
  }
  return success();
}

llvm::Expected<llvm::json::Value> deepSpeed(const PlanView &v) {
  plan::ParallelOp op = v.op;
  const int64_t micro = i64(op.getMicroBatchAttr());
  const int64_t steps = i64(op.getMicroBatchesAttr());
  const int64_t dp = i64(op.getDpAttr());
  Object cfg{
      // DeepSpeed checks train_batch_size = micro x steps x (world / (tp pp)).
      {"train_batch_size", micro * steps * dp},
      {"train_micro_batch_size_per_gpu", micro},
      {"gradient_accumulation_steps", steps},
      {"zero_optimization", Object{{"stage", i64(op.getZeroAttr())}}}};
  const bool offloaded = static_cast<bool>(op.getOffloadTimeAttr());
  if (offloaded)
    (*cfg.getObject("zero_optimization"))["offload_optimizer"] =
        Object{{"device", "cpu"}, {"pin_memory", true}};
  if (op.getRecompute() == plan::Recompute::Full)
    cfg["activation_checkpointing"] =
        Object{{"partition_activations", op.getSequenceParallel()},
               {"contiguous_memory_optimization", false}};
  // Precision from the model's dtype; the job's optimizer, lr and steps.
  model::TrainingSettings s;
  Type t = v.model.getDtype();
  s.precision = isa<BFloat16Type>(t)   ? model::Precision::Bf16
                : isa<Float32Type>(t) ? model::Precision::Fp32
                                      : model::Precision::Fp16;
  if (v.job.getOptimizer())
    if (auto o = model::parseOptimizer(v.job.getOptimizer()->str()))
      s.optimizer = *o;
  if (auto lr = v.job.getLrAttr())
    s.lr = lr.getValueAsDouble();
  if (auto n = v.job.getStepsAttr())
    s.steps = n.getInt();
  if (llvm::Error e =
          model::addDeepSpeedTraining(cfg, s, /*statesOffGpu=*/offloaded))
    return std::move(e);
  return llvm::json::Value(std::move(cfg));
}

} // namespace

LogicalResult target::writeParallelPlans(
    ModuleOp module, llvm::ArrayRef<parallel::HostGpus> hosts,
    llvm::StringRef jobName, ParallelFormat format, llvm::raw_ostream &os) {
  SmallVector<plan::ParallelOp> plans;
  for (plan::ParallelOp op : module.getOps<plan::ParallelOp>())
    if (jobName.empty() || op.getJob() == jobName)
      plans.push_back(op);
  if (plans.empty())
    return emitError(module.getLoc())
           << "no parallel plan"
           << (jobName.empty() ? std::string()
                               : " for job '" + jobName.str() + "'");
  if ((format == ParallelFormat::Megatron ||
       format == ParallelFormat::DeepSpeed) &&
      plans.size() != 1)
    return emitError(module.getLoc())
           << "--format="
           << (format == ParallelFormat::Megatron ? "megatron" : "deepspeed")
           << " writes one job; choose one with --job=NAME";
  if (hosts.empty())
    return emitError(module.getLoc()) << "the flat topology has no gpu";
  if (format == ParallelFormat::Trace)
    return writeParallelTrace(plans, os);
  Object all;
  for (plan::ParallelOp op : plans) {
    FailureOr<PlanView> v = view(op);
    if (failed(v))
      return failure();
    switch (format) {
    case ParallelFormat::Summary:
      writeSummary(*v, os);
      break;
    case ParallelFormat::Json:
      all[v->job.getSymName()] = toJson(*v);
      break;
    case ParallelFormat::Megatron:
      if (failed(writeMegatron(*v, hosts, os)))
        return failure();
      break;
    case ParallelFormat::DeepSpeed:
    {
      auto ds = deepSpeed(*v);
      if (!ds)
        return v->job.emitError() << llvm::toString(ds.takeError());
      os << llvm::formatv("{0:2}", *ds) << "\n";
    }
      break;
    case ParallelFormat::Trace:
      break; // written above
    }
  }
  if (format == ParallelFormat::Json)
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(all))) << "\n";
  return success();
}
