//===- BenchFlowExec.cpp - Executed flow schedules: achieved vs predicted -===//
//
// sluice-bench-flow-exec: solves communication schedules with SluiceFlow on
// two single-server machines, writes them as JSON, reads them back with the
// sluice-flow-exec loader and runs them on libsluicert's flow executor
// (sluice/flow.h), reporting achieved over predicted makespan:
//  - DGX node (after examples/machines/dgx-a100.sluice): 8 GPUs on 6
//    NVSwitches, 2 CPUs, 4 PCIe switches, 8 NICs, 8 NVMe drives;
//    workloads: GPU all-to-all (multi-commodity LP, and the direct-path
//    baseline), and a gather into GPU 0 from every other GPU, NVMe drive and
//    CPU (max flow);
//  - PCIe-switch server (Moment's single-machine setting): 2 CPUs, 4 PCIe
//    switches with 2 GPUs and 2 NVMe drives each, no NVLink; workloads: GPU
//    all-to-all (LP) and a GNN feature load into every GPU from every NVMe
//    drive and both CPUs' memory (LP).
// Each (machine, workload, solver, size) runs `--repeat` times; the median,
// min and max ratio are reported. Output: a markdown table, or JSON with
// --json. Not a test (not registered with ctest). Results: bench/RESULTS.md.
//
//===----------------------------------------------------------------------===//

#include "bench/flows/BenchLinks.h"
#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/TopoGraph.h"
#include "compiler/tools/sluice-flow-exec/ScheduleLoader.h"
#include "dialects/Common/ToolVersion.h"

#include "sluice/flow.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace sluice;
using sluice::analysis::TopoGraph;

namespace {

using namespace sluice::bench;


struct Machine {
  std::string name;
  TopoGraph graph;
  std::vector<unsigned> gpus, nvmes, cpus;
};

void link(TopoGraph &g, unsigned a, unsigned b, double bw) {
  g.addLink(a, b, bw, 0, true, analysis::TopoArc::kNoLink, "link");
}

std::string nm(const char *kind, unsigned i) {
  return std::string(kind) + "[" + std::to_string(i) + "]";
}

/// DGX-A100-like (the node of sluice-bench-flows).
Machine dgx() {
  Machine m;
  m.name = "DGX node";
  TopoGraph &g = m.graph;
  std::vector<unsigned> nvs, pcie, nic;
  for (unsigned i = 0; i < 8; ++i)
    m.gpus.push_back(g.addDevice(nm("gpu", i), "gpu"));
  for (unsigned i = 0; i < 6; ++i)
    nvs.push_back(g.addDevice(nm("nvswitch", i), "switch"));
  for (unsigned i = 0; i < 2; ++i)
    m.cpus.push_back(g.addDevice(nm("cpu", i), "cpu"));
  for (unsigned i = 0; i < 4; ++i)
    pcie.push_back(g.addDevice(nm("pcie", i), "switch"));
  for (unsigned i = 0; i < 8; ++i)
    nic.push_back(g.addDevice(nm("nic", i), "nic"));
  for (unsigned i = 0; i < 8; ++i)
    m.nvmes.push_back(g.addDevice(nm("ssd", i), "nvme"));
  for (unsigned gi : m.gpus)
    for (unsigned s : nvs)
      link(g, gi, s, kNvlink);
  link(g, m.cpus[0], m.cpus[1], kXgmi);
  for (unsigned k = 0; k < 4; ++k) {
    link(g, m.cpus[k / 2], pcie[k], kPcie16);
    for (unsigned j = 2 * k; j < 2 * k + 2; ++j) {
      link(g, pcie[k], m.gpus[j], kPcie16);
      link(g, pcie[k], nic[j], kPcie16);
      link(g, pcie[k], m.nvmes[j], kPcie4);
    }
  }
  return m;
}

/// A PCIe-switch server: 2 CPUs (xGMI), 2 PCIe switches per CPU (x16
/// uplink), 2 GPUs (x16) and 2 NVMe drives (x4) per switch; no NVLink, so
/// GPU peer traffic crosses the switches and, between switches, the CPUs.
Machine pcieServer() {
  Machine m;
  m.name = "PCIe server";
  TopoGraph &g = m.graph;
  std::vector<unsigned> sw;
  for (unsigned i = 0; i < 8; ++i)
    m.gpus.push_back(g.addDevice(nm("gpu", i), "gpu"));
  for (unsigned i = 0; i < 2; ++i)
    m.cpus.push_back(g.addDevice(nm("cpu", i), "cpu"));
  for (unsigned i = 0; i < 4; ++i)
    sw.push_back(g.addDevice(nm("pcie", i), "switch"));
  for (unsigned i = 0; i < 8; ++i)
    m.nvmes.push_back(g.addDevice(nm("ssd", i), "nvme"));
  link(g, m.cpus[0], m.cpus[1], kXgmi);
  for (unsigned k = 0; k < 4; ++k) {
    link(g, m.cpus[k / 2], sw[k], kPcie16);
    for (unsigned j = 2 * k; j < 2 * k + 2; ++j) {
      link(g, sw[k], m.gpus[j], kPcie16);
      link(g, sw[k], m.nvmes[j], kPcie4);
    }
  }
  return m;
}

struct Row {
  std::string machine, workload, solver;
  double bytesPerDemand = 0;
  unsigned demands = 0, transfers = 0;
  uint64_t executedBytes = 0, chunks = 0;
  double byteScale = 1, timeScale = 1;
  double predicted = 0;             // schedule s (unscaled)
  std::vector<double> ratios;       // achieved / predicted per run
  double wall = 0;                  // median wall s
  bool verified = true;
  std::string error;
};

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Config {
  std::vector<double> sizesMB = {0.25, 1, 4};
  unsigned repeat = 3;
  double wallSeconds = 1;
  unsigned chunksPerPath = 50;
  double maxExecBytes = 1e9;
  sluice_flow_backend_t backend = SLUICE_FLOW_BACKEND_HOST;
  /// If set, every schedule's JSON is written to <dump>-<row>.json (for
  /// sluice-flow-exec).
  std::string dump;
};

Row execute(const Config &cfg, const Machine &m, const flow::FlowNetwork &net,
            const std::string &workload, const std::string &solver,
            const std::vector<flow::Demand> &demands, double bytesPerDemand,
            const std::function<llvm::Expected<flow::FlowSchedule>()> &solve) {
  Row row;
  row.machine = m.name;
  row.workload = workload;
  row.solver = solver;
  row.bytesPerDemand = bytesPerDemand;
  row.demands = static_cast<unsigned>(demands.size());
  std::fprintf(stderr, "[bench-flow-exec] %s / %s / %s / %.0f MB ...\n",
               m.name.c_str(), workload.c_str(), solver.c_str(),
               bytesPerDemand / 1e6);
  auto s = solve();
  if (!s) {
    row.error = llvm::toString(s.takeError());
    return row;
  }
  double total = 0;
  for (const flow::Demand &d : demands)
    total += d.bytes;
  row.byteScale = std::min(1.0, cfg.maxExecBytes / total);
  row.predicted = s->makespan;
  std::string json = flow::scheduleToJSON(net, *s, {}, 0);
  if (!cfg.dump.empty()) {
    static unsigned counter = 0;
    std::string path = cfg.dump + "-" + std::to_string(counter++) + ".json";
    if (FILE *f = std::fopen(path.c_str(), "w")) {
      std::fwrite(json.data(), 1, json.size(), f);
      std::fclose(f);
      std::fprintf(stderr, "[bench-flow-exec]   wrote %s\n", path.c_str());
    }
  }
  flowexec::LoadOptions lo;
  lo.byteScale = row.byteScale;
  lo.chunksPerPath = cfg.chunksPerPath;
  auto loaded = flowexec::loadSchedule(json, workload, lo);
  if (!loaded) {
    row.error = llvm::toString(loaded.takeError());
    return row;
  }
  sluice_flow_schedule_t sched = loaded->view();
  row.transfers = sched.num_transfers;
  row.timeScale = cfg.wallSeconds / (s->makespan * row.byteScale);
  std::vector<double> walls;
  for (unsigned k = 0; k < cfg.repeat; ++k) {
    sluice_flow_options_t o;
    sluice_flow_options_init(&o);
    o.time_scale = row.timeScale;
    o.backend = cfg.backend;
    o.max_memory_bytes = static_cast<uint64_t>(4 * cfg.maxExecBytes) + (1 << 20);
    sluice_flow_report_t *r = nullptr;
    sluice_error_t e;
    sluice_status_t st = sluice_flow_execute(&sched, &o, &r, &e);
    if (st != SLUICE_STATUS_OK && st != SLUICE_STATUS_DATA_CORRUPT) {
      row.error = e.message;
      return row;
    }
    row.verified = row.verified && r->verified;
    row.executedBytes = r->bytes;
    row.chunks = r->chunks;
    row.ratios.push_back(r->achieved_makespan / r->predicted_makespan);
    walls.push_back(r->wall_seconds);
    sluice_flow_report_free(r);
  }
  row.wall = median(walls);
  return row;
}

std::vector<double> parseList(const char *s) {
  std::vector<double> out;
  char *end = nullptr;
  for (const char *p = s; *p;) {
    out.push_back(std::strtod(p, &end));
    if (end == p)
      break;
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Config cfg;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      if (a.compare(0, n, flag) == 0 && a.size() > n && a[n] == '=')
        return argv[i] + n + 1;
      return nullptr;
    };
    if (const char *v = value("--sizes-mb"))
      cfg.sizesMB = parseList(v);
    else if (const char *v = value("--repeat"))
      cfg.repeat = std::max(1, std::atoi(v));
    else if (const char *v = value("--wall-seconds"))
      cfg.wallSeconds = std::atof(v);
    else if (const char *v = value("--chunks-per-path"))
      cfg.chunksPerPath = std::max(1, std::atoi(v));
    else if (const char *v = value("--max-exec-bytes"))
      cfg.maxExecBytes = std::atof(v);
    else if (const char *v = value("--backend"))
      cfg.backend = std::strcmp(v, "cuda") == 0 ? SLUICE_FLOW_BACKEND_CUDA
                                                 : SLUICE_FLOW_BACKEND_HOST;
    else if (const char *v = value("--dump"))
      cfg.dump = v;
    else if (a == "--version") {
      std::fputs(sluice::sluiceVersionText("sluice-bench-flow-exec").c_str(),
                 stdout);
      return 0;
    } else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--sizes-mb=0.25,1,4] [--repeat=K] "
                   "[--wall-seconds=S] [--chunks-per-path=N] "
                   "[--max-exec-bytes=B] [--backend=host|cuda] "
                   "[--dump=PREFIX] [--json]\n",
                   argv[0]);
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }

  std::vector<Row> rows;
  for (Machine m : {dgx(), pcieServer()}) {
    flow::FlowNetwork net = flow::buildNetwork(m.graph);
    for (double mb : cfg.sizesMB) {
      double bytes = mb * 1e6;
      std::vector<flow::Demand> a2a =
          flow::allPairsDemands(m.gpus, m.gpus, bytes);
      rows.push_back(execute(cfg, m, net, "GPU all-to-all", "LP", a2a, bytes,
                             [&] { return flow::solveMultiCommodity(net, a2a); }));
      if (m.name == "DGX node") {
        rows.push_back(execute(cfg, m, net, "GPU all-to-all", "direct paths",
                               a2a, bytes, [&] {
                                 return flow::solveDirectPaths(net, a2a);
                               }));
        std::vector<flow::Demand> gather;
        for (unsigned v : m.gpus)
          if (v != m.gpus[0])
            gather.push_back({v, m.gpus[0], bytes});
        for (unsigned v : m.nvmes)
          gather.push_back({v, m.gpus[0], bytes});
        for (unsigned v : m.cpus)
          gather.push_back({v, m.gpus[0], bytes});
        rows.push_back(execute(cfg, m, net, "gather into GPU 0", "max flow",
                               gather, bytes, [&] {
                                 return flow::solveSingleCommodity(net, gather);
                               }));
      } else {
        // GNN feature load: every GPU reads `bytes` from each NVMe drive
        // and each CPU's memory.
        std::vector<unsigned> sources = m.nvmes;
        sources.insert(sources.end(), m.cpus.begin(), m.cpus.end());
        std::vector<flow::Demand> load =
            flow::allPairsDemands(sources, m.gpus, bytes);
        rows.push_back(execute(cfg, m, net, "feature load (NVMe+CPU -> GPUs)",
                               "LP", load, bytes, [&] {
                                 return flow::solveMultiCommodity(net, load);
                               }));
      }
    }
  }

  if (json) {
    std::printf("{\"repeat\": %u, \"wall_seconds\": %g, \"chunks_per_path\": "
                "%u, \"rows\": [\n",
                cfg.repeat, cfg.wallSeconds, cfg.chunksPerPath);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      std::printf("  {\"machine\": \"%s\", \"workload\": \"%s\", \"solver\": "
                  "\"%s\", \"mb_per_demand\": %g, \"demands\": %u, "
                  "\"transfers\": %u, \"executed_bytes\": %llu, \"chunks\": "
                  "%llu, \"predicted_s\": %.9g, \"ratio_median\": %.6g, "
                  "\"ratio_min\": %.6g, \"ratio_max\": %.6g, \"wall_s\": %.4g, "
                  "\"verified\": %s, \"error\": \"%s\"}%s\n",
                  r.machine.c_str(), r.workload.c_str(), r.solver.c_str(),
                  r.bytesPerDemand / 1e6, r.demands, r.transfers,
                  static_cast<unsigned long long>(r.executedBytes),
                  static_cast<unsigned long long>(r.chunks), r.predicted,
                  median(r.ratios),
                  r.ratios.empty() ? 0 : *std::min_element(r.ratios.begin(), r.ratios.end()),
                  r.ratios.empty() ? 0 : *std::max_element(r.ratios.begin(), r.ratios.end()),
                  r.wall, r.verified ? "true" : "false", r.error.c_str(),
                  i + 1 < rows.size() ? "," : "");
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("Backend %s; %u runs per row (median, [min, max]); each run "
              "stretched to ~%g s of wall time; %u chunks per path; at most "
              "%.0f MB executed per schedule (byte scale below 1 beyond).\n\n",
              cfg.backend == SLUICE_FLOW_BACKEND_CUDA ? "cuda" : "host",
              cfg.repeat, cfg.wallSeconds, cfg.chunksPerPath,
              cfg.maxExecBytes / 1e6);
  std::printf("| machine | workload | solver | MB / demand | demands | "
              "transfers | executed MB | chunks | predicted (ms) | achieved / "
              "predicted | checks |\n");
  std::printf("|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (const Row &r : rows) {
    if (!r.error.empty()) {
      std::printf("| %s | %s | %s | %g | %u | | | | | error: %s | |\n",
                  r.machine.c_str(), r.workload.c_str(), r.solver.c_str(),
                  r.bytesPerDemand / 1e6, r.demands, r.error.c_str());
      continue;
    }
    std::printf("| %s | %s | %s | %g | %u | %u | %.1f | %llu | %.3f | %.3f "
                "[%.3f, %.3f] | %s |\n",
                r.machine.c_str(), r.workload.c_str(), r.solver.c_str(),
                r.bytesPerDemand / 1e6, r.demands, r.transfers,
                r.executedBytes / 1e6,
                static_cast<unsigned long long>(r.chunks), r.predicted * 1e3,
                median(r.ratios),
                *std::min_element(r.ratios.begin(), r.ratios.end()),
                *std::max_element(r.ratios.begin(), r.ratios.end()),
                r.verified ? "passed" : "FAILED");
  }
  return 0;
}
