//===- BenchWalkCodegen.cpp - JIT-compiled vs hand-written walk kernels ---===//
//
// sluice-bench-walk-codegen [--graph FILE] [--threads N] [--repeat R]
//
// For node2vec (second order, has_edge), deepwalk (weight w) and ppr2
// (degree, has_edge) on one shared graph: the walk written in .sluice and
// compiled by sluicec's pipeline (walk-bounds, walk-to-llvm, ORC JIT at
// -O3) and walk-rt's hand-written C++ reference kernel, run by the same
// engine with the same options (80 vertices per walk, one walk per
// vertex, no output, the same seed and sampler). Reports the best walking
// rate (steps/s) of each over --repeat runs and the ratio compiled /
// reference. Not a test; results go to bench/RESULTS.md.
//
//===----------------------------------------------------------------------===//
#include "bench/walks/ReferenceKernels.h"
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Walk/GraphLoadOptions.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "dialects/Common/ToolVersion.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace sluice;

namespace {

struct Workload {
  walkref::Workload ref;
  const char *name;
  const char *walk; // the .sluice walk, graph `g`
  const char *sampler;
};

const Workload kWorkloads[] = {
    {walkref::Workload::DeepWalk, "deepwalk",
     "walk deepwalk on g {\n  length 80\n  weight(cur, next, w) = w\n}\n",
     "alias"},
    {walkref::Workload::Node2Vec, "node2vec",
     "walk node2vec(p: f64 = 2.0, q: f64 = 0.5) on g {\n  length 80\n"
     "  weight(prev, cur, next, w) =\n    if next == prev then w / p\n"
     "    else if has_edge(prev, next) then w\n    else w / q\n}\n",
     "reservoir"},
    {walkref::Workload::Node2Vec, "node2vec",
     "walk node2vec(p: f64 = 2.0, q: f64 = 0.5) on g {\n  length 80\n"
     "  weight(prev, cur, next, w) =\n    if next == prev then w / p\n"
     "    else if has_edge(prev, next) then w\n    else w / q\n}\n",
     "rejection"},
    {walkref::Workload::PPR2, "ppr2",
     "walk ppr2(alpha: f64 = 0.2) on g {\n  length 80\n"
     "  weight(prev, cur, next, w) =\n"
     "    if next != prev and has_edge(prev, next)\n"
     "    then (1.0 - alpha) / degree(cur) + alpha / degree(prev)\n"
     "    else (1.0 - alpha) / degree(cur)\n}\n",
     "reservoir"},
};

sluice_walk_sampler_t samplerOf(const std::string &s) {
  return s == "alias"       ? SLUICE_WALK_SAMPLER_ALIAS
         : s == "rejection" ? SLUICE_WALK_SAMPLER_REJECTION
                            : SLUICE_WALK_SAMPLER_RESERVOIR;
}

} // namespace

int main(int argc, char **argv) {
  std::string graphPath =
      std::string(SLUICE_SHARED_DATA_DIR) + "/facebook_combined.txt.gz";
  unsigned threads = 2, repeat = 3;
  auto usage = [&](FILE *to) {
    std::fprintf(to, "usage: %s [--graph FILE] [--threads N] [--repeat R]\n",
                 argv[0]);
  };
  // A count in [1, 1024]; anything else is a usage error, not an exception.
  auto count = [](const char *text, unsigned &out) {
    unsigned long long v = 0;
    if (llvm::StringRef(text).getAsInteger(10, v) || v < 1 || v > 1024)
      return false;
    out = static_cast<unsigned>(v);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      usage(stdout);
      return 0;
    }
    if (flag == "--version") {
      std::fputs(sluice::sluiceVersionText("sluice-bench-walk-codegen").c_str(),
                 stdout);
      return 0;
    }
    bool ok = i + 1 < argc;
    if (ok && flag == "--graph")
      graphPath = argv[i + 1];
    else if (ok && flag == "--threads")
      ok = count(argv[i + 1], threads);
    else if (ok && flag == "--repeat")
      ok = count(argv[i + 1], repeat);
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "%s: error: bad option '%s'%s%s\n", argv[0],
                   flag.c_str(), i + 1 < argc ? " " : "",
                   i + 1 < argc ? argv[i + 1] : "");
      usage(stderr);
      return 2;
    }
    ++i;
  }
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("sluice-bench-cg", dir))
    return 1;

  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = SLUICE_GRAPH_FORMAT_SNAP;
  // The graph `load(file, format: snap, undirected)` gives the walks.
  load.flags =
      target::runtimeLoadFlags(walk::GraphFormat::Snap, true,
                               walk::Duplicates::Merge, walk::SelfLoops::Drop) |
      SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *graph = nullptr;
  sluice_error_t error;
  if (sluice_graph_load(graphPath.c_str(), &load, &graph, &error)) {
    std::fprintf(stderr, "cannot load %s: %s\n", graphPath.c_str(),
                 error.message);
    return 1;
  }
  std::printf("graph %s: %llu vertices, %llu edges; %u threads, best of %u\n",
              llvm::sys::path::filename(graphPath).str().c_str(),
              (unsigned long long)sluice_graph_num_vertices(graph),
              (unsigned long long)sluice_graph_num_edges(graph), threads,
              repeat);
  std::printf("%-10s %-10s %14s %14s %8s\n", "workload", "sampler",
              "compiled st/s", "reference st/s", "ratio");

  for (const Workload &w : kWorkloads) {
    // The compiled kernel, through the whole pipeline.
    std::string source = "graph g = load(\"" + graphPath +
                         "\", format: snap, undirected)\n" + w.walk +
                         "schedule " + w.name + " { sampler: " + w.sampler +
                         " }\njob j = walk " + w.name +
                         " on g { seed: 5, threads: " +
                         std::to_string(threads) + " }\n";
    std::string file = (dir + "/" + w.name + ".sluice").str();
    std::ofstream(file) << source;
    double compiled = 0;
    for (unsigned r = 0; r < repeat; ++r) {
      mlir::DialectRegistry registry;
      registerSluiceDialects(registry);
      mlir::MLIRContext ctx(registry);
      ctx.loadAllAvailableDialects();
      llvm::SourceMgr sourceMgr;
      mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
      Compilation c(ctx, sourceMgr);
      if (mlir::failed(c.parse(file)) || mlir::failed(c.check()) ||
          mlir::failed(c.lower()))
        return 1;
      target::WalkRunOptions options;
      options.quiet = true;
      auto report = target::runWalkJob(c.module(), options);
      if (mlir::failed(report))
        return 1;
      compiled = std::max(compiled, report->steps / report->seconds);
    }
    // The reference kernel, same options.
    walkref::Params params(w.ref);
    sluice_walk_options_t options;
    sluice_walk_options_init(&options);
    options.max_length = 80;
    options.seed = 5;
    options.threads = threads;
    options.sampler = samplerOf(w.sampler);
    options.quiet = 1;
    double reference = 0;
    for (unsigned r = 0; r < repeat; ++r) {
      sluice_walk_stats_t stats;
      if (sluice_walk_run(graph, walkref::kernel(w.ref), params.data(),
                          &options, nullptr, &stats, &error)) {
        std::fprintf(stderr, "%s: %s\n", w.name, error.message);
        return 1;
      }
      reference = std::max(reference, stats.steps / stats.seconds);
    }
    std::printf("%-10s %-10s %14.4g %14.4g %8.3f\n", w.name, w.sampler,
                compiled, reference, compiled / reference);
  }
  sluice_graph_release(graph);
  llvm::sys::fs::remove_directories(dir);
  return 0;
}
