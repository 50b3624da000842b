//===- GnnServersPlan.cpp - Multi-server part of gnn --emit=plan ----------===//
//
// See GnnServersPlan.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Gnn/GnnServersPlan.h"

#include "support/Units.h"

#include "llvm/Support/FormatVariadic.h"

using namespace sluice;
using namespace sluice::target;

std::vector<std::pair<std::string, unsigned>>
sluice::target::serverGroups(const analysis::TopoGraph &topo) {
  std::vector<std::pair<std::string, unsigned>> out;
  for (const std::string &g : topo.groups())
    for (unsigned d = 0; d < topo.devices.size(); ++d)
      if (topo.devices[d].group == g && topo.devices[d].kind == "cpu") {
        out.push_back({g, d});
        break;
      }
  return out;
}

analysis::TopoGraph
sluice::target::groupTopology(const analysis::TopoGraph &topo,
                              llvm::StringRef group) {
  analysis::TopoGraph out;
  for (const analysis::TopoDevice &d : topo.devices)
    if (d.group == group)
      out.devices.push_back(d);
  return out;
}

namespace {

std::string bytes(double v) { return formatQuantity(v, Dim::bytes()); }
std::string ms(double seconds) {
  return llvm::formatv("{0:f3} ms", seconds * 1e3).str();
}

std::string joinedParts(const std::vector<double> &xs, const char *format) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? "/" : "") + llvm::formatv(format, xs[i]).str();
  return out;
}

} // namespace

void sluice::target::writeServersText(const gnn::MultiServerPrediction &m,
                                      const gnn::GnnJob &job, uint64_t arcs,
                                      llvm::raw_ostream &os) {
  const gnn::GraphPartition &p = m.partition;
  os << "  servers: " << m.servers.size() << " (";
  for (size_t s = 0; s < m.servers.size(); ++s)
    os << (s ? ", " : "") << "'" << m.servers[s].name << "'";
  os << "), synchronous data-parallel; the one-machine plan is the first "
        "server's, where --run trains\n";
  std::vector<double> vertices(p.vertices.begin(), p.vertices.end());
  os << llvm::formatv(
      "  partition (BFS growing, greedy refinement): edge cut {0} of {1} "
      "arcs ({2:f1}%; {3} after growth, {4} moves); seeds {5} (balance "
      "{6:f3}); vertices {7} (balance {8:f3})\n",
      p.cutArcs, arcs, arcs ? 100.0 * p.cutArcs / arcs : 0.0, p.grownCut,
      p.moves, joinedParts(p.seeds, "{0:f1}"), p.seedBalance(),
      joinedParts(vertices, "{0:f0}"), p.vertexBalance());
  os << llvm::formatv("  steps: {0:f0} an epoch (batches of {1} seeds per "
                      "server); gradient all-reduce {2} a step: {3} (ring "
                      "over the servers' cpus)\n",
                      m.batches, job.batch, bytes(m.allReduceBytes),
                      ms(m.allReduceSeconds));
  os << llvm::formatv("  remote gather a step (flow scheduler, {0}): {1} "
                      "in {2} (training), {3} in {4} (evaluation)\n",
                      m.remoteMethod, bytes(m.remoteBytesPerStep),
                      ms(m.remoteSeconds), bytes(m.evalRemoteBytesPerStep),
                      ms(m.evalRemoteSeconds));
  const double rowBytes = static_cast<double>(job.rowBytes());
  for (const gnn::ServerPrediction &s : m.servers) {
    os << llvm::formatv("  server {0}: cpu '{1}' ({2} cores, {3}, memory "
                        "{4}, {5} nvme drive(s)); {6} vertices, {7:f1} "
                        "training seeds, {8:f1} evaluation seeds\n",
                        s.name, s.machine.cpu, s.machine.cores,
                        formatQuantity(s.machine.cpuFlops, Dim::compute()),
                        s.machine.hostMemory > 0 ? bytes(s.machine.hostMemory)
                                                 : std::string("unknown"),
                        s.machine.ssds, s.vertices, s.seeds, s.evalSeeds);
    std::string from;
    for (size_t t = 0; t < s.remoteRowsFrom.size(); ++t)
      if (s.remoteRowsFrom[t] > 0)
        from += llvm::formatv("{0}{1:f1} from {2}", from.empty() ? "" : ", ",
                              s.remoteRowsFrom[t], m.servers[t].name)
                    .str();
    os << llvm::formatv("    input rows a batch: {0:f1} = {1:f1} local + "
                        "{2:f1} remote cached + {3:f1} remote{4}\n",
                        s.localRows + s.cachedRemoteRows + s.remoteRows,
                        s.localRows, s.cachedRemoteRows, s.remoteRows,
                        from.empty() ? "" : " (" + from + ")");
    os << llvm::formatv("    placement: local rows {0} in memory, {1} on "
                        "nvme; remote cache {2} rows ({3} of {4} left)\n",
                        s.localHostRows, s.localSsdRows, s.cachedRemote,
                        bytes(s.cachedRemote * rowBytes),
                        bytes(s.remoteCacheCapacity));
    const gnn::StageTimes &b = s.perBatch;
    os << "    stage              per batch      per epoch\n";
    auto line = [&](llvm::StringRef name, double one) {
      os << llvm::formatv("    {0,-18} {1,-14} {2}\n", name, ms(one),
                          ms(one * m.batches));
    };
    line("sampling", b.sample);
    line("gather (memory)", b.gatherHost);
    line("gather (nvme)", b.gatherSsd);
    line("gather (remote)", s.gatherRemote);
    line("compute", b.compute);
    line("all-reduce", s.allReduce);
    line("optimizer", b.optimizer);
    line("batch fixed cost", b.fixed);
    os << llvm::formatv("    {0,-18} {1,-14} {2}\n", "evaluation", "",
                        ms(s.evalSeconds));
    os << llvm::formatv("    predicted: {0} (training {1} + evaluation "
                        "{2}); bound by {3} (producer {4}, trainer {5} per "
                        "batch)\n",
                        ms(s.epochSeconds), ms(s.trainSeconds),
                        ms(s.evalSeconds), s.bound, ms(s.producer()),
                        ms(s.trainer()));
  }
  os << llvm::formatv("  predicted epoch on {0} servers: {1}, the slowest "
                      "server's ({2})\n",
                      m.servers.size(), ms(m.epochSeconds),
                      m.servers[m.slowest].name);
}

llvm::json::Array
sluice::target::serversJson(const gnn::MultiServerPrediction &m) {
  llvm::json::Array out;
  for (const gnn::ServerPrediction &s : m.servers) {
    llvm::json::Object from;
    for (size_t t = 0; t < s.remoteRowsFrom.size(); ++t)
      if (t < m.servers.size() && s.remoteRowsFrom[t] > 0)
        from[m.servers[t].name] = s.remoteRowsFrom[t];
    const gnn::StageTimes &b = s.perBatch;
    out.push_back(llvm::json::Object{
        {"name", s.name},
        {"cpu", s.machine.cpu},
        {"cores", s.machine.cores},
        {"host_memory", s.machine.hostMemory},
        {"ssds", s.machine.ssds},
        {"vertices", static_cast<int64_t>(s.vertices)},
        {"train_seeds", s.seeds},
        {"eval_seeds", s.evalSeeds},
        {"eval_batches", s.evalBatches},
        {"input_rows_per_batch",
         s.localRows + s.cachedRemoteRows + s.remoteRows},
        {"local_rows_per_batch", s.localRows},
        {"cached_remote_rows_per_batch", s.cachedRemoteRows},
        {"remote_rows_per_batch", s.remoteRows},
        {"remote_rows_from", std::move(from)},
        {"local_host_rows", static_cast<int64_t>(s.localHostRows)},
        {"local_nvme_rows", static_cast<int64_t>(s.localSsdRows)},
        {"cached_remote_rows", static_cast<int64_t>(s.cachedRemote)},
        {"remote_cache_bytes", s.remoteCacheCapacity},
        {"nvme_blocks_per_batch", s.trainIo.blocks},
        {"per_batch_seconds",
         llvm::json::Object{{"sampling", b.sample},
                            {"gather_memory", b.gatherHost},
                            {"gather_nvme", b.gatherSsd},
                            {"gather_remote", s.gatherRemote},
                            {"compute", b.compute},
                            {"all_reduce", s.allReduce},
                            {"optimizer", b.optimizer},
                            {"fixed", b.fixed}}},
        {"producer_seconds", s.producer()},
        {"trainer_seconds", s.trainer()},
        {"train_seconds", s.trainSeconds},
        {"eval_seconds", s.evalSeconds},
        {"epoch_seconds", s.epochSeconds},
        {"bound", s.bound}});
  }
  return out;
}

llvm::json::Object
sluice::target::multiServerJson(const gnn::MultiServerPrediction &m,
                                uint64_t arcs) {
  const gnn::GraphPartition &p = m.partition;
  llvm::json::Array seeds, vertices;
  for (double s : p.seeds)
    seeds.push_back(s);
  for (uint64_t v : p.vertices)
    vertices.push_back(static_cast<int64_t>(v));
  return llvm::json::Object{
      {"partition",
       llvm::json::Object{{"method", "bfs-growing+greedy-refinement"},
                          {"cut_arcs", static_cast<int64_t>(p.cutArcs)},
                          {"arcs", static_cast<int64_t>(arcs)},
                          {"grown_cut_arcs", static_cast<int64_t>(p.grownCut)},
                          {"moves", p.moves},
                          {"seeds", std::move(seeds)},
                          {"vertices", std::move(vertices)},
                          {"seed_balance", p.seedBalance()},
                          {"vertex_balance", p.vertexBalance()}}},
      {"steps", m.batches},
      {"remote_bytes_per_step", m.remoteBytesPerStep},
      {"remote_seconds_per_step", m.remoteSeconds},
      {"eval_remote_bytes_per_step", m.evalRemoteBytesPerStep},
      {"eval_remote_seconds_per_step", m.evalRemoteSeconds},
      {"remote_method", m.remoteMethod},
      {"allreduce_bytes", m.allReduceBytes},
      {"allreduce_seconds", m.allReduceSeconds},
      {"epoch_seconds", m.epochSeconds},
      {"slowest", m.servers[m.slowest].name},
      {"runs_on_one_machine", true}};
}
