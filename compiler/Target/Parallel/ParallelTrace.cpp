//===- ParallelTrace.cpp - One training iteration as a Perfetto trace -----===//
//
// See ParallelTrace.h. Times: the plan's forward and backward of one
// micro-batch on a stage (the slowest, which the model uses for every
// stage), its p2p of one round (forward + backward) split into two equal
// transfers, its gradient reduction, and the optimizer step (the
// iteration minus Pipette's pipeline and the reduction).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Parallel/ParallelTrace.h"

#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "compiler/Analysis/Parallel/PipelineSchedule.h"
#include "compiler/Analysis/TraceEvents.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace mlir;
using namespace sluice;
using namespace sluice::target;
using parallel::PipelineEvent;

namespace {

/// Up to this many GPUs, every GPU gets its lanes.
constexpr int64_t kAllGpuLanes = 64;

int64_t i64(IntegerAttr a) { return a.getInt(); }
double f64(FloatAttr a) { return a.getValueAsDouble(); }

std::string eventName(const PipelineEvent &e, bool chunks) {
  using Kind = PipelineEvent::Kind;
  std::string chunk = chunks ? " c" + std::to_string(e.chunk) : "";
  switch (e.kind) {
  case Kind::Forward:
    return "F " + std::to_string(e.microBatch) + chunk;
  case Kind::Backward:
    return "B " + std::to_string(e.microBatch) + chunk;
  case Kind::SendAct:
    return "act " + std::to_string(e.microBatch) + chunk + " -> next stage";
  case Kind::SendGrad:
    return "grad " + std::to_string(e.microBatch) + chunk +
           " -> previous stage";
  case Kind::AllReduce:
  case Kind::Optimizer:
    return parallel::pipelineEventName(e.kind);
  }
  return "?";
}

const char *category(PipelineEvent::Kind k) {
  using Kind = PipelineEvent::Kind;
  switch (k) {
  case Kind::Forward:
  case Kind::Backward:
  case Kind::Optimizer:
    return "compute";
  case Kind::SendAct:
  case Kind::SendGrad:
    return "p2p";
  case Kind::AllReduce:
    return "allreduce";
  }
  return "?";
}

/// The lanes of a GPU: tid 4k + lane of the k-th shown GPU.
constexpr int64_t kLanes = 4;
const char *const kLaneSuffix[kLanes] = {"", " send ->", " send <-",
                                         " all-reduce"};
int64_t laneOf(PipelineEvent::Kind k) {
  using Kind = PipelineEvent::Kind;
  switch (k) {
  case Kind::SendAct:
    return 1;
  case Kind::SendGrad:
    return 2;
  case Kind::AllReduce:
    return 3;
  default:
    return 0;
  }
}

} // namespace

LogicalResult target::writeParallelTrace(ArrayRef<plan::ParallelOp> plans,
                                         llvm::raw_ostream &os) {
  // Simulate first: an error leaves no half-written trace.
  std::vector<parallel::PipelineSchedule> schedules(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    plan::ParallelOp op = plans[i];
    parallel::PipelineTimes t;
    t.virtualStages = i64(op.getVirtualStagesAttr());
    t.stages = i64(op.getPpAttr());
    t.microBatches = i64(op.getMicroBatchesAttr());
    t.forward = f64(op.getForwardAttr());
    t.backward = f64(op.getBackwardAttr());
    const double p2p = f64(op.getP2pAttr());
    t.transfer = p2p / 2;
    t.allReduce = f64(op.getDataCommAttr());
    double pipeline = parallel::pipetteCriticalPath(
        t.stages, t.microBatches, t.virtualStages, t.forward, t.backward, p2p);
    // Optimus-CC's epilogue: the last N micro-batches' gradient sends are
    // compressed (the plan's compressed_p2p); the plan's time counts them so.
    if (auto n = op.getCompressedMicroBatchesAttr();
        n && op.getCompressedP2pAttr()) {
      t.compressedFrom = t.microBatches - n.getInt();
      t.compressedTransfer = f64(op.getCompressedP2pAttr());
      pipeline = parallel::epilogueCriticalPath(
          t.stages, t.microBatches, t.virtualStages, t.forward, t.backward,
          p2p, t.transfer, t.compressedTransfer);
    }
    t.optimizer =
        std::max(0.0, f64(op.getTimeAttr()) - pipeline - t.allReduce);
    std::string why;
    if (!parallel::simulate1F1B(t, schedules[i], why))
      return op.emitError("cannot trace job '") << op.getJob() << "': " << why;
  }

  llvm::json::OStream j(os, 1);
  j.object([&] {
    j.attribute("displayTimeUnit", "ms");
    j.attributeArray("traceEvents", [&] {
      for (size_t i = 0; i < plans.size(); ++i) {
        plan::ParallelOp op = plans[i];
        const parallel::PipelineSchedule &sched = schedules[i];
        const int64_t pid = static_cast<int64_t>(i) + 1;
        const int64_t tp = i64(op.getTpAttr()), dp = i64(op.getDpAttr()),
                      pp = i64(op.getPpAttr());
        const int64_t replicas = tp * pp * dp <= kAllGpuLanes ? dp : 1;
        const bool chunks = i64(op.getVirtualStagesAttr()) > 1;
        analysis::traceMetadata(
            j, "process_name", pid, -1,
            llvm::formatv("job {0}: one iteration on {1} (1F1B simulated "
                          "{2:F4} s; model {3:F4} s){4}",
                          op.getJob(), op.getTopology(), sched.makespan,
                          f64(op.getTimeAttr()),
                          replicas < dp
                              ? " - data-parallel replica 0 of " +
                                    std::to_string(dp) +
                                    "; the others run the same timeline"
                              : std::string())
                .str());
        // The GPUs of each stage, in Megatron-LM rank order.
        std::vector<std::vector<std::string>> stageGpus(pp);
        for (plan::StageOp s : op.getBody().front().getOps<plan::StageOp>()) {
          int64_t index = i64(s.getIndexAttr());
          if (index < 0 || index >= pp)
            continue;
          for (Attribute a : s.getGpus())
            stageGpus[index].push_back(cast<StringAttr>(a).getValue().str());
        }
        // The shown GPUs of each stage in rank order (tp fastest, then
        // dp), each with kLanes lanes.
        std::vector<std::vector<int64_t>> lanesOfStage(pp);
        int64_t k = 0;
        for (int64_t s = 0; s < pp; ++s)
          for (int64_t d = 0; d < replicas; ++d)
            for (int64_t t = 0; t < tp; ++t, ++k) {
              const size_t local = static_cast<size_t>(d * tp + t);
              std::string gpu = local < stageGpus[s].size()
                                    ? stageGpus[s][local]
                                    : "gpu ?";
              std::string lane = llvm::formatv("stage {0} tp {1} dp {2}: {3}",
                                               s, t, d, gpu)
                                     .str();
              for (int64_t l = 0; l < kLanes; ++l)
                analysis::traceMetadata(j, "thread_name", pid, kLanes * k + l,
                                        lane + kLaneSuffix[l]);
              lanesOfStage[s].push_back(k);
            }
        for (const PipelineEvent &e : sched.events) {
          if (e.end <= e.start)
            continue; // e.g. no gradient reduction without data parallelism
          for (int64_t lane : lanesOfStage[e.stage])
            j.object([&] {
              j.attribute("name", eventName(e, chunks));
              j.attribute("cat", category(e.kind));
              j.attribute("ph", "X");
              j.attribute("pid", pid);
              j.attribute("tid", kLanes * lane + laneOf(e.kind));
              j.attribute("ts", e.start * 1e6);
              j.attribute("dur", (e.end - e.start) * 1e6);
              j.attributeObject("args", [&] {
                j.attribute("stage", e.stage);
                if (e.microBatch >= 0)
                  j.attribute("micro_batch", e.microBatch);
                if (chunks && e.microBatch >= 0)
                  j.attribute("chunk", e.chunk);
              });
            });
        }
      }
    });
  });
  os << "\n";
  return success();
}
