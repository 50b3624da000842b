//===- GnnRun.cpp - sluicec --run of a gnn train job ----------------------===//

#include "compiler/Target/Gnn/GnnRun.h"

#include "compiler/Target/Gnn/GnnGpu.h"

#include "compiler/Target/JobLookup.h"
#include "compiler/Target/Walk/DeclaredGraph.h"
#include "compiler/Target/Walk/GraphCache.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Walk/IR/WalkOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace sluice;
using namespace sluice::target;

bool sluice::target::isGnnTrainJob(ModuleOp module, StringRef job) {
  auto jobs = module.getOps<model::GnnTrainOp>();
  if (job.empty())
    return !jobs.empty() && module.getOps<walk::JobOp>().empty() &&
           module.getOps<graph::JobOp>().empty();
  return llvm::any_of(
      jobs, [&](model::GnnTrainOp j) { return j.getSymName() == job; });
}

namespace {

struct Progress {
  llvm::raw_ostream *os;
  uint32_t epochs;
  std::vector<sluice_gnn_epoch_t> *log;
};

void onEpoch(void *user, const sluice_gnn_epoch_t *e) {
  auto *p = static_cast<Progress *>(user);
  p->log->push_back(*e);
  if (!p->os)
    return;
  *p->os << llvm::formatv(
      "epoch {0}/{1}: loss {2:f4}, train {3:f3}, val {4:f3}, test {5:f3} "
      "({6:f2} s: sample {7:f2}, gather {8:f2}, compute {9:f2}, waited "
      "{10:f2})\n",
      e->epoch, p->epochs, e->loss, e->train_accuracy, e->val_accuracy,
      e->test_accuracy, e->seconds, e->sample_seconds, e->gather_seconds,
      e->compute_seconds, e->wait_seconds);
  p->os->flush();
}

/// "256 B", "1.5 MiB", "2.0 GiB".
std::string humanBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024;
  size_t u = 0;
  while (v >= 1024 && u + 1 < 4) {
    v /= 1024;
    ++u;
  }
  return llvm::formatv("{0:f1} {1}", v, units[u]).str();
}

llvm::json::Value number(double v) {
  return std::isfinite(v) ? llvm::json::Value(v) : llvm::json::Value(nullptr);
}

/// The JSON report: the job, the result and every epoch.
/// The tiles of the aggregation: what the job asked for ("auto" or the
/// pinned columns), per layer the tile used at the end and the model's
/// choice, forward and backward (0: none), and the caches the model read.
llvm::json::Object aggregationJson(const GnnRunReport &r) {
  const sluice_gnn_result_t &x = r.result;
  auto perLayer = [&](const uint32_t *tiles) {
    llvm::json::Array a;
    for (uint32_t l = 0; l < r.layers; ++l)
      a.push_back(static_cast<int64_t>(tiles[l]));
    return a;
  };
  return llvm::json::Object{
      {"tile", r.tile ? llvm::json::Value(static_cast<int64_t>(r.tile))
                      : llvm::json::Value("auto")},
      {"forward_tiles", perLayer(x.forward_tile)},
      {"backward_tiles", perLayer(x.backward_tile)},
      {"model_forward_tiles", perLayer(x.model_forward_tile)},
      {"model_backward_tiles", perLayer(x.model_backward_tile)},
      {"probed", x.tile_probed != 0},
      {"cache_l1d_bytes", static_cast<int64_t>(x.cache_l1d_bytes)},
      {"cache_l2_bytes", static_cast<int64_t>(x.cache_l2_bytes)}};
}

/// --target=gpu: the device and what its aggregation cost; null on the
/// CPU.
llvm::json::Value gpuJson(const GnnRunReport &r) {
  if (r.gpuDevice.empty())
    return nullptr;
  const sluice_gnn_gpu_stats_t &g = r.gpuStats;
  return llvm::json::Object{
      {"device", r.gpuDevice},
      {"launches", static_cast<int64_t>(g.launches)},
      {"kernel_seconds", g.kernel_seconds},
      {"upload_seconds", g.upload_seconds},
      {"download_seconds", g.download_seconds},
      {"transpose_seconds", g.transpose_seconds},
      {"bytes_to_device", static_cast<int64_t>(g.bytes_to_device)},
      {"bytes_from_device", static_cast<int64_t>(g.bytes_from_device)}};
}

llvm::json::Object toJson(const GnnRunReport &r) {
  llvm::json::Array epochs;
  for (const sluice_gnn_epoch_t &e : r.epochs)
    epochs.push_back(llvm::json::Object{
        {"epoch", e.epoch},
        {"loss", number(e.loss)},
        {"train_accuracy", number(e.train_accuracy)},
        {"val_accuracy", number(e.val_accuracy)},
        {"test_accuracy", number(e.test_accuracy)},
        {"seconds", e.seconds},
        {"sample_seconds", e.sample_seconds},
        {"gather_seconds", e.gather_seconds},
        {"compute_seconds", e.compute_seconds},
        {"wait_seconds", e.wait_seconds},
        {"aggregate_seconds", e.aggregate_seconds},
        {"batches", static_cast<int64_t>(e.batches)},
        {"sampled_vertices", static_cast<int64_t>(e.sampled_vertices)},
        {"sampled_edges", static_cast<int64_t>(e.sampled_edges)}});
  const sluice_gnn_result_t &x = r.result;
  return llvm::json::Object{
      {"job", r.job},
      {"model", r.model},
      {"kind", r.kind},
      {"heads", r.heads},
      {"graph", r.graph},
      {"vertices", static_cast<int64_t>(r.vertices)},
      {"edges", static_cast<int64_t>(r.edges)},
      {"features", r.features},
      {"input", x.input_sparse ? "sparse" : "dense"},
      {"input_density", x.input_density},
      {"parameters", static_cast<int64_t>(x.parameters)},
      {"threads", r.threads},
      {"split",
       llvm::json::Object{{"train", static_cast<int64_t>(x.train_vertices)},
                          {"val", static_cast<int64_t>(x.val_vertices)},
                          {"test", static_cast<int64_t>(x.test_vertices)}}},
      {"best_epoch", x.best_epoch},
      {"best_val_accuracy", number(x.best_val_accuracy)},
      {"test_accuracy", number(x.test_accuracy)},
      {"final_test_accuracy", number(x.final_test_accuracy)},
      {"final_loss", number(x.final_loss)},
      {"seconds", x.seconds},
      {"load_seconds", r.loadSeconds},
      {"aggregation", aggregationJson(r)},
      {"gpu", gpuJson(r)},
      {"feature_store",
       llvm::json::Object{
           {"cached_rows", static_cast<int64_t>(x.feature_cached_rows)},
           {"cache_hits", static_cast<int64_t>(x.feature_cache_hits)},
           {"file_rows", static_cast<int64_t>(x.feature_file_rows)},
           {"file_bytes", static_cast<int64_t>(x.feature_file_bytes)},
           {"io_seconds", x.feature_io_seconds}}},
      {"epochs", std::move(epochs)}};
}

} // namespace

FailureOr<GnnRunReport>
sluice::target::runGnnTrainJob(ModuleOp module, const GnnRunOptions &options,
                               llvm::raw_ostream &progress) {
  FailureOr<model::GnnTrainOp> found = findJob<model::GnnTrainOp>(
      module, options.job, "gnn train",
      "job J = train M on T { graph: G, batch: B }");
  if (failed(found))
    return failure();
  model::GnnTrainOp job = *found;
  auto gnn = SymbolTable::lookupNearestSymbolFrom<model::GnnOp>(
      job, job.getModelAttr());
  auto g = SymbolTable::lookupNearestSymbolFrom<walk::GraphOp>(
      job, job.getGraphAttr());
  if (!gnn || !g)
    return job.emitError("job '")
           << job.getSymName() << "' needs a gnn model and a graph";
  if (gnn.getKind() == model::GnnKind::Gat && job.getTile())
    return job.emitError("job '")
           << job.getSymName() << "': tile sets the tiled aggregation of sage "
           << "and gcn layers; gat layers aggregate by attention (drop tile)";
  if (!g.getLabels())
    return g.emitError("graph '")
           << g.getSymName() << "' has no vertex labels, which are the "
           << "classes job '" << job.getSymName()
           << "' trains on; load it with labels: \"FILE\" (\"vertex label\" "
              "lines)";

  // --target=gpu: the kernels first (a gat job is an error there), then
  // the device; without one, an error (no silent fallback to the CPU).
  sluice_gnn_gpu_t *gpu = nullptr;
  auto closeGpu = llvm::make_scope_exit([&] { sluice_gnn_gpu_close(gpu); });
  sluice_gnn_aggregator_t aggregator{};
  if (options.gpu) {
    std::string ptx, json;
    if (failed(lowerGnnJobsToPtx(module, "sm_90", ptx, json, job.getSymName())))
      return failure();
    sluice_error_t error;
    sluice_gnn_kind_t kind = gnn.getKind() == model::GnnKind::Sage
                                 ? SLUICE_GNN_SAGE
                                 : SLUICE_GNN_GCN;
    if (sluice_gnn_gpu_open(ptx.c_str(), job.getSymName().str().c_str(), kind,
                            &gpu, &error) != SLUICE_STATUS_OK)
      return job.emitError("cannot run gnn train job '")
             << job.getSymName()
             << "' on the GPU (--target=gpu): " << error.message
             << "; --target=cpu trains on the CPU";
    sluice_gnn_gpu_aggregator(gpu, &aggregator);
  }

  GnnRunReport report;
  report.job = job.getSymName().str();
  report.model = gnn.getSymName().str();
  report.graph = g.getSymName().str();
  report.kind = model::stringifyGnnKind(gnn.getKind()).str();

  auto t0 = std::chrono::steady_clock::now();
  FailureOr<sluice_graph_t *> loaded = loadDeclaredGraph(
      g, options.quiet, options.graphCache, report.graphCache);
  if (failed(loaded))
    return failure();
  sluice_graph_t *graph = *loaded;
  auto release = llvm::make_scope_exit([&] { sluice_graph_release(graph); });
  report.loadSeconds = secondsSince(t0);
  report.vertices = sluice_graph_num_vertices(graph);
  report.edges = sluice_graph_num_edges(graph);
  std::string featurePath;
  if (auto f = job.getFeatures()) {
    featurePath = f->str();
    report.features = featurePath;
    if (auto cache = job.getFeatureCache())
      report.features += " (out of core, " + humanBytes(*cache) +
                         " host cache)";
    else
      report.features += " (in memory)";
  } else {
    report.features = "one-hot vertex ids";
  }

  std::vector<uint32_t> fanouts;
  for (int64_t f : gnn.getFanouts())
    fanouts.push_back(static_cast<uint32_t>(f));
  sluice_gnn_options_t o;
  sluice_gnn_options_init(&o);
  switch (gnn.getKind()) {
  case model::GnnKind::Sage:
    o.kind = SLUICE_GNN_SAGE;
    break;
  case model::GnnKind::Gcn:
    o.kind = SLUICE_GNN_GCN;
    break;
  case model::GnnKind::Gat:
    o.kind = SLUICE_GNN_GAT;
    break;
  }
  // The verifier keeps heads in [1, 64] (SLUICE_GNN_MAX_HEADS).
  o.heads = static_cast<uint32_t>(gnn.getHeads().value_or(1));
  report.heads = o.heads;
  o.layers = static_cast<uint32_t>(gnn.getLayers());
  o.fanouts = fanouts.data();
  auto narrow = [](uint64_t v) {
    return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
  };
  o.features = narrow(gnn.getFeatures());
  o.hidden = narrow(gnn.getHidden());
  o.classes = narrow(gnn.getClasses());
  o.batch = narrow(job.getBatch());
  o.epochs = narrow(job.getEpochs());
  o.learning_rate = static_cast<float>(job.getLr().convertToDouble());
  o.weight_decay = static_cast<float>(job.getWeightDecay().convertToDouble());
  o.dropout = static_cast<float>(job.getDropout().convertToDouble());
  if (!featurePath.empty()) {
    o.feature_path = featurePath.c_str();
    if (auto cache = job.getFeatureCache()) {
      o.feature_out_of_core = 1;
      o.feature_cache_bytes = *cache;
    }
  }
  if (auto tile = job.getTile())
    o.aggregate_tile = narrow(static_cast<uint64_t>(*tile));
  o.seed = job.getSeed();
  o.threads = options.threads
                  ? options.threads
                  : (job.getThreads() ? narrow(*job.getThreads()) : 0);
  Progress p{options.quiet ? nullptr : &progress, o.epochs, &report.epochs};
  o.on_epoch = onEpoch;
  o.user_data = &p;
  report.threads = o.threads;
  report.layers = o.layers;
  report.tile = o.aggregate_tile;
  if (gpu) {
    o.aggregator = &aggregator;
    report.gpuDevice = sluice_gnn_gpu_device_name(gpu);
  }
  sluice_error_t error;
  sluice_status_t status = sluice_gnn_train(graph, &o, &report.result, &error);
  if (gpu)
    sluice_gnn_gpu_stats(gpu, &report.gpuStats);
  if (status != SLUICE_STATUS_OK) {
    char text[2048];
    sluice_error_format(&error, text, sizeof(text));
    return job.emitError("job '") << job.getSymName() << "': " << text;
  }

  std::string output = options.out;
  if (output.empty() && job.getOutput())
    output = job.getOutput()->str();
  if (!output.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(output, ec);
    if (ec)
      return job.emitError("cannot write the report '")
             << output << "': " << ec.message();
    os << llvm::formatv("{0:2}", llvm::json::Value(toJson(report))) << "\n";
    report.output = output;
  }
  return report;
}

void sluice::target::printGnnRunReport(const GnnRunReport &r,
                                       llvm::raw_ostream &os) {
  const sluice_gnn_result_t &x = r.result;
  os << "job " << r.job << ": " << r.kind << " model '" << r.model << "'"
     << (r.kind == "gat" ? " (" + std::to_string(r.heads) + " head" +
                               (r.heads == 1 ? ")" : "s)")
                         : std::string())
     << " on graph '" << r.graph << "' (" << r.vertices << " vertices, "
     << r.edges << " arcs)\n";
  os << llvm::formatv("  features: {0}, input layer {1} (density {2:f4}); "
                      "{3} parameters\n",
                      r.features, x.input_sparse ? "sparse" : "dense",
                      x.input_density, x.parameters);
  os << "  split: " << x.train_vertices << " train, " << x.val_vertices
     << " validation, " << x.test_vertices << " test vertices\n";
  os << llvm::formatv("  {0} epochs in {1:f2} s (load {2:f3} s)\n", x.epochs,
                      x.seconds, r.loadSeconds);
  os << llvm::formatv("  test accuracy {0:f4} at the best validation epoch "
                      "{1} (validation {2:f4}); after the last epoch {3:f4}\n",
                      x.test_accuracy, x.best_epoch, x.best_val_accuracy,
                      x.final_test_accuracy);
  if (x.feature_cached_rows || x.feature_file_rows)
    os << llvm::formatv("  feature store: {0} rows cached in host memory; "
                        "{1} cache hits, {2} rows ({3:f1} MiB) read from "
                        "the file, I/O busy {4:f3} s\n",
                        x.feature_cached_rows, x.feature_cache_hits,
                        x.feature_file_rows,
                        x.feature_file_bytes / double(1 << 20),
                        x.feature_io_seconds);
  if (r.kind == "gat") {
    // Attention weighs each edge per head (runtime/src/gnn/Gat.h); the
    // tiled kernels are SAGE's and GCN's.
    os << "  aggregation tiles: none (gat layers aggregate by attention)\n";
  } else {
    os << "  aggregation tiles (" << (r.tile ? "pinned" : "auto") << ", L2 "
       << humanBytes(x.cache_l2_bytes) << "):";
    for (uint32_t l = 0; l < r.layers; ++l) {
      auto tile = [](uint32_t t) { return t ? std::to_string(t) : "-"; };
      os << (l ? "," : "") << " layer " << l + 1 << " "
         << tile(x.forward_tile[l]) << "/" << tile(x.backward_tile[l]);
    }
    os << " columns forward/backward" << (x.tile_probed ? ", probed" : "")
       << "\n";
  }
  if (!r.gpuDevice.empty()) {
    const sluice_gnn_gpu_stats_t &g = r.gpuStats;
    os << llvm::formatv(
        "  gpu: {0}, the dense layers' aggregation: {1} launches, kernels "
        "{2:f3} s, copies {3:f3} s to the device ({4:f1} MiB), {5:f3} s "
        "back ({6:f1} MiB), transposes {7:f3} s\n",
        r.gpuDevice, g.launches, g.kernel_seconds, g.upload_seconds,
        g.bytes_to_device / double(1 << 20), g.download_seconds,
        g.bytes_from_device / double(1 << 20), g.transpose_seconds);
  }
  if (!r.graphCache.empty())
    os << "  graph cache: " << r.graphCache << "\n";
  if (!r.output.empty())
    os << "  report: " << r.output << "\n";
}
