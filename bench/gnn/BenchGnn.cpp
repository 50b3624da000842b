//===- BenchGnn.cpp - Dense against sparse input layers of GNN training ---===//
//
//   sluice-bench-gnn [--vertices=N] [--degree=D] [--features=F]
//                    [--densities=0.01,0.05,...] [--epochs=E] [--threads=T]
//                    [--repeat=R] [--kind=sage|gcn]
//
// Trains the same model on the same seeded random graph and random features
// of each density, once with the input layer read dense and once sparse,
// alternating, and prints per density the median (of R) training seconds
// per epoch (sample + gather + compute of the training batches; evaluation
// excluded) of each and their ratio. Features: each value non-zero with
// probability `density`, then uniform in [-1, 1).
//
//   sluice-bench-gnn --mode=ooc [--scale=S] [--features=F] [--cache-mib=M]
//                    [--dir=DIR] [--train-permille=P] [--threads=T]
//                    [--repeat=R] [--queue-depth=Q]
//
// The out-of-core case (issue 15, item 6): an R-MAT graph of scale S
// (bench/common/Rmat.h, 8 random classes) and a raw float32 file of 2^S x F
// random features written to DIR; one epoch over P per mille of the
// vertices (SAGE, fanouts [10, 5], hidden 128, batch 1024, no evaluation),
// alternating R times between the features loaded whole (in memory) and
// read out of core through the feature store with an M MiB host cache.
// Prints per round the training time (the trainer's compute plus its
// waits for batches) of each, the ratio, the bytes read from the file, the
// engine's busy time and rate, and the share of sampling and gather hidden
// under compute; then the medians. The file is deleted at the end.
//
//===----------------------------------------------------------------------===//

#include "bench/common/Rmat.h"
#include "sluice/gnn.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Args {
  bool ooc = false;
  uint32_t scale = 22, cacheMib = 256, trainPermille = 20, queueDepth = 64;
  bool featuresGiven = false;
  std::string dir = "/tmp";
  uint32_t vertices = 20000, degree = 10, features = 256, epochs = 1;
  uint32_t threads = 0, repeat = 5;
  std::vector<double> densities = {0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5};
  sluice_gnn_kind_t kind = SLUICE_GNN_SAGE;
};

bool parseU32(const char *text, uint32_t &out) {
  char *end = nullptr;
  unsigned long v = std::strtoul(text, &end, 10);
  if (!*text || *end || v == 0 || v > UINT32_MAX)
    return false;
  out = static_cast<uint32_t>(v);
  return true;
}

bool parse(int argc, char **argv, Args &a) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *key) -> const char * {
      size_t n = std::strlen(key);
      return arg.compare(0, n, key) == 0 ? argv[i] + n : nullptr;
    };
    const char *v;
    bool ok = true;
    if ((v = value("--mode=")))
      ok = (a.ooc = std::strcmp(v, "ooc") == 0) || std::strcmp(v, "input") == 0;
    else if ((v = value("--scale=")))
      ok = parseU32(v, a.scale) && a.scale >= 10 && a.scale <= 26;
    else if ((v = value("--cache-mib=")))
      ok = parseU32(v, a.cacheMib);
    else if ((v = value("--train-permille=")))
      ok = parseU32(v, a.trainPermille) && a.trainPermille <= 1000;
    else if ((v = value("--queue-depth=")))
      ok = parseU32(v, a.queueDepth);
    else if ((v = value("--dir=")))
      a.dir = v;
    else if ((v = value("--vertices=")))
      ok = parseU32(v, a.vertices);
    else if ((v = value("--degree=")))
      ok = parseU32(v, a.degree);
    else if ((v = value("--features=")))
      ok = (a.featuresGiven = true, parseU32(v, a.features));
    else if ((v = value("--epochs=")))
      ok = parseU32(v, a.epochs);
    else if ((v = value("--threads=")))
      ok = parseU32(v, a.threads);
    else if ((v = value("--repeat=")))
      ok = parseU32(v, a.repeat);
    else if ((v = value("--kind=")))
      ok = (a.kind = std::strcmp(v, "gcn") == 0 ? SLUICE_GNN_GCN
                                                : SLUICE_GNN_SAGE,
            std::strcmp(v, "gcn") == 0 || std::strcmp(v, "sage") == 0);
    else if ((v = value("--densities="))) {
      a.densities.clear();
      std::string list = v;
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string item = list.substr(start, comma - start);
        char *end = nullptr;
        double d = std::strtod(item.c_str(), &end);
        if (item.empty() || *end || !(d > 0 && d <= 1)) {
          ok = false;
          break;
        }
        a.densities.push_back(d);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else
      ok = false;
    if (!ok) {
      std::fprintf(stderr,
                   "sluice-bench-gnn: bad argument '%s' (see the header of "
                   "bench/gnn/BenchGnn.cpp)\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

struct EpochTimes {
  double seconds = 0;
};

void onEpoch(void *user, const sluice_gnn_epoch_t *e) {
  static_cast<EpochTimes *>(user)->seconds +=
      e->sample_seconds + e->gather_seconds + e->compute_seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

struct OocRun {
  double trainSeconds = 0, waitSeconds = 0, sampleGatherSeconds = 0;
};

void onOocEpoch(void *user, const sluice_gnn_epoch_t *e) {
  auto *r = static_cast<OocRun *>(user);
  r->trainSeconds += e->compute_seconds + e->wait_seconds;
  r->waitSeconds += e->wait_seconds;
  r->sampleGatherSeconds += e->sample_seconds + e->gather_seconds;
}

int outOfCore(const Args &a) {
  const uint32_t width = a.featuresGiven ? a.features : 128;
  const uint64_t ids = uint64_t(1) << a.scale;
  std::vector<int32_t> labels(ids);
  std::mt19937_64 rng(11);
  for (auto &l : labels)
    l = static_cast<int32_t>(rng() % 8);
  std::string why;
  sluice_graph_t *graph = sluice::bench::generateRmat(a.scale, labels.data(), why);
  if (!graph) {
    std::fprintf(stderr, "sluice-bench-gnn: %s\n", why.c_str());
    return 1;
  }
  // The features file: one row per generated id (the graph's original ids).
  const std::string path = a.dir + "/sluice-bench-gnn-features.f32";
  {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) {
      std::fprintf(stderr, "sluice-bench-gnn: cannot write %s\n", path.c_str());
      return 1;
    }
    std::vector<float> row(size_t(width) * 4096);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (uint64_t r = 0; r < ids; r += 4096) {
      const size_t rows = std::min<uint64_t>(4096, ids - r);
      for (size_t i = 0; i < rows * width; ++i)
        row[i] = value(rng);
      if (std::fwrite(row.data(), sizeof(float), rows * width, f) !=
          rows * width) {
        std::fprintf(stderr, "sluice-bench-gnn: short write to %s\n",
                     path.c_str());
        std::fclose(f);
        std::remove(path.c_str());
        return 1;
      }
    }
    std::fclose(f);
  }
  const double fileMib = double(ids) * width * 4 / double(1 << 20);
  std::printf("# R-MAT scale %u: %llu vertices, %llu arcs; features %u "
              "float32 (%.0f MiB file in %s); host cache %u MiB; one epoch "
              "over %u per mille of the vertices, sage [10, 5], hidden 128, "
              "batch 1024; %u rounds\n",
              a.scale,
              static_cast<unsigned long long>(sluice_graph_num_vertices(graph)),
              static_cast<unsigned long long>(sluice_graph_num_edges(graph)),
              width, fileMib, a.dir.c_str(), a.cacheMib, a.trainPermille,
              a.repeat);
  std::printf("round\tmemory_s\tooc_s\tmemory/ooc\tread_MiB\tio_busy_s\t"
              "io_MiB/s\thidden\n");
  const uint32_t fanouts[] = {10, 5};
  std::vector<double> ratios, rates, hidden;
  for (uint32_t round = 1; round <= a.repeat; ++round) {
    OocRun runs[2];
    sluice_gnn_result_t results[2];
    for (int ooc = 0; ooc < 2; ++ooc) {
      sluice_gnn_options_t o;
      sluice_gnn_options_init(&o);
      o.layers = 2;
      o.fanouts = fanouts;
      o.features = width;
      o.hidden = 128;
      o.classes = 8;
      o.batch = 1024;
      o.epochs = 1;
      o.threads = a.threads;
      o.seed = round;
      o.train_fraction = a.trainPermille / 1000.0;
      o.val_fraction = 0.0;
      o.skip_evaluation = 1;
      o.feature_path = path.c_str();
      o.feature_out_of_core = ooc;
      o.feature_cache_bytes = uint64_t(a.cacheMib) << 20;
      o.on_epoch = onOocEpoch;
      o.user_data = &runs[ooc];
      sluice_error_t error;
      if (sluice_gnn_train(graph, &o, &results[ooc], &error) !=
          SLUICE_STATUS_OK) {
        std::fprintf(stderr, "sluice-bench-gnn: %s\n", error.message);
        std::remove(path.c_str());
        return 1;
      }
    }
    const sluice_gnn_result_t &r = results[1];
    const double readMib = double(r.feature_file_bytes) / double(1 << 20);
    const double rate = r.feature_io_seconds > 0 ? readMib / r.feature_io_seconds : 0;
    const double share =
        runs[1].sampleGatherSeconds > 0
            ? 1.0 - runs[1].waitSeconds / runs[1].sampleGatherSeconds
            : 1.0;
    const double ratio = runs[0].trainSeconds / runs[1].trainSeconds;
    ratios.push_back(ratio);
    rates.push_back(rate);
    hidden.push_back(share);
    std::printf("%u\t%.3f\t%.3f\t%.3f\t%.1f\t%.3f\t%.1f\t%.3f\n", round,
                runs[0].trainSeconds, runs[1].trainSeconds, ratio, readMib,
                r.feature_io_seconds, rate, share);
    std::fflush(stdout);
  }
  std::printf("median\t\t\t%.3f\t\t\t%.1f\t%.3f\n", median(ratios),
              median(rates), median(hidden));
  std::remove(path.c_str());
  sluice_graph_release(graph);
  return 0;
}

int main(int argc, char **argv) {
  Args a;
  if (!parse(argc, argv, a))
    return 2;
  if (a.ooc)
    return outOfCore(a);
  // A seeded random graph (each vertex `degree` random out-edges, loaded
  // undirected) and 8 random classes.
  std::mt19937_64 rng(7);
  std::vector<uint32_t> src, dst;
  for (uint32_t v = 0; v < a.vertices; ++v)
    for (uint32_t k = 0; k < a.degree; ++k) {
      src.push_back(v);
      dst.push_back(static_cast<uint32_t>(rng() % a.vertices));
    }
  std::vector<int32_t> labels(a.vertices);
  for (auto &l : labels)
    l = static_cast<int32_t>(rng() % 8);
  sluice_graph_t *graph = nullptr;
  sluice_error_t error;
  if (sluice_graph_create_from_edges(
          a.vertices, src.size(), src.data(), dst.data(), nullptr, nullptr,
          labels.data(),
          SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
              SLUICE_GRAPH_LOAD_DEDUPLICATE,
          &graph, &error) != SLUICE_STATUS_OK) {
    std::fprintf(stderr, "sluice-bench-gnn: %s\n", error.message);
    return 1;
  }
  const uint32_t fanouts[] = {10, 5};
  std::printf("# %u vertices, %llu arcs, %u features, %s 2 layers fanouts "
              "[10, 5] hidden 128, batch 512, %u epoch(s), median of %u\n",
              a.vertices,
              static_cast<unsigned long long>(sluice_graph_num_edges(graph)),
              a.features, a.kind == SLUICE_GNN_GCN ? "gcn" : "sage", a.epochs,
              a.repeat);
  std::printf("density\tdense_s\tsparse_s\tdense/sparse\n");
  std::vector<float> x(size_t(a.vertices) * a.features);
  for (double density : a.densities) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::bernoulli_distribution nonzero(density);
    for (float &f : x)
      f = nonzero(rng) ? value(rng) : 0.0f;
    std::vector<double> times[2];
    for (uint32_t r = 0; r < a.repeat; ++r)
      for (int mode = 0; mode < 2; ++mode) {
        sluice_gnn_options_t o;
        sluice_gnn_options_init(&o);
        o.kind = a.kind;
        o.layers = 2;
        o.fanouts = fanouts;
        o.features = a.features;
        o.hidden = 128;
        o.classes = 8;
        o.batch = 512;
        o.epochs = a.epochs;
        o.threads = a.threads;
        o.feature_data = x.data();
        o.input = mode == 0 ? SLUICE_GNN_INPUT_DENSE : SLUICE_GNN_INPUT_SPARSE;
        o.train_fraction = 1.0;
        o.val_fraction = 0.0;
        EpochTimes t;
        o.on_epoch = onEpoch;
        o.user_data = &t;
        if (sluice_gnn_train(graph, &o, nullptr, &error) != SLUICE_STATUS_OK) {
          std::fprintf(stderr, "sluice-bench-gnn: %s\n", error.message);
          return 1;
        }
        times[mode].push_back(t.seconds / a.epochs);
      }
    const double dense = median(times[0]), sparse = median(times[1]);
    std::printf("%g\t%.4f\t%.4f\t%.2f\n", density, dense, sparse,
                dense / sparse);
    std::fflush(stdout);
  }
  sluice_graph_release(graph);
  return 0;
}
