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
//===----------------------------------------------------------------------===//

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
    if ((v = value("--vertices=")))
      ok = parseU32(v, a.vertices);
    else if ((v = value("--degree=")))
      ok = parseU32(v, a.degree);
    else if ((v = value("--features=")))
      ok = parseU32(v, a.features);
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

int main(int argc, char **argv) {
  Args a;
  if (!parse(argc, argv, a))
    return 2;
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
