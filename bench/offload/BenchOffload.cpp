//===- BenchOffload.cpp - Planning time of the offload planners ----------===//
//
// Times planFinetune (the full candidate search with one overlap-model
// schedule per feasible candidate) and planInference (one LP per GPU batch
// size and number of GPU batches) on the validation jobs. Baselines: for
// fine-tuning, the search restricted to the chosen homes (10 candidates:
// buffers x swap counts); for inference, a brute-force grid over the nine
// fractions in steps of 1/4 for the same (GPU batch, number of batches)
// pairs, with its best throughput next to the LP's. Reports the median of
// --repeat runs with std::chrono::steady_clock around the planner call.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/ToolVersion.h"
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

using namespace sluice;
using namespace sluice::offload;
namespace cl = llvm::cl;

static cl::OptionCategory benchCat("sluice-bench-offload options");
static cl::opt<int> repeat("repeat", cl::cat(benchCat), cl::desc("Runs per case (median)"),
                           cl::init(11));

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static double timeIt(const std::function<void()> &f) {
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0)
                    .count());
  }
  return median(t);
}

int main(int argc, char **argv) {
  sluice::installVersionPrinter("sluice-bench-offload");
  cl::HideUnrelatedOptions(benchCat);
  cl::ParseCommandLineOptions(argc, argv, "offload planner benchmark\n");
  if (repeat < 1) {
    llvm::errs() << "sluice-bench-offload: error: --repeat must be >= 1\n";
    return 1;
  }
  llvm::outs() << "| job | machine | result | candidates | plan time "
                  "(median) | homes fixed | ratio |\n"
                  "|---|---|---|---|---|---|---|\n";
  const Machine ratel = Machine::rtx4090With12Nvme();
  for (auto [name, batch] : {std::pair<const char *, int64_t>{"gpt3-13b", 8},
                             {"gpt3-13b", 32},
                             {"gpt3-175b", 8},
                             {"gpt3-175b", 16},
                             {"gpt3-175b", 32}}) {
    FinetuneJob job{*modelPreset(name), batch, 0};
    FinetunePlan plan;
    double full = timeIt([&] {
      auto p = planFinetune(job, ratel);
      if (!p) {
        llvm::errs() << llvm::toString(p.takeError()) << "\n";
        std::exit(1);
      }
      plan = *p;
    });
    double one = 0;
    std::string result = plan.feasible
                             ? (llvm::formatv("{0:f1} TFLOPS", plan.tflops()))
                                   .str()
                             : std::string("infeasible");
    if (plan.feasible) {
      FinetuneOptions o;
      o.paramHome = plan.paramHome;
      o.optimizerHome = plan.optimizerHome;
      one = timeIt([&] { llvm::cantFail(planFinetune(job, ratel, o)); });
    }
    llvm::outs() << "| finetune " << name << " bs " << batch << " | "
                 << ratel.name << " | " << result << " | "
                 << plan.candidates.size() << " | "
                 << llvm::format("%.2f ms", full * 1e3) << " | "
                 << (plan.feasible ? llvm::formatv("{0:f2} ms", one * 1e3).str()
                                   : std::string("-"))
                 << " | "
                 << (plan.feasible ? llvm::formatv("{0:f1}x", full / one).str()
                                   : std::string("-"))
                 << " |\n";
  }
  llvm::outs() << "\n| job | machine | LP result | LPs | plan time "
                  "(median) | grid (1/4) result | grid time | ratio |\n"
                  "|---|---|---|---|---|---|---|---|\n";
  const Machine t4 = Machine::t4FlexGen();
  for (const char *name : {"opt-30b", "opt-175b"}) {
    InferenceJob job{*modelPreset(name), 512, 32};
    InferencePlan plan;
    double full = timeIt([&] { plan = llvm::cantFail(planInference(job, t4)); });
    std::vector<Split> splits;
    for (int g = 0; g <= 4; ++g)
      for (int c = 0; c + g <= 4; ++c)
        splits.push_back({g / 4.0, c / 4.0, (4 - g - c) / 4.0});
    double gridBest = 0;
    auto grid = [&] {
      gridBest = 0;
      for (int64_t gbs = 1; gbs <= 1024; gbs *= 2)
        for (int64_t n = 1; n <= 64; ++n)
          for (const Split &w : splits)
            for (const Split &k : splits)
              for (const Split &a : splits) {
                InferencePolicy q;
                q.gpuBatch = gbs;
                q.numGpuBatches = n;
                q.weights = w;
                q.cache = k;
                q.activations = a;
                InferencePlan r =
                    llvm::cantFail(evaluateInferencePolicy(job, t4, q));
                if (r.feasible)
                  gridBest = std::max(gridBest, r.tokensPerSecond);
              }
    };
    int saved = repeat;
    repeat = 1; // the grid is slow; one run
    double gridTime = timeIt(grid);
    repeat = saved;
    llvm::outs() << "| infer " << name << " | " << t4.name << " | "
                 << llvm::format("%.3f tokens/s", plan.tokensPerSecond)
                 << " | " << plan.lpsSolved << " | "
                 << llvm::format("%.2f ms", full * 1e3) << " | "
                 << llvm::format("%.3f tokens/s", gridBest) << " | "
                 << llvm::format("%.2f s", gridTime) << " | "
                 << llvm::format("%.0fx", gridTime / full) << " |\n";
  }
  return 0;
}
