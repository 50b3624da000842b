//===- BenchGnnTile.cpp - Tiled GNN aggregation: fixed tiles against auto -===//
//
//   sluice-bench-gnn-tile [--graph=FILE | --rmat=S] [--widths=64,256]
//                         [--fanouts=10,10] [--batch=N] [--batches=B]
//                         [--tiles=1,4,16,...] [--threads=T] [--repeat=R]
//                         [--kind=sage|gcn] [--seed=X]
//
// The neighbour aggregation of GNN training (runtime/src/gnn/Aggregate.h),
// forward and backward, over real sampled blocks: B mini-batches of N seeds
// drawn at random (seeded) from the graph's vertices, sampled with the
// trainer's sampler (fanouts, input layer first), kept in memory. Every
// layer's block is aggregated at each feature width W (random rows), as one
// "epoch" of B batches: the forward aggregation of every layer and the
// backward scatter of every layer but the input one, as the trainer runs
// them. Configurations: each fixed tile of the sweep (whole cache lines from
// 16 columns up, plus 1 and 4, and W: one pass) and `auto`, the trainer's
// TileTuner started fresh for each round and run for two epochs as in
// training: the first (its probe on the first batches included) is
// reported apart, the second (the tiles chosen) is `auto`. Rounds
// alternate the configurations (rotating which goes first); per
// configuration the median of R epochs, and the minimum (on a shared
// machine, the least disturbed epoch). Prints per width a row per
// configuration (forward, backward and total ms an epoch, the minimum
// total), the tiles auto ended with and the model's, and auto against the
// best fixed tile by medians and by minima.
//
// --graph loads a SNAP / edge-list file (gzip allowed) as a simple
// undirected graph; --rmat generates bench/common/Rmat.h's R-MAT graph.
//
//===----------------------------------------------------------------------===//

#include "bench/common/Rmat.h"
#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/gnn/Aggregate.h"
#include "runtime/src/gnn/Random.h"
#include "runtime/src/gnn/Sampler.h"
#include "runtime/src/gnn/TileTuner.h"
#include "sluice/graph.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace sluice::rt;
using namespace sluice::rt::gnn;

namespace {

struct Args {
  std::string graph;
  uint32_t rmat = 0;
  std::vector<uint32_t> widths = {64, 256};
  std::vector<uint32_t> fanouts = {10, 10};
  std::vector<uint32_t> tiles;
  uint32_t batch = 512, batches = 32, threads = 2, repeat = 5, seed = 1;
  sluice_gnn_kind_t kind = SLUICE_GNN_SAGE;
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "sluice-bench-gnn-tile: %s\n", message.c_str());
  std::exit(1);
}

bool parseU32(const char *text, uint32_t &out) {
  char *end = nullptr;
  unsigned long v = std::strtoul(text, &end, 10);
  if (!*text || *end || v == 0 || v > UINT32_MAX)
    return false;
  out = static_cast<uint32_t>(v);
  return true;
}

bool parseList(const char *text, std::vector<uint32_t> &out) {
  out.clear();
  std::string s = text;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string item = s.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    uint32_t v;
    if (!parseU32(item.c_str(), v))
      return false;
    out.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return !out.empty();
}

Args parse(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *key) -> const char * {
      size_t n = std::strlen(key);
      return arg.compare(0, n, key) == 0 ? argv[i] + n : nullptr;
    };
    const char *v;
    bool ok = true;
    if ((v = value("--graph=")))
      a.graph = v;
    else if ((v = value("--rmat=")))
      ok = parseU32(v, a.rmat) && a.rmat >= 8 && a.rmat <= 24;
    else if ((v = value("--widths=")))
      ok = parseList(v, a.widths);
    else if ((v = value("--fanouts=")))
      ok = parseList(v, a.fanouts) && a.fanouts.size() <= 8;
    else if ((v = value("--tiles=")))
      ok = parseList(v, a.tiles);
    else if ((v = value("--batch=")))
      ok = parseU32(v, a.batch);
    else if ((v = value("--batches=")))
      ok = parseU32(v, a.batches);
    else if ((v = value("--threads=")))
      ok = parseU32(v, a.threads) && a.threads <= 256;
    else if ((v = value("--repeat=")))
      ok = parseU32(v, a.repeat);
    else if ((v = value("--seed=")))
      ok = parseU32(v, a.seed);
    else if ((v = value("--kind=")))
      ok = (std::strcmp(v, "gcn") == 0 && (a.kind = SLUICE_GNN_GCN, true)) ||
           std::strcmp(v, "sage") == 0;
    else
      ok = false;
    if (!ok)
      die("bad argument '" + arg + "' (see the header of BenchGnnTile.cpp)");
  }
  if (a.graph.empty() == (a.rmat == 0))
    die("give one of --graph=FILE and --rmat=S");
  return a;
}

struct GraphDeleter {
  void operator()(sluice_graph_t *g) const { sluice_graph_release(g); }
};
using GraphPtr = std::unique_ptr<sluice_graph_t, GraphDeleter>;

GraphPtr loadGraph(const Args &a) {
  sluice_graph_t *g = nullptr;
  if (a.rmat) {
    std::string error;
    g = sluice::bench::generateRmat(a.rmat, nullptr, error);
    if (!g)
      die("rmat: " + error);
    return GraphPtr(g);
  }
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.format = SLUICE_GRAPH_FORMAT_SNAP;
  o.flags = SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
            SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS;
  sluice_error_t error;
  if (sluice_graph_load(a.graph.c_str(), &o, &g, &error) != SLUICE_STATUS_OK) {
    char text[2048];
    sluice_error_format(&error, text, sizeof(text));
    die(text);
  }
  return GraphPtr(g);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double minimum(const std::vector<double> &v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

struct EpochTime {
  double forward = 0, backward = 0;
};

/// One epoch of aggregation over `batches` at width `width`: tile > 0
/// fixed, 0 through `tuner`.
EpochTime runEpoch(AlgoThreadPool &pool, const std::vector<MiniBatch> &batches,
                   bool sage, size_t width, size_t tile, TileTuner *tuner,
                   const std::vector<float> &h, std::vector<float> &agg,
                   std::vector<float> &dA, std::vector<float> &dH) {
  EpochTime t;
  for (const MiniBatch &mb : batches)
    for (size_t l = 0; l < mb.blocks.size(); ++l) {
      const Block &b = mb.blocks[l];
      AggregateShape shape;
      shape.numSrc = b.numSrc();
      shape.numDst = b.numDst;
      shape.edges = b.nbr.size();
      shape.width = width;
      shape.threads = pool.size();
      const double work = static_cast<double>(b.numDst + b.nbr.size()) *
                          static_cast<double>(width);
      for (bool backward : {false, true}) {
        if (backward && l == 0)
          continue; // the trainer never scatters into the input rows
        shape.backward = backward;
        const size_t use = tuner ? tuner->tileFor(l, shape) : tile;
        if (backward)
          std::fill(dH.begin(), dH.begin() + shape.numSrc * width, 0.0f);
        const auto t0 = std::chrono::steady_clock::now();
        if (backward)
          aggregateBackward(&pool, b, sage, dA.data(), width, dH.data(), use);
        else
          aggregateForward(&pool, b, sage, h.data(), width, agg.data(), use);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                .count();
        if (tuner)
          tuner->record(l, backward, s, work);
        (backward ? t.backward : t.forward) += s;
      }
    }
  return t;
}

} // namespace

int main(int argc, char **argv) {
  const Args a = parse(argc, argv);
  GraphPtr graph = loadGraph(a);
  const uint32_t n =
      static_cast<uint32_t>(sluice_graph_num_vertices(graph.get()));
  NeighbourSampler sampler(sluice_graph_offsets(graph.get()),
                           sluice_graph_targets(graph.get()), n, a.kind,
                           a.fanouts, a.seed);
  std::vector<MiniBatch> batches(a.batches);
  Random rng(a.seed, Stream::Order, 0, 0, 0);
  std::vector<uint32_t> order(n);
  for (uint32_t v = 0; v < n; ++v)
    order[v] = v;
  for (size_t i = n; i > 1; --i)
    std::swap(order[i - 1], order[rng.below(static_cast<uint32_t>(i))]);
  size_t maxSrc = 0, maxDst = 0;
  double edges = 0, srcRows = 0;
  for (uint32_t i = 0; i < a.batches; ++i) {
    const size_t first = (size_t(i) * a.batch) % n;
    const size_t count = std::min<size_t>(a.batch, n - first);
    sampler.sample(order.data() + first, count, 1, i, batches[i]);
    for (const Block &b : batches[i].blocks) {
      maxSrc = std::max<size_t>(maxSrc, b.numSrc());
      maxDst = std::max<size_t>(maxDst, b.numDst);
      edges += b.nbr.size();
    }
    srcRows += batches[i].blocks.front().numSrc();
  }
  const CacheSizes cache = readCacheSizes();
  std::printf("# graph %s: %u vertices, %llu arcs; %s, fanouts",
              a.rmat ? ("rmat scale " + std::to_string(a.rmat)).c_str()
                     : a.graph.c_str(),
              n, (unsigned long long)sluice_graph_num_edges(graph.get()),
              a.kind == SLUICE_GNN_GCN ? "gcn" : "sage");
  for (uint32_t f : a.fanouts)
    std::printf(" %u", f);
  std::printf(", %u batches of %u seeds: %.0f input rows, %.0f edges a "
              "batch; %u threads; L1d %llu KiB, L2 %llu KiB; median of %u\n",
              a.batches, a.batch, srcRows / a.batches, edges / a.batches,
              a.threads, (unsigned long long)(cache.l1d >> 10),
              (unsigned long long)(cache.l2 >> 10), a.repeat);
  AlgoThreadPool pool(a.threads);
  const bool sage = a.kind == SLUICE_GNN_SAGE;
  for (uint32_t width : a.widths) {
    std::vector<uint32_t> tiles = a.tiles;
    if (tiles.empty()) {
      tiles = {1, 4};
      for (uint32_t t = 16; t < width; t *= 2)
        tiles.push_back(t);
      tiles.push_back(width);
    }
    tiles.erase(std::remove_if(tiles.begin(), tiles.end(),
                               [&](uint32_t t) { return t > width; }),
                tiles.end());
    const size_t rows = (sage ? 2 : 1) * size_t(width);
    std::vector<float> h(maxSrc * width), agg(maxDst * rows), dA(maxDst * rows),
        dH(maxSrc * width);
    Random x(a.seed, Stream::Split, width, 0, 0);
    for (float &f : h)
      f = 2.0f * x.unit() - 1.0f;
    for (float &f : dA)
      f = 2.0f * x.unit() - 1.0f;
    const size_t configs = tiles.size() + 1; // the last: auto
    std::vector<std::vector<double>> fwd(configs), bwd(configs), tot(configs);
    std::vector<size_t> autoTiles;
    std::vector<double> probing;
    for (uint32_t round = 0; round < a.repeat; ++round)
      for (size_t k = 0; k < configs; ++k) {
        const size_t c = (k + round) % configs;
        EpochTime t;
        if (c == tiles.size()) {
          // Two epochs with one tuner, as in training: the first probes.
          TileTuner tuner(cache, 0, a.fanouts.size());
          EpochTime first =
              runEpoch(pool, batches, sage, width, 0, &tuner, h, agg, dA, dH);
          probing.push_back((first.forward + first.backward) * 1e3);
          t = runEpoch(pool, batches, sage, width, 0, &tuner, h, agg, dA, dH);
          autoTiles.clear();
          for (size_t l = 0; l < a.fanouts.size(); ++l) {
            autoTiles.push_back(tuner.tile(l, false));
            autoTiles.push_back(tuner.tile(l, true));
            autoTiles.push_back(tuner.modelChoice(l, false));
            autoTiles.push_back(tuner.modelChoice(l, true));
          }
        } else {
          t = runEpoch(pool, batches, sage, width, tiles[c], nullptr, h, agg,
                       dA, dH);
        }
        fwd[c].push_back(t.forward * 1e3);
        bwd[c].push_back(t.backward * 1e3);
        tot[c].push_back((t.forward + t.backward) * 1e3);
      }
    std::printf("width %u\ntile\tforward_ms\tbackward_ms\ttotal_ms\t"
                "min_total_ms\n",
                width);
    size_t best = 0, bestMin = 0;
    for (size_t c = 0; c < configs; ++c) {
      if (c < tiles.size() && median(tot[c]) < median(tot[best]))
        best = c;
      if (c < tiles.size() && minimum(tot[c]) < minimum(tot[bestMin]))
        bestMin = c;
      std::printf("%s\t%.2f\t%.2f\t%.2f\t%.2f\n",
                  c == tiles.size() ? "auto" : std::to_string(tiles[c]).c_str(),
                  median(fwd[c]), median(bwd[c]), median(tot[c]),
                  minimum(tot[c]));
    }
    std::printf("auto, first epoch (probing)\t\t\t%.2f\n", median(probing));
    std::printf("auto ended with (layer: forward/backward, the model's in "
                "parentheses):");
    for (size_t l = 0; l < a.fanouts.size(); ++l)
      std::printf(" %zu: %zu/%zu (%zu/%zu)", l + 1, autoTiles[4 * l],
                  autoTiles[4 * l + 1], autoTiles[4 * l + 2],
                  autoTiles[4 * l + 3]);
    std::printf("\nbest fixed tile %u: %.2f ms; auto %.2f ms = %.3fx the "
                "best (first epoch %.3fx)\n",
                tiles[best], median(tot[best]), median(tot.back()),
                median(tot.back()) / median(tot[best]),
                median(probing) / median(tot[best]));
    std::printf("minima: best fixed tile %u: %.2f ms; auto %.2f ms = %.3fx "
                "the best\n",
                tiles[bestMin], minimum(tot[bestMin]), minimum(tot.back()),
                minimum(tot.back()) / minimum(tot[bestMin]));
  }
  return 0;
}
