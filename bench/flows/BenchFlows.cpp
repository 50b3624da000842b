//===- BenchFlows.cpp - Flow-solver benchmark -----------------------------===//
//
// sluice-bench-flows: builds DGX-like nodes and rail-optimised fat-tree
// clusters as TopoGraphs, and times the flow solvers (docs/flows.md) on
//  (a) a gather into one GPU from every other GPU, NVMe drive and CPU
//      socket: solveSingleCommodity vs solveDirectPaths vs solveMomentGreedy;
//  (b) a ring shift (GPU j -> the same GPU of the next server; j -> j+1 on a
//      single node) and, on small sizes, an all-to-all between GPUs:
//      solveMultiCommodity vs solveDirectPaths.
// Every (case, solver) runs `--repeat` times in a forked child that is
// killed after `--cap-seconds`; the median wall time (steady_clock) is
// reported. Output: a markdown table on stdout, or JSON with --json.
// Not a test: it is not registered with ctest. Results: bench/RESULTS.md.
//
//===----------------------------------------------------------------------===//

#include "bench/flows/BenchLinks.h"
#include "compiler/Analysis/Flow/Collectives.h"
#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/Flow/IntegralPlacement.h"
#include "compiler/Analysis/Flow/PathLP.h"
#include "compiler/Analysis/Flow/SlotPlacement.h"
#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Common/ToolVersion.h"
#include "llvm/Support/Error.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

constexpr double kHdr = 25 * GB;      // 200 Gb/s InfiniBand HDR
constexpr unsigned kGpusPerServer = 8;
constexpr unsigned kServersPerPod = 16;
constexpr unsigned kSpines = 8;

struct Machine {
  TopoGraph graph;
  std::vector<unsigned> gpus, nvmes, cpus;
  unsigned servers = 0;
};

/// One DGX-A100-like server (38 devices, after examples/machines/
/// dgx-a100.sluice): 8 GPUs, 6 NVSwitches, 2 CPUs, 4 PCIe switches, 8
/// compute NICs, 8 NVMe drives. Returns the NIC indices.
std::vector<unsigned> addServer(Machine &m, const std::string &prefix) {
  TopoGraph &g = m.graph;
  auto name = [&](const char *kind, unsigned i) {
    return prefix + kind + "[" + std::to_string(i) + "]";
  };
  std::vector<unsigned> gpu, nvs, cpu, pcie, nic, ssd;
  for (unsigned i = 0; i < 8; ++i)
    gpu.push_back(g.addDevice(name("gpu", i), "gpu"));
  for (unsigned i = 0; i < 6; ++i)
    nvs.push_back(g.addDevice(name("nvswitch", i), "switch"));
  for (unsigned i = 0; i < 2; ++i)
    cpu.push_back(g.addDevice(name("cpu", i), "cpu"));
  for (unsigned i = 0; i < 4; ++i)
    pcie.push_back(g.addDevice(name("pcie", i), "switch"));
  for (unsigned i = 0; i < 8; ++i)
    nic.push_back(g.addDevice(name("nic", i), "nic"));
  for (unsigned i = 0; i < 8; ++i)
    ssd.push_back(g.addDevice(name("ssd", i), "nvme"));
  for (unsigned gi : gpu)
    for (unsigned s : nvs)
      g.addLink(gi, s, kNvlink, 0, true, analysis::TopoArc::kNoLink, "nvlink3");
  g.addLink(cpu[0], cpu[1], kXgmi, 0, true, analysis::TopoArc::kNoLink, "xgmi2");
  for (unsigned s = 0; s < 2; ++s)
    for (unsigned k = 2 * s; k < 2 * s + 2; ++k)
      g.addLink(cpu[s], pcie[k], kPcie16, 0, true, analysis::TopoArc::kNoLink,
                "pcie4x16");
  for (unsigned k = 0; k < 4; ++k)
    for (unsigned j = 2 * k; j < 2 * k + 2; ++j) {
      g.addLink(pcie[k], gpu[j], kPcie16, 0, true, analysis::TopoArc::kNoLink,
                "pcie4x16");
      g.addLink(pcie[k], nic[j], kPcie16, 0, true, analysis::TopoArc::kNoLink,
                "pcie4x16");
      g.addLink(pcie[k], ssd[j], kPcie4, 0, true, analysis::TopoArc::kNoLink,
                "pcie4x4");
    }
  m.gpus.insert(m.gpus.end(), gpu.begin(), gpu.end());
  m.nvmes.insert(m.nvmes.end(), ssd.begin(), ssd.end());
  m.cpus.insert(m.cpus.end(), cpu.begin(), cpu.end());
  return nic;
}

/// `gpus` / 8 servers. One server: a lone DGX. More: rail-optimised
/// two-level fat tree; NIC r of each server goes to the rail-r leaf of its
/// pod (16 servers per pod), every leaf goes to each of 8 spines with a
/// bundle of (servers in pod / 8) HDR cables (non-blocking).
Machine buildMachine(unsigned gpus) {
  Machine m;
  m.servers = std::max(1u, gpus / kGpusPerServer);
  if (m.servers == 1) {
    addServer(m, "");
    return m;
  }
  std::vector<std::vector<unsigned>> nics;
  for (unsigned s = 0; s < m.servers; ++s)
    nics.push_back(addServer(m, "server[" + std::to_string(s) + "]."));
  unsigned pods = (m.servers + kServersPerPod - 1) / kServersPerPod;
  unsigned perPod = std::min(m.servers, kServersPerPod);
  TopoGraph &g = m.graph;
  std::vector<unsigned> spine;
  for (unsigned i = 0; i < kSpines; ++i)
    spine.push_back(g.addDevice("spine[" + std::to_string(i) + "]", "switch"));
  for (unsigned p = 0; p < pods; ++p)
    for (unsigned r = 0; r < kGpusPerServer; ++r) {
      unsigned leaf = g.addDevice("leaf[" + std::to_string(p) + "][" +
                                      std::to_string(r) + "]",
                                  "switch");
      for (unsigned s = p * kServersPerPod;
           s < std::min(m.servers, (p + 1) * kServersPerPod); ++s)
        g.addLink(nics[s][r], leaf, kHdr, 130e-9, true, analysis::TopoArc::kNoLink,
                  "ib-hdr");
      double up = std::max(1.0, double(perPod) / kSpines) * kHdr;
      for (unsigned sp : spine)
        g.addLink(leaf, sp, up, 130e-9, true, analysis::TopoArc::kNoLink, "ib-hdr");
    }
  return m;
}

//===----------------------------------------------------------------------===//
// Timing in a forked child, killed at the cap
//===----------------------------------------------------------------------===//

struct Result {
  int status = 0; // 0 ok, 1 over cap, 2 solver error, 3 crashed, 4 not run
  double medianMs = 0;
  double makespan = 0;
  unsigned maxFlows = 0, commodities = 0, lpRows = 0, lpColumns = 0;
  unsigned events = 0;
  /// Median CPU time of the runs (the forked child's process CPU clock), ms:
  /// the machine is shared, so wall time overstates the work.
  double cpuMedianMs = 0;
  /// The solver's certified lower bound on the optimum (0: none).
  double lowerBound = 0;
  /// Runs completed (the median is over these); fewer than asked when the
  /// cap stopped the repetitions.
  unsigned runs = 0;
  char error[240] = {0};
};

using SolveFn = std::function<llvm::Expected<flow::FlowSchedule>()>;

/// Runs `fn` up to `repeat` times; after each run, `report` gets the result
/// so far (median over the runs done).
Result runRepeated(const SolveFn &fn, unsigned repeat,
                   const std::function<void(const Result &)> &report) {
  Result r;
  std::vector<double> ms, cpu;
  auto cpuMs = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  };
  for (unsigned i = 0; i < repeat; ++i) {
    double c0 = cpuMs();
    auto t0 = std::chrono::steady_clock::now();
    auto s = fn();
    auto t1 = std::chrono::steady_clock::now();
    cpu.push_back(cpuMs() - c0);
    if (!s) {
      r.status = 2;
      std::string e = llvm::toString(s.takeError());
      std::snprintf(r.error, sizeof(r.error), "%s", e.c_str());
      report(r);
      return r;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    r.makespan = s->makespan;
    r.maxFlows = s->stats.maxFlows;
    r.commodities = s->stats.commodities;
    r.lpRows = s->stats.lpRows;
    r.lpColumns = s->stats.lpColumns;
    r.events = s->stats.events;
    r.lowerBound = s->lowerBound ? *s->lowerBound : 0;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    r.medianMs = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    r.runs = static_cast<unsigned>(n);
    std::vector<double> sc = cpu;
    std::sort(sc.begin(), sc.end());
    r.cpuMedianMs = n % 2 ? sc[n / 2] : (sc[n / 2 - 1] + sc[n / 2]) / 2;
    report(r);
  }
  return r;
}

Result runCapped(const SolveFn &fn, unsigned repeat, double capSeconds) {
  int fds[2];
  if (pipe(fds) != 0)
    return runRepeated(fn, repeat, [](const Result &) {});
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return runRepeated(fn, repeat, [](const Result &) {});
  }
  if (pid == 0) {
    close(fds[0]);
    runRepeated(fn, repeat, [&](const Result &r) {
      const char *p = reinterpret_cast<const char *>(&r);
      size_t left = sizeof(r);
      while (left > 0) {
        ssize_t n = write(fds[1], p, left);
        if (n <= 0)
          break;
        p += n;
        left -= static_cast<size_t>(n);
      }
    });
    _exit(0);
  }
  close(fds[1]);
  // Keep the latest complete record; stop at the cap or when the child is
  // done (end of file).
  Result last, cur;
  bool have = false;
  size_t got = 0;
  char *p = reinterpret_cast<char *>(&cur);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(capSeconds);
  bool timedOut = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (pr <= 0)
      continue;
    ssize_t n = read(fds[0], p + got, sizeof(cur) - got);
    if (n <= 0)
      break;
    got += static_cast<size_t>(n);
    if (got == sizeof(cur)) {
      last = cur;
      have = true;
      got = 0;
    }
  }
  close(fds[0]);
  if (timedOut)
    kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  if (have && (last.status != 0 || last.runs > 0))
    return last;
  Result f;
  f.status = timedOut ? 1 : 3;
  if (!timedOut)
    std::snprintf(f.error, sizeof(f.error), "child exited without a result");
  return f;
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

struct Row {
  unsigned gpus = 0, devices = 0, arcs = 0;
  std::string workload, solver;
  unsigned demands = 0;
  Result result;
  std::string ratioTo; // solver whose makespan the ratio divides
  double ratio = 0;    // this makespan / reference makespan (0: none)
};

std::vector<unsigned> parseList(const char *s) {
  std::vector<unsigned> out;
  std::string cur;
  for (const char *c = s;; ++c) {
    if (*c == ',' || *c == 0) {
      if (!cur.empty())
        out.push_back(static_cast<unsigned>(std::strtoul(cur.c_str(), nullptr, 10)));
      cur.clear();
      if (*c == 0)
        break;
    } else {
      cur += *c;
    }
  }
  return out;
}

std::string fmtResult(const Result &r, double cap, unsigned repeatAsked,
                      bool lp) {
  char buf[128];
  switch (r.status) {
  case 0:
    std::snprintf(buf, sizeof(buf), "%.3f", r.medianMs);
    if (r.runs < repeatAsked)
      return std::string(buf) + " (" + std::to_string(r.runs) + " run" +
             (r.runs == 1 ? "" : "s") + ", cap)";
    return buf;
  case 1:
    std::snprintf(buf, sizeof(buf), "skipped: %s over %.0f s cap",
                  lp ? "LP" : "run", cap);
    return buf;
  case 4:
    return "not run (--solvers)";
  default:
    return std::string("error: ") + r.error;
  }
}

std::string work(const Row &row) {
  const Result &r = row.result;
  if (r.status != 0)
    return "";
  char buf[128];
  if (r.lpRows && row.solver.find("path LP") != std::string::npos)
    std::snprintf(buf, sizeof(buf),
                  "path LP %u x %u, %u pairs, gap to bound %.2f%%, CPU %.1f ms",
                  r.lpRows, r.lpColumns, r.commodities,
                  r.makespan > 0 ? 100 * (r.makespan - r.lowerBound) / r.makespan
                                 : 0.0,
                  r.cpuMedianMs);
  else if (r.lpRows)
    std::snprintf(buf, sizeof(buf), "LP %u x %u, %u commodities, CPU %.1f ms",
                  r.lpRows, r.lpColumns, r.commodities, r.cpuMedianMs);
  else if (r.maxFlows)
    std::snprintf(buf, sizeof(buf), "%u max flows", r.maxFlows);
  else
    std::snprintf(buf, sizeof(buf), "%u events", r.events);
  return buf;
}

void jsonString(const std::string &s) {
  std::putchar('"');
  for (char c : s) {
    if (c == '"' || c == '\\')
      std::putchar('\\');
    std::putchar(c);
  }
  std::putchar('"');
}


//===----------------------------------------------------------------------===//
// Collectives, placement, slot recommendation (one timed run each)
//===----------------------------------------------------------------------===//

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

void benchCollectives(const std::vector<unsigned> &sizes, double bytes) {
  std::printf("\n### Collectives (all-reduce of %.0f MB over all GPUs)\n\n",
              bytes / 1e6);
  std::printf("| GPUs | algorithm | plan time (ms) | alpha-beta (ms) | routed "
              "flows (ms) | schedule bound (ms) | endpoint bound (ms) | "
              "detail |\n|-----:|-----------|------:|------:|------:|------:|"
              "------:|------|\n");
  for (unsigned gpus : sizes) {
    Machine m = buildMachine(gpus);
    flow::FlowNetwork net = flow::buildNetwork(m.graph);
    // Reducers: the fabric switches of a cluster (SHARP-capable leaves and
    // spines); on one node, the NVSwitches (hypothetical for A100).
    std::vector<unsigned> reducers;
    for (unsigned v = 0; v < net.numNodes(); ++v) {
      llvm::StringRef name = net.nodes[v];
      if (m.servers > 1 ? (name.starts_with("leaf") || name.starts_with("spine"))
                        : name.starts_with("nvswitch"))
        reducers.push_back(v);
    }
    auto t0 = std::chrono::steady_clock::now();
    auto plans = flow::planCollectives(net, m.gpus, flow::CollectiveKind::AllReduce,
                                       bytes, reducers);
    double ms = msSince(t0);
    if (!plans) {
      std::printf("| %u | error: %s |\n", gpus,
                  llvm::toString(plans.takeError()).c_str());
      continue;
    }
    for (const flow::CollectivePlan &p : *plans) {
      // Time each algorithm alone for the plan-time column.
      auto t1 = std::chrono::steady_clock::now();
      llvm::Expected<flow::CollectivePlan> again =
          p.algorithm == flow::CollectiveAlgorithm::Ring
              ? flow::planRingCollective(net, m.gpus, p.kind, bytes)
          : p.algorithm == flow::CollectiveAlgorithm::DoubleBinaryTree
              ? flow::planTreeCollective(net, m.gpus, p.kind, bytes)
          : p.algorithm == flow::CollectiveAlgorithm::InNetwork
              ? flow::planInNetworkCollective(net, m.gpus, p.kind, bytes,
                                              reducers)
              : flow::planHierarchicalAllReduce(
                    net, flow::subgroupsByPrefix(net, m.gpus), bytes,
                    p.reducers.empty() ? std::vector<unsigned>{} : reducers);
      double pms = msSince(t1);
      if (!again)
        llvm::consumeError(again.takeError());
      std::string detail;
      if (p.algorithm == flow::CollectiveAlgorithm::Hierarchical)
        detail = p.reducers.empty()
                     ? std::string("rings inside servers, rings across")
                     : "rings inside servers, " +
                           std::to_string(p.reducers.size()) +
                           " reducer(s) across";
      else if (p.algorithm == flow::CollectiveAlgorithm::InNetwork)
        detail = std::to_string(p.reducers.size()) + " reducer(s), first " +
                 net.nodes[p.reducers.front()];
      else
        detail = std::to_string(p.rings.size()) +
                 (p.algorithm == flow::CollectiveAlgorithm::Ring ? " ring(s)"
                                                                 : " tree(s)");
      std::printf("| %u | %s | %.1f | %.3f | %.3f | %.3f | %.3f | %s |\n", gpus,
                  flow::collectiveAlgorithmName(p.algorithm).str().c_str(), pms,
                  p.alphaBetaTime * 1e3, p.flowTime * 1e3,
                  p.scheduleBound * 1e3, p.endpointBound * 1e3, detail.c_str());
    }
    std::fprintf(stderr, "[bench-flows] collectives at %u GPUs: %.1f ms\n",
                 gpus, ms);
  }
}

void benchPlacement() {
  // One DGX-like node: 8 GPUs read feature classes stored on the GPUs
  // (80 GB total), the CPUs' memory or the NVMe drives.
  Machine m = buildMachine(8);
  flow::FlowNetwork net = flow::buildNetwork(m.graph);
  std::printf("\n### Whole-item placement (one node, 8 GPUs)\n\n| classes | "
              "items | method | time (ms) | makespan (s) |\n|------:|------:|"
              "--------|------:|------:|\n");
  for (unsigned numC : {4u, 8u, 16u}) {
    flow::PlacementProblem p;
    p.destinations = m.gpus;
    double total = 0;
    for (unsigned c = 0; c < numC; ++c) {
      flow::PlacementClass cl;
      cl.bytesPerItem = (1 + c % 3) * 1e9;
      cl.itemCount = 2 + c % 4;
      for (unsigned d = 0; d < 8; ++d)
        cl.accesses.push_back(double((c * 7 + d * 3) % 5 + 1));
      total += cl.bytesPerItem * cl.itemCount;
      p.classes.push_back(cl);
    }
    p.tiers = {{"gpu", m.gpus, 0.25 * total},
               {"cpu", m.cpus, 0.25 * total},
               {"nvme", m.nvmes, total}};
    unsigned items = 0;
    for (const auto &c : p.classes)
      items += unsigned(c.itemCount);
    auto row = [&](const char *name, auto fn) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = fn();
      double ms = msSince(t0);
      if (!r) {
        std::printf("| %u | %u | %s | error: %s | |\n", numC, items, name,
                    llvm::toString(r.takeError()).c_str());
        return;
      }
      std::printf("| %u | %u | %s | %.1f | %.4f |\n", numC, items, name, ms,
                  r->makespan);
    };
    row("whole-item greedy (Moment-style)",
        [&] { return flow::placeGreedyWhole(net, p); });
    row("whole-item MIP (glp_intopt)", [&] {
      flow::IntegralPlacementOptions o;
      o.timeLimitSeconds = 20;
      return flow::placeIntegral(net, p, o);
    });
    row("fractional joint LP (bound)",
        [&] { return flow::placeForMakespan(net, p); });
  }
}

void benchSlots() {
  std::printf("\n### Slot recommendation (pcie-switch-server layout)\n\n| "
              "switches | devices | search | evaluated | time (ms) | current "
              "(s) | recommended (s) |\n|------:|------:|------|------:|------:"
              "|------:|------:|\n");
  for (unsigned switches : {2u, 4u}) {
    for (unsigned perKind : {2u, 4u}) {
      flow::SlotProblem p;
      flow::FlowNetwork &f = p.fabric;
      unsigned s0 = f.addNode("socket[0]"), s1 = f.addNode("socket[1]");
      f.addArc(s0, s1, 67.2 * GB);
      f.addArc(s1, s0, 67.2 * GB);
      for (unsigned k = 0; k < switches; ++k) {
        unsigned sw = f.addNode("pcie[" + std::to_string(k) + "]");
        f.addArc(k % 2 ? s1 : s0, sw, kPcie16);
        f.addArc(sw, k % 2 ? s1 : s0, kPcie16);
        for (unsigned j = 0; j < 2; ++j)
          p.slots.push_back({"x16", sw, kPcie16, {}});
        for (unsigned j = 0; j < 2; ++j)
          p.slots.push_back({"x4", sw, kPcie4, {"nvme"}});
      }
      for (unsigned i = 0; i < perKind; ++i)
        p.devices.push_back({"gpu[" + std::to_string(i) + "]", "gpu", 0});
      for (unsigned i = 0; i < perKind; ++i)
        p.devices.push_back({"ssd[" + std::to_string(i) + "]", "nvme", 7e9});
      p.traffic.push_back({"nvme", std::nullopt, "gpu", 0.5e9});
      p.traffic.push_back({"", s0, "gpu", 6e9});
      // Current: packed from switch 0 on (GPUs in x16, SSDs in x4 slots).
      for (unsigned i = 0; i < perKind; ++i)
        p.current.push_back(4 * (i / 2) + i % 2);
      for (unsigned i = 0; i < perKind; ++i)
        p.current.push_back(4 * (i / 2) + 2 + i % 2);
      if (p.current.back() >= p.slots.size())
        continue;
      auto t0 = std::chrono::steady_clock::now();
      auto r = flow::recommendSlots(p);
      double ms = msSince(t0);
      if (!r) {
        std::printf("| %u | %u | error: %s |\n", switches, 2 * perKind,
                    llvm::toString(r.takeError()).c_str());
        continue;
      }
      std::printf("| %u | %u | %s | %u | %.1f | %.4f | %.4f |\n", switches,
                  2 * perKind, r->exhaustive ? "exhaustive" : "local",
                  r->evaluated, ms, r->current->makespan, r->best.makespan);
    }
  }
}
} // namespace

int main(int argc, char **argv) {
  std::vector<unsigned> sizes = {8, 16, 32, 64, 128, 256, 512, 1024, 4096};
  unsigned repeat = 5;
  double cap = 20;
  bool json = false;
  double bytes = 64e6; // per source (gather) or per pair (ring, all-to-all)
  unsigned allToAllMax = 16;
  std::string solverFilter; // run only solvers whose name contains this
  std::vector<unsigned> collectiveSizes = {8, 16, 128};
  bool extras = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      if (a.compare(0, n, flag) == 0 && a.size() > n && a[n] == '=')
        return argv[i] + n + 1;
      if (a == flag && i + 1 < argc)
        return argv[++i];
      return nullptr;
    };
    if (const char *v = value("--sizes"))
      sizes = parseList(v);
    else if (const char *v = value("--repeat"))
      repeat = std::max(1u, static_cast<unsigned>(std::atoi(v)));
    else if (const char *v = value("--cap-seconds"))
      cap = std::atof(v);
    else if (const char *v = value("--all-to-all-max"))
      allToAllMax = static_cast<unsigned>(std::atoi(v));
    else if (const char *v = value("--collective-sizes"))
      collectiveSizes = parseList(v);
    else if (a == "--no-extras")
      extras = false;
    else if (const char *v = value("--solvers"))
      solverFilter = v;
    else if (a == "--version") {
      std::fputs(sluice::sluiceVersionText("sluice-bench-flows").c_str(),
                 stdout);
      return 0;
    } else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--sizes=8,16,...(GPUs)] [--repeat=K] "
                   "[--cap-seconds=S] [--all-to-all-max=GPUS] [--solvers=SUBSTRING] "
                   "[--collective-sizes=8,16,...] [--no-extras] [--json]\n",
                   argv[0]);
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }

  std::vector<Row> rows;
  // Once a solver (per workload kind) hits the cap, larger sizes skip it
  // without running: its time only grows with the size.
  std::vector<std::string> overCap;
  std::sort(sizes.begin(), sizes.end());
  for (unsigned gpus : sizes) {
    Machine m = buildMachine(gpus);
    flow::FlowNetwork net = flow::buildNetwork(m.graph);
    unsigned G = static_cast<unsigned>(m.gpus.size());
    auto add = [&](const std::string &workload, const std::string &solver,
                   unsigned demands, const SolveFn &fn) {
      Row row;
      row.gpus = G;
      row.devices = net.numNodes();
      row.arcs = net.numArcs();
      row.workload = workload;
      row.solver = solver;
      row.demands = demands;
      std::fprintf(stderr, "[bench-flows] %u GPUs (%u devices): %s / %s ...\n",
                   G, row.devices, workload.c_str(), solver.c_str());
      std::string key = workload.substr(0, 4) + "/" + solver;
      if (!solverFilter.empty() &&
          solver.find(solverFilter) == std::string::npos) {
        row.result.status = 4;
      } else if (std::find(overCap.begin(), overCap.end(), key) != overCap.end()) {
        row.result.status = 1;
        std::fprintf(stderr, "[bench-flows]   skipped (over cap at a smaller size)\n");
      } else {
        row.result = runCapped(fn, repeat, cap);
        if (row.result.status == 1)
          overCap.push_back(key);
      }
      rows.push_back(row);
      return rows.size() - 1;
    };

    // (a) Gather into GPU 0 from every other GPU, every NVMe and every CPU.
    unsigned sink = m.gpus[0];
    std::vector<flow::Demand> gather;
    for (unsigned v : m.gpus)
      if (v != sink)
        gather.push_back({v, sink, bytes});
    for (unsigned v : m.nvmes)
      gather.push_back({v, sink, bytes});
    for (unsigned v : m.cpus)
      gather.push_back({v, sink, bytes});
    std::vector<unsigned> otherGpus(m.gpus.begin() + 1, m.gpus.end());
    flow::MomentProblem moment = flow::makeMomentProblem(
        gather, {{"nvme", m.nvmes}, {"cpu", m.cpus}, {"gpu", otherGpus}});
    unsigned nG = static_cast<unsigned>(gather.size());
    size_t opt = add("gather", "max flow (optimal)", nG,
                     [&] { return flow::solveSingleCommodity(net, gather); });
    size_t dir = add("gather", "direct paths", nG,
                     [&] { return flow::solveDirectPaths(net, gather); });
    size_t mom = add("gather", "Moment greedy", nG, [&] {
      return flow::solveMomentGreedy(net, moment);
    });
    for (size_t i : {dir, mom}) {
      rows[i].ratioTo = "max flow";
      if (rows[i].result.status == 0 && rows[opt].result.status == 0)
        rows[i].ratio = rows[opt].result.makespan / rows[i].result.makespan;
    }

    // (b) Ring shift, and all-to-all on small sizes.
    std::vector<std::pair<std::string, std::vector<flow::Demand>>> multi;
    {
      std::vector<flow::Demand> ring;
      unsigned shift = m.servers > 1 ? kGpusPerServer : 1;
      for (unsigned j = 0; j < G; ++j)
        ring.push_back({m.gpus[j], m.gpus[(j + shift) % G], bytes});
      multi.push_back({m.servers > 1 ? "ring shift (next server)"
                                     : "ring shift (next GPU)",
                       ring});
      if (G <= allToAllMax)
        multi.push_back(
            {"all-to-all", flow::allPairsDemands(m.gpus, m.gpus, bytes)});
    }
    for (auto &[name, demands] : multi) {
      const std::vector<flow::Demand> &d = demands;
      unsigned nd = static_cast<unsigned>(d.size());
      size_t lp = add(name, "multi-commodity LP", nd,
                      [&] { return flow::solveMultiCommodity(net, d); });
      size_t pl = add(name, "path LP (1% gap)", nd, [&] {
        flow::PathLPOptions o;
        o.relativeGap = 1e-2;
        return flow::solveMultiCommodityPaths(net, d, o);
      });
      size_t dp = add(name, "direct paths", nd,
                      [&] { return flow::solveDirectPaths(net, d); });
      for (size_t i : {pl, dp}) {
        rows[i].ratioTo = "LP";
        if (rows[lp].result.status == 0 && rows[i].result.status == 0)
          rows[i].ratio = rows[lp].result.makespan / rows[i].result.makespan;
      }
    }
  }

  if (json) {
    std::printf("{\"repeat\": %u, \"capSeconds\": %g, \"bytes\": %g, "
                "\"rows\": [\n",
                repeat, cap, bytes);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      std::printf("  {\"gpus\": %u, \"devices\": %u, \"arcs\": %u, "
                  "\"workload\": ",
                  r.gpus, r.devices, r.arcs);
      jsonString(r.workload);
      std::printf(", \"solver\": ");
      jsonString(r.solver);
      std::printf(", \"demands\": %u, \"runs\": %u, \"status\": ", r.demands,
                  r.result.runs);
      const char *st[] = {"ok", "over cap", "error", "crashed", "not run"};
      jsonString(st[r.result.status]);
      if (r.result.status == 0)
        std::printf(", \"medianMs\": %.6g, \"cpuMedianMs\": %.6g, \"makespan\": %.9g", r.result.medianMs, r.result.cpuMedianMs,
                    r.result.makespan);
      if (r.ratio > 0)
        std::printf(", \"optimalOverThis\": %.6g", r.ratio);
      std::printf("}%s\n", i + 1 < rows.size() ? "," : "");
    }
    std::printf("]}\n");
    return 0;
  }

  std::printf("Median of %u runs, cap %.0f s per (case, solver); %.0f MB per "
              "source (gather) or per pair (ring, all-to-all).\n\n",
              repeat, cap, bytes / 1e6);
  std::printf("| GPUs | devices | arcs | workload | demands | solver | time "
              "(ms) | makespan (s) | optimal / this | work |\n");
  std::printf("|-----:|--------:|-----:|----------|--------:|--------|--------:"
              "|-------------:|---------------:|------|\n");
  for (const Row &r : rows) {
    std::string mk = "";
    if (r.result.status == 0) {
      char b[64];
      std::snprintf(b, sizeof(b), "%.4f", r.result.makespan);
      mk = b;
    }
    std::string ratio;
    if (r.ratio > 0) {
      char b[64];
      std::snprintf(b, sizeof(b), "%.3f", r.ratio);
      ratio = b;
    } else if (!r.ratioTo.empty()) {
      ratio = "n/a";
    }
    std::printf("| %u | %u | %u | %s | %u | %s | %s | %s | %s | %s |\n", r.gpus,
                r.devices, r.arcs, r.workload.c_str(), r.demands,
                r.solver.c_str(), fmtResult(r.result, cap, repeat, r.solver.find("LP") != std::string::npos)
                    .c_str(), mk.c_str(),
                ratio.c_str(), work(r).c_str());
  }
  if (extras) {
    benchCollectives(collectiveSizes, 256e6);
    benchPlacement();
    benchSlots();
  }
  return 0;
}
