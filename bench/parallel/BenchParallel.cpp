//===- BenchParallel.cpp - The 3D-parallel planner: time and validation ---===//
//
// Two tables:
//  - `--table=validation`: the published runs of
//    shared/reference/planning-models.md (Megatron-LM SC'21: GPT 1T on 3072
//    A100, TP 8 PP 64; Korthikanti et al.: GPT 530B on 2240 A100, TP 8
//    PP 35, selective and full recomputation), on DGX A100 servers (8 GPUs
//    on 300 GB/s NVLink, 8 x 200 Gb/s HDR per server: 25 GB/s per GPU).
//    For each: the model's prediction for the published configuration, and
//    the configuration the search chooses with its prediction.
//  - `--table=time`: planning time (median of --repeat runs,
//    std::chrono::steady_clock around planParallel) for 8, 64, 512 and 3072
//    GPUs of DGX A100 servers, uniform links and with one slow host pair
//    (the placement search runs).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelSearch.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <vector>

using namespace sluice;
using namespace sluice::parallel;
namespace cl = llvm::cl;

static cl::OptionCategory benchCat("sluice-bench-parallel options");
static cl::opt<int> repeat("repeat", cl::cat(benchCat),
                           cl::desc("Runs per case (median)"), cl::init(5));
enum class Table { Validation, Time };
static cl::opt<Table>
    table("table", cl::cat(benchCat), cl::desc("Which table"),
          cl::init(Table::Validation),
          cl::values(clEnumValN(Table::Validation, "validation",
                                "predictions against published runs"),
                     clEnumValN(Table::Time, "time", "planning time")));

static constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

static ParallelCluster dgxA100(int64_t servers) {
  ParallelCluster c = ParallelCluster::uniform(servers, 8, 80 * GiB, 312e12,
                                               2039e9, 300e9, 25e9);
  c.name = std::to_string(servers) + " x DGX A100";
  return c;
}

static TrainJob gpt(int64_t layers, int64_t hidden, int64_t heads,
                    int64_t batch) {
  TrainJob j;
  j.model = model::TransformerConfig::gpt(layers, hidden, heads, 2048, 51200);
  j.globalBatch = batch;
  return j;
}

static void validation() {
  struct Row {
    const char *name;
    TrainJob job;
    int64_t servers;
    ParallelConfig published;
    const char *reported;
    double reportedValue; // per-GPU fraction of peak
    bool hardware;        // reported figure counts recomputation (HFU)
  };
  auto config = [](int64_t t, int64_t p, int64_t d, model::Recompute r,
                   bool sp) {
    ParallelConfig c;
    c.tp = t;
    c.pp = p;
    c.dp = d;
    c.microBatch = 1;
    c.recompute = r;
    c.sequenceParallel = sp;
    return c;
  };
  std::vector<Row> rows = {
      {"Megatron-LM 1T (L128 h25600 a160), gbs 3072",
       gpt(128, 25600, 160, 3072), 384,
       config(8, 64, 6, model::Recompute::Full, false),
       "502 PFLOP/s, 52% of peak", 0.52, true},
      {"Korthikanti 530B (L105 h20480 a128), selective+SP",
       gpt(105, 20480, 128, 2240), 280,
       config(8, 35, 8, model::Recompute::Selective, true), "MFU 54.2%", 0.542,
       false},
      {"Korthikanti 530B, full recompute", gpt(105, 20480, 128, 2240), 280,
       config(8, 35, 8, model::Recompute::Full, false), "MFU 42.1%", 0.421,
       false},
  };
  llvm::outs() << "| run | published config | reported | predicted for the "
                  "published config | error | search's choice | predicted |\n"
                  "|---|---|---|---|---|---|---|\n";
  for (Row &r : rows) {
    ParallelCluster cl = dgxA100(r.servers);
    r.job.microBatch = 1;
    Estimate e =
        evaluate(r.job, cl, r.published, Placement::identity(cl.gpus()));
    const double predicted = r.hardware ? e.time.hfu : e.time.mfu;
    SearchOptions opts;
    opts.searchPlacement = false;
    TrainJob free = r.job;
    free.microBatch = 0;
    auto plan = planParallel(free, cl, opts);
    std::string choice = "error", choicePred = "-";
    if (plan && plan->feasible) {
      choice = plan->config.str();
      choicePred = llvm::formatv("{0:F1}% {1}",
                                 100.0 * (r.hardware ? plan->estimate.time.hfu
                                                     : plan->estimate.time.mfu),
                                 r.hardware ? "HFU" : "MFU");
    } else if (plan) {
      choice = "infeasible: " + plan->infeasibleReason;
    } else {
      llvm::consumeError(plan.takeError());
    }
    std::string pred =
        e.rejected == Constraint::None
            ? llvm::formatv("{0:F1}% {1} ({2:F0} TFLOP/s/GPU, {3:F1} s)",
                            100.0 * predicted, r.hardware ? "HFU" : "MFU",
                            predicted * 312.0, e.time.iteration)
                  .str()
            : "rejected: " + e.reason;
    llvm::outs() << "| " << r.name << " | " << r.published.str() << " | "
                 << r.reported << " | " << pred << " | "
                 << llvm::format("%+.1f%%",
                                 100.0 * (predicted / r.reportedValue - 1))
                 << " | " << choice << " | " << choicePred << " |\n";
  }
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static void timing() {
  struct Case {
    int64_t servers;
    TrainJob job;
  };
  std::vector<Case> cases = {{1, gpt(24, 2048, 16, 64)},
                             {8, gpt(40, 5120, 40, 512)},
                             {64, gpt(96, 12288, 96, 1536)},
                             {384, gpt(128, 25600, 160, 3072)}};
  llvm::outs()
      << "| GPUs | model | links | configurations | costed | "
         "placement (placements costed) | gain over Megatron's order | "
         "planning time (median of "
      << repeat << ") | choice |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Case &c : cases)
    for (bool uneven : {false, true}) {
      ParallelCluster cl = dgxA100(c.servers);
      if (uneven && c.servers > 1) {
        // The pair (0, 1) of hosts at a quarter of the rest.
        for (int64_t a = 0; a < 8; ++a)
          for (int64_t b = 8; b < 16; ++b) {
            cl.link(a, b).bandwidth = 6.25e9f;
            cl.link(b, a).bandwidth = 6.25e9f;
          }
      } else if (uneven) {
        cl.link(0, 1).bandwidth = 100e9f; // one slow NVLink pair
        cl.link(1, 0).bandwidth = 100e9f;
      }
      std::vector<double> times;
      std::optional<ParallelPlan> last;
      for (int i = 0; i < repeat; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        auto plan = planParallel(c.job, cl);
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                .count());
        if (!plan) {
          llvm::errs() << llvm::toString(plan.takeError()) << "\n";
          return;
        }
        last = std::move(*plan);
      }
      llvm::outs() << "| " << cl.gpus() << " | L" << c.job.model.layers << " h"
                   << c.job.model.hidden << " | "
                   << (uneven ? "one slow pair" : "uniform") << " | "
                   << last->configurations << " | " << last->evaluated << " | "
                   << placementMethodName(last->placement.method) << " ("
                   << last->placement.evaluated << ") | "
                   << llvm::formatv("{0:F3}x", last->placement.gain()) << " | "
                   << llvm::formatv("{0:F3} s", median(times)) << " | "
                   << (last->feasible ? last->config.str()
                                      : "infeasible: " + last->infeasibleReason)
                   << " |\n";
    }
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(benchCat);
  cl::ParseCommandLineOptions(argc, argv, "3D-parallel planner benchmark\n");
  if (table == Table::Validation)
    validation();
  else
    timing();
  return 0;
}
