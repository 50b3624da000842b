//===- GnnPlan.cpp - sluicec --emit=plan of gnn train jobs ----------------===//
//
// See GnnPlan.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Gnn/GnnPlan.h"

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Gnn/GnnCost.h"
#include "compiler/Target/Gnn/GnnServersPlan.h"
#include "compiler/Target/Walk/DeclaredGraph.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "support/Units.h"

#include "sluice/gnn.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace mlir;
using namespace sluice;
using namespace sluice::target;

bool sluice::target::hasGnnTrainJobs(ModuleOp module, StringRef job) {
  return llvm::any_of(module.getOps<model::GnnTrainOp>(),
                      [&](model::GnnTrainOp j) {
                        return job.empty() || j.getSymName() == job;
                      });
}

namespace {

/// The training share of the labelled vertices (sluice_gnn_options_init).
constexpr double kTrainFraction = 0.6;
/// The validation share (evaluated apart from the test set).
constexpr double kValFraction = 0.2;
/// Rows the runtime reads to measure the input density.
constexpr uint64_t kDensityProbe = 4096;

std::string bytes(double v) { return formatQuantity(v, Dim::bytes()); }
std::string ms(double seconds) {
  return llvm::formatv("{0:f3} ms", seconds * 1e3).str();
}

/// The machine from the topology: the first cpu and gpu, every nvme
/// drive (figures of the first), every priced device. `assumed` lists the
/// figures the topology does not give and the model assumes.
gnn::GnnMachine machineOf(const analysis::TopoGraph &topo,
                          std::vector<std::string> &assumed) {
  gnn::GnnMachine m;
  const analysis::TopoDevice *cpu = nullptr, *gpu = nullptr, *ssd = nullptr;
  for (const analysis::TopoDevice &d : topo.devices) {
    if (d.kind == "cpu" && !cpu)
      cpu = &d;
    else if (d.kind == "gpu" && !gpu)
      gpu = &d;
    else if (d.kind == "nvme") {
      ++m.ssds;
      if (!ssd)
        ssd = &d;
    }
    if (const auto *p = d.findQuantity("price")) {
      m.currency = "USD";
      if (d.kind != "nvme")
        m.otherPrice += p->value;
    }
  }
  auto quantity = [](const analysis::TopoDevice *d, StringRef name) {
    const analysis::QuantityProp *p = d ? d->findQuantity(name) : nullptr;
    return p ? p->value : 0.0;
  };
  if (cpu) {
    m.cpu = cpu->name;
    for (const analysis::IntProp &p : cpu->ints)
      if (p.name == "cores" && p.value > 0)
        m.cores = static_cast<unsigned>(p.value);
  }
  if (!cpu || !llvm::any_of(cpu->ints, [](const analysis::IntProp &p) {
        return p.name == "cores";
      }))
    assumed.push_back("1 core");
  m.cpuFlops = quantity(cpu, "compute");
  if (m.cpuFlops <= 0) {
    // Two 256-bit FMA units per core (32 FP32 FLOP a cycle).
    double hz = quantity(cpu, "frequency");
    if (hz <= 0) {
      hz = 2.5e9;
      assumed.push_back("2.5 GHz");
    }
    m.cpuFlops = m.cores * 32 * hz;
    assumed.push_back("cpu compute " +
                      formatQuantity(m.cpuFlops, Dim::compute()) +
                      " (32 FLOP per core and cycle)");
  }
  m.hostMemory = quantity(cpu, "memory");
  if (m.hostMemory <= 0)
    assumed.push_back("host memory unlimited (not checked)");
  m.hostBandwidth = quantity(cpu, "memory_bandwidth");
  if (m.hostBandwidth <= 0) {
    m.hostBandwidth = 20e9;
    assumed.push_back("host memory bandwidth 20 GB/s");
  }
  if (gpu) {
    m.gpu = gpu->name;
    m.gpuMemory = quantity(gpu, "memory");
  }
  if (ssd) {
    m.ssdReadBandwidth = quantity(ssd, "read");
    m.ssdCapacity = quantity(ssd, "capacity");
    m.ssdPrice = quantity(ssd, "price");
    for (const analysis::IntProp &p : ssd->ints)
      if (p.name == "iops")
        m.ssdIops = static_cast<double>(p.value);
  }
  return m;
}

/// Rows a feature file holds and the density of the probe rows the
/// runtime measures; an error message when it cannot be read.
struct FeatureFile {
  uint64_t rows = 0;
  double density = 1;
};
FailureOr<FeatureFile> readFeatureFile(model::GnnTrainOp job, StringRef path,
                                       uint32_t width,
                                       const sluice_graph_t *graph) {
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size))
    return job.emitError("job '")
           << job.getSymName() << "': cannot read the features file '" << path
           << "': " << ec.message();
  std::ifstream in(path.str(), std::ios::binary);
  uint64_t offset = 0;
  if (path.ends_with(".npy")) {
    // NumPy's header: magic, version, then its length (2 bytes in v1, 4
    // bytes from v2 on); the data follow it.
    unsigned char head[12] = {};
    in.read(reinterpret_cast<char *>(head), sizeof(head));
    if (head[6] == 1)
      offset = 10 + (head[8] | head[9] << 8);
    else
      offset = 12 + (head[8] | head[9] << 8 | head[10] << 16 |
                     uint64_t(head[11]) << 24);
  }
  const uint64_t rowBytes = uint64_t(width) * 4;
  FeatureFile out;
  out.rows = size > offset ? (size - offset) / rowBytes : 0;
  const uint64_t n = sluice_graph_num_vertices(graph),
                 base = sluice_graph_id_base(graph);
  uint64_t maxRow = 0;
  for (uint64_t v = 0; v < n; ++v)
    maxRow = std::max<uint64_t>(
        maxRow,
        sluice_graph_original_id(graph, static_cast<uint32_t>(v)) - base);
  if (out.rows <= maxRow)
    return job.emitError("job '")
           << job.getSymName() << "': " << path << ": the file has " << out.rows
           << " rows of features but the graph has vertex " << maxRow + base
           << " (row " << maxRow << ")";
  // The runtime's probe: up to 4096 vertices spread over the graph.
  const uint64_t step = std::max<uint64_t>(1, n / kDensityProbe);
  std::vector<float> row(width);
  uint64_t values = 0, nonzero = 0;
  for (uint64_t v = 0; v < n && values < kDensityProbe * width; v += step) {
    const uint64_t r =
        sluice_graph_original_id(graph, static_cast<uint32_t>(v)) - base;
    in.seekg(static_cast<std::streamoff>(offset + r * rowBytes));
    in.read(reinterpret_cast<char *>(row.data()),
            static_cast<std::streamsize>(rowBytes));
    if (!in)
      break;
    for (float x : row)
      nonzero += x != 0.0f;
    values += width;
  }
  out.density = values ? double(nonzero) / double(values) : 1.0;
  return out;
}

struct Planned {
  std::string job, model, graph, kind, topology, features;
  uint64_t vertices = 0, edges = 0, labelled = 0;
  gnn::GnnJob shape;
  gnn::GnnMachine machine;
  std::vector<std::string> assumed;
  gnn::EpochPrediction e;
  std::optional<gnn::TpcAdvice> tpc;
  std::string tpcNote;
  /// Two or more servers in the topology: the multi-server plan.
  std::optional<gnn::MultiServerPrediction> servers;
  /// Why the features fit no single server (multi-server plans only).
  std::string oneMachineNote;
};

FailureOr<Planned> planJob(model::GnnTrainOp job,
                           const analysis::TopoGraph &topo,
                           const GnnPlanOptions &options) {
  auto gnnOp = SymbolTable::lookupNearestSymbolFrom<model::GnnOp>(
      job, job.getModelAttr());
  auto g = SymbolTable::lookupNearestSymbolFrom<walk::GraphOp>(
      job, job.getGraphAttr());
  if (!gnnOp || !g)
    return job.emitError("job '")
           << job.getSymName() << "' needs a gnn model and a graph";
  if (!g.getLabels())
    return g.emitError("graph '")
           << g.getSymName() << "' has no vertex labels, which are the "
           << "classes job '" << job.getSymName()
           << "' trains on; load it with labels: \"FILE\" (\"vertex label\" "
              "lines)";
  Planned p;
  p.job = job.getSymName().str();
  p.model = gnnOp.getSymName().str();
  p.graph = g.getSymName().str();
  p.kind = model::stringifyGnnKind(gnnOp.getKind()).str();
  p.topology = job.getTopology().str();
  std::string note;
  FailureOr<sluice_graph_t *> loaded =
      loadDeclaredGraph(g, /*quiet=*/true, options.graphCache, note);
  if (failed(loaded))
    return failure();
  sluice_graph_t *graph = *loaded;
  auto release = llvm::make_scope_exit([&] { sluice_graph_release(graph); });
  const uint64_t n = sluice_graph_num_vertices(graph);
  p.vertices = n;
  p.edges = sluice_graph_num_edges(graph);

  gnn::GnnJob &s = p.shape;
  switch (gnnOp.getKind()) {
  case model::GnnKind::Sage:
    s.kind = gnn::GnnKind::Sage;
    break;
  case model::GnnKind::Gcn:
    s.kind = gnn::GnnKind::Gcn;
    break;
  case model::GnnKind::Gat:
    s.kind = gnn::GnnKind::Gat;
    break;
  }
  s.heads = static_cast<uint32_t>(gnnOp.getHeads().value_or(1));
  for (int64_t f : gnnOp.getFanouts())
    s.fanouts.push_back(static_cast<uint32_t>(f));
  auto narrow = [](uint64_t v) {
    return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
  };
  s.features = narrow(gnnOp.getFeatures());
  s.hidden = narrow(gnnOp.getHidden());
  s.classes = narrow(gnnOp.getClasses());
  s.batch = narrow(job.getBatch());
  s.threads = job.getThreads() ? narrow(*job.getThreads()) : 0;
  if (auto path = job.getFeatures()) {
    auto file = readFeatureFile(job, *path, s.features, graph);
    if (failed(file))
      return failure();
    s.fromFile = true;
    s.fileRows = file->rows;
    s.inputDensity = file->density;
    s.sparseInput = file->density <= SLUICE_GNN_SPARSE_DENSITY;
    if (auto cache = job.getFeatureCache()) {
      s.outOfCore = true;
      s.cacheBytes = *cache;
    }
    p.features = path->str();
  } else {
    if (s.features != n)
      return job.emitError("job '")
             << job.getSymName() << "': identity features give every vertex "
             << n << " features (one per vertex) but the model declares "
             << s.features;
    s.sparseInput = true;
    s.inputDensity = 1.0 / static_cast<double>(n);
    p.features = "one-hot vertex ids";
  }

  // Seeds: each labelled vertex trains with the training fraction's
  // probability, else evaluates.
  const int32_t *labels = sluice_graph_vertex_labels(graph);
  std::vector<double> train(n, 0.0), eval(n, 0.0);
  for (uint64_t v = 0; v < n; ++v)
    if (labels && labels[v] != SLUICE_LABEL_NONE)
      ++p.labelled;
  const double trainCount = std::round(kTrainFraction * p.labelled);
  const double share = p.labelled ? trainCount / p.labelled : 0;
  for (uint64_t v = 0; v < n; ++v)
    if (labels && labels[v] != SLUICE_LABEL_NONE) {
      train[v] = share;
      eval[v] = 1 - share;
    }
  if (trainCount < 1)
    return g.emitError("graph '")
           << g.getSymName() << "' has " << p.labelled
           << " labelled vertices, which leave no training vertex for job '"
           << job.getSymName() << "'";
  s.trainVertices = trainCount;
  s.evalVertices = static_cast<double>(p.labelled) - trainCount;
  s.valVertices =
      std::min(s.evalVertices,
               static_cast<double>(std::llround(kValFraction * p.labelled)));

  // Several servers: the single-machine plan is the first server's (where
  // --run trains), then the multi-server plan over all of them.
  const auto servers = serverGroups(topo);
  p.machine = servers.size() >= 2
                  ? machineOf(groupTopology(topo, servers[0].first), p.assumed)
                  : machineOf(topo, p.assumed);
  // File rows by original id, as the runtime reads them.
  std::vector<uint32_t> rowOf(n);
  const uint64_t base = sluice_graph_id_base(graph);
  for (uint64_t v = 0; v < n; ++v)
    rowOf[v] = static_cast<uint32_t>(
        sluice_graph_original_id(graph, static_cast<uint32_t>(v)) - base);
  gnn::GnnGraph view{llvm::ArrayRef(sluice_graph_offsets(graph), n + 1),
                     llvm::ArrayRef(sluice_graph_targets(graph), p.edges),
                     train, eval, rowOf};
  auto e = gnn::predictEpoch(view, s, p.machine);
  if (e) {
    p.e = std::move(*e);
  } else if (servers.size() >= 2) {
    // What several servers hold may not fit one of them.
    p.oneMachineNote = llvm::toString(e.takeError());
    p.e.parameters = gnn::parameterCount(s);
  } else {
    return job.emitError("job '")
           << job.getSymName()
           << "': the features do not fit: " << llvm::toString(e.takeError());
  }
  if (servers.size() >= 2) {
    std::vector<gnn::GnnServer> list;
    for (const auto &[name, cpu] : servers) {
      std::vector<std::string> assumed;
      list.push_back(
          {name, cpu, machineOf(groupTopology(topo, name), assumed)});
    }
    auto m = gnn::predictServers(view, s, list, flow::buildNetwork(topo));
    if (!m)
      return job.emitError("job '")
             << job.getSymName() << "': the plan over the " << servers.size()
             << " servers of topology '" << p.topology
             << "': " << llvm::toString(m.takeError());
    p.servers = std::move(*m);
    job.emitWarning("job '")
        << job.getSymName() << "': topology '" << p.topology << "' has "
        << servers.size()
        << " servers; the multi-server plan is a prediction: --run trains on "
           "one machine";
  }
  if (!p.oneMachineNote.empty())
    p.tpcNote = "the features do not fit one machine";
  else if (!s.outOfCore)
    p.tpcNote = "the features are in memory (no drives to choose)";
  else if (!p.machine.ssdPrice)
    p.tpcNote = "the nvme drives have no price";
  else {
    auto advice = gnn::adviseTpc(view, s, p.machine, options.budget,
                                 std::max(4u, 2 * p.machine.ssds));
    if (!advice)
      p.tpcNote = llvm::toString(advice.takeError());
    else
      p.tpc = std::move(*advice);
  }
  return p;
}

/// FLOPs of a training batch (the attention's only: GAT's logits and
/// softmax); 0 when the features fit no single machine (no profile).
double trainFlops(const Planned &p, bool attention) {
  if (p.e.train.hops.size() != p.shape.layers())
    return 0;
  return attention ? gnn::attentionFlops(p.shape, p.e.train, true)
                   : gnn::batchFlops(p.shape, p.e.train, true);
}

/// Attention slots of a batch: every block's dst vertices and edges.
double slots(const gnn::BatchProfile &profile) {
  double n = 0;
  for (const gnn::BatchProfile::Hop &h : profile.hops)
    n += h.dst + h.edges;
  return n;
}

void writeText(const Planned &p, llvm::raw_ostream &os) {
  const gnn::GnnJob &s = p.shape;
  const gnn::GnnMachine &m = p.machine;
  const gnn::EpochPrediction &e = p.e;
  const gnn::Placement &c = e.placement;
  os << "job " << p.job << ": " << p.kind << " model '" << p.model
     << "' on graph '" << p.graph << "' (" << p.vertices << " vertices, "
     << p.edges << " arcs), topology '" << p.topology << "'\n";
  os << llvm::formatv("  machine: cpu '{0}' ({1} core{2}, {3}, memory {4} "
                      "at {5}); layers on the CPU{6}; {7} nvme drive(s)\n",
                      m.cpu, m.cores, m.cores == 1 ? "" : "s",
                      formatQuantity(m.cpuFlops, Dim::compute()),
                      m.hostMemory > 0 ? bytes(m.hostMemory) : "unknown",
                      formatQuantity(m.hostBandwidth, Dim::bandwidth()),
                      m.gpu.empty() ? std::string()
                                    : " (gpu '" + m.gpu +
                                          "' holds no features: training "
                                          "runs on the CPU)",
                      m.ssds);
  if (!p.assumed.empty())
    os << "  assumed (not in the topology): " << llvm::join(p.assumed, ", ")
       << "\n";
  os << llvm::formatv("  features: {0}, {1} input (density {2:f4}); {3:f0} "
                      "parameters\n",
                      p.features, s.sparseInput ? "sparse" : "dense",
                      s.inputDensity, e.parameters);
  if (!p.oneMachineNote.empty()) {
    os << "  one machine: the features do not fit: " << p.oneMachineNote
       << "\n";
    writeServersText(*p.servers, s, p.edges, os);
    return;
  }
  os << llvm::formatv("  epoch: {0:f0} training seeds in {1:f0} batches of "
                      "{2}; {3:f0} evaluation seeds in {4:f0} batches of {5}\n",
                      s.trainVertices, e.batches, s.batch, s.evalVertices,
                      e.evalBatches, s.evalBatch());
  os << "  batch (expected):";
  for (size_t h = 0; h < e.train.hops.size(); ++h)
    os << llvm::formatv("{0} hop {1}: {2:f1} -> {3:f1} vertices, {4:f1} "
                        "edges",
                        h ? ";" : "", h + 1, e.train.hops[h].dst,
                        e.train.hops[h].src, e.train.hops[h].edges);
  os << llvm::formatv("; {0:f1} input rows\n", e.train.inputRows());
  if (s.kind == gnn::GnnKind::Gat) {
    os << llvm::formatv(
        "  attention: {0} head(s) a layer (hidden layers concatenate, the "
        "output layer averages); a training batch {1:e3} FLOPs, {2:e3} of "
        "them the attention's logits and softmax\n",
        s.heads, trainFlops(p, false), trainFlops(p, true));
    os << llvm::formatv(
        "  per-edge attention: {0:f1} slots (dst + edges) a training batch, "
        "{1} of its compute (per slot: heads, rows of Z, the backward's "
        "columns; not at the GEMM efficiency)\n",
        slots(e.train), ms(e.perBatch.attention));
  }
  os << "  pipeline: sampling -> gather (memory, nvme) on the producer "
        "thread -> ";
  if (s.pipelineDepth)
    os << "ring of " << s.pipelineDepth << " batches -> ";
  else
    os << "(no ring) -> ";
  os << "compute -> optimizer on "
     << (s.threads ? std::min(s.threads, m.cores) : m.cores) << " thread(s)\n";
  os << llvm::formatv("  cache: gpu {0} rows ({1}), host {2} rows ({3}), "
                      "nvme {4} rows ({5}); {6:f3} of the accesses "
                      "cached\n",
                      c.gpuRows, bytes(c.gpuBytes), c.hostRows,
                      bytes(c.hostBytes), c.ssdRows, bytes(c.ssdBytes),
                      c.hitRate);
  if (s.outOfCore)
    os << llvm::formatv("  nvme reads per batch: {0:f1} rows in {1:f1} "
                        "blocks of 4 KiB, {2:f1} requests (training); "
                        "{3} an epoch with evaluation\n",
                        e.trainIo.rows, e.trainIo.blocks, e.trainIo.requests,
                        bytes(e.epochReadBytes()));
  const gnn::StageTimes b = e.perBatch, t = e.perEpoch();
  os << "  stage              per batch      per epoch\n";
  auto line = [&](StringRef name, double one, double all) {
    os << llvm::formatv("  {0,-18} {1,-14} {2}\n", name, ms(one), ms(all));
  };
  line("sampling", b.sample, t.sample);
  line("gather (memory)", b.gatherHost, t.gatherHost);
  line("gather (nvme)", b.gatherSsd, t.gatherSsd);
  line("compute", b.compute, t.compute);
  if (s.kind == gnn::GnnKind::Gat)
    line("  of it attention", b.attention, t.attention);
  line("optimizer", b.optimizer, t.optimizer);
  line("batch fixed cost", b.fixed, t.fixed);
  os << llvm::formatv("  {0,-18} {1,-14} {2}\n", "evaluation", "",
                      ms(e.evalSeconds));
  os << llvm::formatv("  predicted epoch: {0} (training {1} + evaluation "
                      "{2}); bound by {3} (producer {4}, trainer {5} per "
                      "batch)\n",
                      ms(e.epochSeconds), ms(e.trainSeconds), ms(e.evalSeconds),
                      e.bound, ms(b.producer()), ms(b.trainer()));
  if (p.tpc) {
    const gnn::TpcAdvice &a = *p.tpc;
    auto point = [&](const gnn::TpcPoint &x) {
      return llvm::formatv("{0} drive(s), {1} cache: {2:f0} seeds/s for {3:f0} "
                           "{4}, {5:e3} seeds/s per {4}",
                           x.ssds, bytes(x.cacheBytes), x.seedsPerSecond,
                           x.price, m.currency, x.tpc)
          .str();
    };
    os << "  tpc: " << point(a.current) << "\n";
    const std::string budget =
        a.budget > 0
            ? llvm::formatv(" (budget {0:f0} {1})", a.budget, m.currency).str()
            : std::string();
    os << "  tpc advice" << budget << ": " << point(a.best) << "\n";
    os << "  tpc advice at the job's cache" << budget << ": "
       << point(a.bestAtCache) << "\n";
  } else {
    os << "  tpc: not advised: " << p.tpcNote << "\n";
  }
  if (p.servers)
    writeServersText(*p.servers, s, p.edges, os);
}

llvm::json::Object stagesJson(const gnn::StageTimes &t) {
  return llvm::json::Object{{"sampling", t.sample},
                            {"gather_memory", t.gatherHost},
                            {"gather_nvme", t.gatherSsd},
                            {"compute", t.compute},
                            {"attention", t.attention},
                            {"optimizer", t.optimizer},
                            {"fixed", t.fixed}};
}

llvm::json::Object pointJson(const gnn::TpcPoint &x) {
  return llvm::json::Object{{"ssds", x.ssds},
                            {"cache_bytes", static_cast<int64_t>(x.cacheBytes)},
                            {"price", x.price},
                            {"epoch_seconds", x.epochSeconds},
                            {"seeds_per_second", x.seedsPerSecond},
                            {"tpc", x.tpc}};
}

llvm::json::Object toJson(const Planned &p) {
  const gnn::GnnJob &s = p.shape;
  const gnn::GnnMachine &m = p.machine;
  const gnn::EpochPrediction &e = p.e;
  const gnn::Placement &c = e.placement;
  llvm::json::Array hops;
  for (const auto &h : e.train.hops)
    hops.push_back(
        llvm::json::Object{{"dst", h.dst}, {"edges", h.edges}, {"src", h.src}});
  auto tier = [](uint64_t rows, uint64_t bytes, double reads) {
    return llvm::json::Object{{"rows", static_cast<int64_t>(rows)},
                              {"bytes", static_cast<int64_t>(bytes)},
                              {"reads_per_batch", reads}};
  };
  llvm::json::Object tpc;
  if (p.tpc) {
    llvm::json::Array points;
    for (const auto &x : p.tpc->points)
      points.push_back(pointJson(x));
    tpc = llvm::json::Object{{"currency", m.currency},
                             {"budget", p.tpc->budget},
                             {"current", pointJson(p.tpc->current)},
                             {"best", pointJson(p.tpc->best)},
                             {"best_at_cache", pointJson(p.tpc->bestAtCache)},
                             {"points", std::move(points)}};
  } else {
    tpc = llvm::json::Object{{"note", p.tpcNote}};
  }
  return llvm::json::Object{
      {"job", p.job},
      {"model", p.model},
      {"kind", p.kind},
      {"heads", s.heads},
      {"batch_flops", trainFlops(p, false)},
      {"attention_flops", trainFlops(p, true)},
      {"attention_slots", slots(e.train)},
      {"graph", p.graph},
      {"topology", p.topology},
      {"vertices", static_cast<int64_t>(p.vertices)},
      {"edges", static_cast<int64_t>(p.edges)},
      {"features", p.features},
      {"input", s.sparseInput ? "sparse" : "dense"},
      {"input_density", s.inputDensity},
      {"parameters", e.parameters},
      {"machine",
       llvm::json::Object{{"cpu", m.cpu},
                          {"cores", m.cores},
                          {"cpu_flops", m.cpuFlops},
                          {"host_memory", m.hostMemory},
                          {"host_bandwidth", m.hostBandwidth},
                          {"gpu", m.gpu},
                          {"compute_on_gpu", m.computeOnGpu},
                          {"ssds", m.ssds},
                          {"assumed", llvm::json::Array(p.assumed)}}},
      {"epoch", llvm::json::Object{{"train_seeds", s.trainVertices},
                                   {"batches", e.batches},
                                   {"batch", s.batch},
                                   {"eval_seeds", s.evalVertices},
                                   {"eval_batches", e.evalBatches}}},
      {"batch_hops", std::move(hops)},
      {"input_rows_per_batch", e.train.inputRows()},
      {"eval_input_rows_per_batch", e.eval.inputRows()},
      {"pipeline",
       llvm::json::Object{
           {"stages", llvm::json::Array{"sampling", "gather_memory",
                                        "gather_nvme", "compute", "optimizer"}},
           {"ring_depth", s.pipelineDepth}}},
      {"cache",
       llvm::json::Object{{"gpu", tier(c.gpuRows, c.gpuBytes, c.gpuReads)},
                          {"host", tier(c.hostRows, c.hostBytes, c.hostReads)},
                          {"nvme", tier(c.ssdRows, c.ssdBytes, c.ssdReads)},
                          {"hit_rate", c.hitRate}}},
      {"nvme_reads",
       llvm::json::Object{{"rows_per_batch", e.trainIo.rows},
                          {"blocks_per_batch", e.trainIo.blocks},
                          {"requests_per_batch", e.trainIo.requests},
                          {"eval_rows_per_batch", e.evalIo.rows},
                          {"eval_blocks_per_batch", e.evalIo.blocks},
                          {"bytes_per_epoch", e.epochReadBytes()}}},
      {"per_batch_seconds", stagesJson(e.perBatch)},
      {"per_epoch_seconds", stagesJson(e.perEpoch())},
      {"flops_per_batch", e.flopsPerBatch},
      {"train_seconds", e.trainSeconds},
      {"eval_seconds", e.evalSeconds},
      {"fixed_seconds", llvm::json::Object{{"train", e.trainFixedSeconds},
                                           {"eval", e.evalFixedSeconds}}},
      {"epoch_seconds", e.epochSeconds},
      {"bound", e.bound},
      {"tpc", std::move(tpc)},
      {"one_machine_fits", p.oneMachineNote.empty()},
      {"one_machine_note", p.oneMachineNote},
      {"servers", p.servers ? serversJson(*p.servers) : llvm::json::Array()},
      {"multi_server",
       p.servers ? llvm::json::Value(multiServerJson(*p.servers, p.edges))
                 : llvm::json::Value(nullptr)}};
}

} // namespace

LogicalResult sluice::target::writeGnnPlans(ModuleOp module,
                                            const analysis::TopoGraph &topology,
                                            const GnnPlanOptions &options,
                                            llvm::raw_ostream &os) {
  std::vector<Planned> plans;
  bool ok = true;
  for (model::GnnTrainOp job : module.getOps<model::GnnTrainOp>()) {
    if (!options.job.empty() ? job.getSymName() != options.job
                             : job.getTopology() != options.top)
      continue;
    auto planned = planJob(job, topology, options);
    if (failed(planned)) {
      ok = false;
      continue;
    }
    plans.push_back(std::move(*planned));
  }
  if (!ok)
    return failure();
  if (options.json) {
    llvm::json::Array jobs;
    for (const Planned &p : plans)
      jobs.push_back(toJson(p));
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"gnn_plans", std::move(jobs)}}))
       << "\n";
    return success();
  }
  for (const Planned &p : plans)
    writeText(p, os);
  return success();
}
