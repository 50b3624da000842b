//===- Trainer.cpp - sluice_gnn_train: mini-batch epochs ------------------===//
//
// The C entry point of GNN training (sluice/gnn.h): checks the options and
// the labels, splits the labelled vertices, and runs epochs of sample,
// gather, forward, backward and Adam over shuffled seed batches, evaluating
// on the validation and test sets after each epoch.
//
//===----------------------------------------------------------------------===//

#include "sluice/gnn.h"

#include "runtime/src/Error.h"
#include "runtime/src/features/FeatureStore.h"
#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/gnn/Model.h"
#include "runtime/src/gnn/Pipeline.h"
#include "runtime/src/gnn/Random.h"
#include "runtime/src/gnn/Sampler.h"
#include "runtime/src/gnn/Testing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <string>
#include <thread>

using namespace sluice::rt;
using namespace sluice::rt::gnn;

namespace {

std::atomic<StoreObserver> storeObserver{nullptr};

} // namespace

StoreObserver sluice::rt::gnn::setStoreObserverForTesting(StoreObserver o) {
  return storeObserver.exchange(o);
}

namespace {

constexpr uint32_t kMaxLayers = SLUICE_GNN_MAX_LAYERS;

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}

sluice_status_t invalid(sluice_error_t *error, const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, message);
}

/// A failed read of the feature store: the training fails with IO_ERROR.
struct FeatureReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Turns dense rows into compressed rows.
void compressRows(const float *rows, size_t count, uint32_t width, Input &in) {
  in.rowStart.assign(1, 0);
  in.column.clear();
  in.value.clear();
  for (size_t r = 0; r < count; ++r) {
    const float *row = rows + r * width;
    for (uint32_t c = 0; c < width; ++c)
      if (row[c] != 0.0f) {
        in.column.push_back(c);
        in.value.push_back(row[c]);
      }
    in.rowStart.push_back(in.column.size());
  }
}

/// The features of every vertex, as the input layer reads them.
struct FeatureSource {
  uint32_t width = 0;
  bool identity = false;
  const float *dense = nullptr;  ///< n x width when not identity
  /// Or the feature store, with the file row of each vertex.
  features::FeatureStore *store = nullptr;
  std::vector<uint32_t> rowOf;
  mutable std::vector<uint32_t> ids;
  mutable std::vector<float> staging;
  bool sparse = false;           ///< the input layer reads compressed rows
  double density = 1.0;
  // The whole matrix compressed, when sparse from feature_data.
  Input all;

  /// The rows of `src` from the store into `out` (src.size() x width).
  void gatherStore(const std::vector<uint32_t> &src, float *out) const {
    ids.resize(src.size());
    for (size_t i = 0; i < src.size(); ++i)
      ids[i] = rowOf[src[i]];
    // Batches larger than a ticket go in several tickets.
    const size_t perTicket = store->maxRowsPerTicket();
    for (size_t first = 0; first < ids.size(); first += perTicket) {
      const size_t n = std::min(perTicket, ids.size() - first);
      auto ticket = store->submit(ids.data() + first, n,
                                  out + first * size_t(width));
      std::string why;
      if (!store->wait(ticket, why))
        throw FeatureReadError(why);
    }
  }

  /// The input rows of `src` (block 0's src list).
  void gather(const std::vector<uint32_t> &src, Input &in) const {
    in.sparse = sparse;
    in.width = width;
    if (store) {
      if (!sparse) {
        in.dense.resize(src.size() * size_t(width));
        gatherStore(src, in.dense.data());
      } else {
        staging.resize(src.size() * size_t(width));
        gatherStore(src, staging.data());
        compressRows(staging.data(), src.size(), width, in);
      }
      return;
    }
    if (!sparse) {
      in.dense.resize(src.size() * size_t(width));
      for (size_t i = 0; i < src.size(); ++i)
        std::copy_n(dense + size_t(src[i]) * width, width,
                    in.dense.data() + i * width);
      return;
    }
    in.rowStart.assign(1, 0);
    in.column.clear();
    in.value.clear();
    for (uint32_t v : src) {
      if (identity) {
        in.column.push_back(v);
        in.value.push_back(1.0f);
      } else {
        for (uint64_t q = all.rowStart[v]; q < all.rowStart[v + 1]; ++q) {
          in.column.push_back(all.column[q]);
          in.value.push_back(all.value[q]);
        }
      }
      in.rowStart.push_back(in.column.size());
    }
  }
};

struct Split {
  std::vector<uint32_t> train, val, test;
};

class Trainer {
public:
  Trainer(const sluice_graph_t *graph, const sluice_gnn_options_t &o,
          AlgoThreadPool &pool, const FeatureSource &features,
          const int32_t *labels, Split split)
      : options(o), pool(pool), features(features), labels(labels),
        split(std::move(split)),
        sampler(sluice_graph_offsets(graph), sluice_graph_targets(graph),
                static_cast<uint32_t>(sluice_graph_num_vertices(graph)), o.kind,
                std::vector<uint32_t>(o.fanouts, o.fanouts + o.layers), o.seed),
        model(shape(o), o.seed),
        tiles(readCacheSizes(), o.aggregate_tile, o.layers) {
    model.setAggregator(o.aggregator);
  }

  static ModelShape shape(const sluice_gnn_options_t &o) {
    ModelShape s;
    s.kind = o.kind;
    s.heads = o.heads;
    s.widths.push_back(o.features);
    for (uint32_t l = 1; l < o.layers; ++l)
      s.widths.push_back(o.hidden);
    s.widths.push_back(o.classes);
    return s;
  }

  void run(sluice_gnn_result_t &result) {
    const auto start = std::chrono::steady_clock::now();
    result.best_val_accuracy = -1.0;
    for (uint32_t epoch = 1; epoch <= options.epochs; ++epoch) {
      sluice_gnn_epoch_t e = trainEpoch(epoch);
      e.val_accuracy = options.skip_evaluation ? std::nan("")
                                               : evaluate(split.val, 1);
      e.test_accuracy = options.skip_evaluation ? std::nan("")
                                                : evaluate(split.test, 2);
      e.seconds = secondsSince(epochStart);
      if (!split.val.empty() && e.val_accuracy > result.best_val_accuracy) {
        result.best_val_accuracy = e.val_accuracy;
        result.best_epoch = epoch;
        result.test_accuracy = e.test_accuracy;
      }
      result.final_test_accuracy = e.test_accuracy;
      result.final_loss = e.loss;
      result.epochs = epoch;
      if (options.on_epoch)
        options.on_epoch(options.user_data, &e);
    }
    if (split.val.empty() || options.skip_evaluation) {
      result.best_val_accuracy = std::nan("");
      result.best_epoch = result.epochs;
      result.test_accuracy = result.final_test_accuracy;
    }
    result.seconds = secondsSince(start);
    result.parameters = model.parameterCount();
    for (uint32_t l = 0; l < options.layers; ++l) {
      result.forward_tile[l] = static_cast<uint32_t>(tiles.tile(l, false));
      result.backward_tile[l] = static_cast<uint32_t>(tiles.tile(l, true));
      result.model_forward_tile[l] =
          static_cast<uint32_t>(tiles.modelChoice(l, false));
      result.model_backward_tile[l] =
          static_cast<uint32_t>(tiles.modelChoice(l, true));
      if (tiles.probed(l, false) || tiles.probed(l, true))
        result.tile_probed = 1;
    }
    result.cache_l1d_bytes = tiles.cacheSizes().l1d;
    result.cache_l2_bytes = tiles.cacheSizes().l2;
  }

private:
  sluice_gnn_epoch_t trainEpoch(uint32_t epoch) {
    epochStart = std::chrono::steady_clock::now();
    sluice_gnn_epoch_t e{};
    e.epoch = epoch;
    std::vector<uint32_t> order = split.train;
    Random rng(options.seed, Stream::Order, 0, epoch, 0);
    for (size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[rng.below(static_cast<uint32_t>(i))]);
    double lossSum = 0.0;
    uint64_t correct = 0;
    const size_t batches = (order.size() + options.batch - 1) / options.batch;
    // Sampling and gather run ahead on the pipeline's thread; the blocks
    // depend only on (epoch, batch), not on who makes them. The slots are
    // the trainer's, reused from epoch to epoch.
    BatchPipeline pipeline(
        batches, options.pipeline_depth, slots,
        [&](size_t index, BatchSlot &slot) {
          const size_t first = index * options.batch;
          const size_t count =
              std::min<size_t>(options.batch, order.size() - first);
          auto t0 = std::chrono::steady_clock::now();
          sampler.sample(order.data() + first, count,
                         static_cast<uint32_t>(Stream::Sample),
                         (uint64_t(epoch) << 32) | index, slot.batch);
          auto t1 = std::chrono::steady_clock::now();
          features.gather(slot.batch.blocks.front().src, slot.input);
          auto t2 = std::chrono::steady_clock::now();
          slot.sampleSeconds = std::chrono::duration<double>(t1 - t0).count();
          slot.gatherSeconds = std::chrono::duration<double>(t2 - t1).count();
        });
    for (size_t index = 0; index < batches; ++index) {
      double waited = 0;
      BatchSlot &slot = pipeline.next(waited);
      const MiniBatch &mb = slot.batch;
      auto t2 = std::chrono::steady_clock::now();
      const double aggregateBefore = tiles.seconds();
      model.forward(&pool, mb, slot.input, acts,
                    Dropout{options.dropout, options.seed,
                            (uint64_t(epoch) << 32) | index},
                    &tiles);
      batchLabels.clear();
      for (uint32_t v : mb.seeds)
        batchLabels.push_back(labels[v]);
      const double loss = GnnModel::lossAndGradient(
          acts.output.back(), batchLabels, options.classes, dLogits, correct);
      lossSum += loss * static_cast<double>(mb.seeds.size());
      model.backward(&pool, mb, slot.input, acts, dLogits, &tiles);
      e.aggregate_seconds += tiles.seconds() - aggregateBefore;
      model.adamStep(++step, options.learning_rate, options.weight_decay);
      auto t3 = std::chrono::steady_clock::now();
      e.sample_seconds += slot.sampleSeconds;
      e.gather_seconds += slot.gatherSeconds;
      e.compute_seconds += std::chrono::duration<double>(t3 - t2).count();
      e.wait_seconds += options.pipeline_depth
                            ? waited
                            : slot.sampleSeconds + slot.gatherSeconds;
      ++e.batches;
      e.sampled_vertices += mb.blocks.front().src.size();
      e.sampled_edges += mb.sampledEdges();
      pipeline.release();
    }
    const double n = static_cast<double>(order.size());
    e.loss = n ? lossSum / n : 0.0;
    e.train_accuracy = n ? static_cast<double>(correct) / n : 0.0;
    return e;
  }

  /// Accuracy on `set` with the training fanouts and neighbourhoods that
  /// are the same after every epoch (stream Eval, keyed by set and batch).
  double evaluate(const std::vector<uint32_t> &set, uint32_t which) {
    if (set.empty())
      return std::nan("");
    uint64_t correct = 0;
    const size_t evalBatch = std::max<size_t>(options.batch, 256);
    for (size_t first = 0, index = 0; first < set.size();
         first += evalBatch, ++index) {
      const size_t count = std::min(evalBatch, set.size() - first);
      sampler.sample(set.data() + first, count,
                     static_cast<uint32_t>(Stream::Eval),
                     (uint64_t(which) << 32) | index, batch);
      features.gather(batch.blocks.front().src, input);
      model.forward(&pool, batch, input, acts, {}, &tiles);
      batchLabels.clear();
      for (uint32_t v : batch.seeds)
        batchLabels.push_back(labels[v]);
      GnnModel::lossAndGradient(acts.output.back(), batchLabels,
                                options.classes, dLogits, correct);
    }
    return static_cast<double>(correct) / static_cast<double>(set.size());
  }

  const sluice_gnn_options_t &options;
  AlgoThreadPool &pool;
  const FeatureSource &features;
  const int32_t *labels;
  Split split;
  NeighbourSampler sampler;
  GnnModel model;
  TileTuner tiles;
  // The buffers of every batch, kept from batch to batch and epoch to
  // epoch: each grows to the largest batch and is overwritten after that
  // (no allocation, no fresh page per batch). The pipeline's slots hold the
  // training batches; batch and input the evaluation's.
  std::vector<BatchSlot> slots;
  MiniBatch batch;
  Input input;
  Activations acts;
  std::vector<int32_t> batchLabels;
  std::vector<float> dLogits;
  uint64_t step = 0;
  std::chrono::steady_clock::time_point epochStart;
};

sluice_status_t checkOptions(const sluice_graph_t *graph,
                             const sluice_gnn_options_t &o,
                             sluice_error_t *error) {
  if (!graph)
    return invalid(error, "no graph");
  const int64_t kind = enumValue(o.kind);
  if (kind != SLUICE_GNN_SAGE && kind != SLUICE_GNN_GCN &&
      kind != SLUICE_GNN_GAT)
    return invalid(error, "unknown gnn kind " + std::to_string(kind));
  if (o.heads < 1 || o.heads > SLUICE_GNN_MAX_HEADS)
    return invalid(error, "heads must be 1 to " +
                              std::to_string(SLUICE_GNN_MAX_HEADS) + ", got " +
                              std::to_string(o.heads));
  if (o.aggregator && (!o.aggregator->forward || !o.aggregator->backward))
    return invalid(error, "the aggregator has no forward or no backward");
  if (o.aggregator && kind == SLUICE_GNN_GAT)
    return invalid(error, "an aggregator serves sage and gcn layers, not gat");
  if (kind != SLUICE_GNN_GAT && o.heads != 1)
    return invalid(error, "heads " + std::to_string(o.heads) +
                              " needs kind GAT (the other kinds have none)");
  if (o.layers > 1 && o.hidden % o.heads != 0)
    return invalid(error, "hidden " + std::to_string(o.hidden) +
                              " is not a multiple of heads " +
                              std::to_string(o.heads));
  const int64_t inputMode = enumValue(o.input);
  if (inputMode < SLUICE_GNN_INPUT_AUTO || inputMode > SLUICE_GNN_INPUT_SPARSE)
    return invalid(error, "unknown input mode " + std::to_string(inputMode));
  if (o.layers < 1 || o.layers > kMaxLayers)
    return invalid(error, "layers must be 1 to " + std::to_string(kMaxLayers) +
                              ", got " + std::to_string(o.layers));
  if (!o.fanouts)
    return invalid(error, "no fanouts");
  for (uint32_t l = 0; l < o.layers; ++l)
    if (o.fanouts[l] < 1)
      return invalid(error, "fanout " + std::to_string(l + 1) +
                                " must be positive, got 0");
  if (o.features < 1 || o.hidden < 1 || o.classes < 1)
    return invalid(error, "features, hidden and classes must be positive");
  // A bound on a layer's weights before any allocation: (max(features,
  // hidden) + 2) x heads x max(hidden, classes) values (GAT's projection and
  // attention vectors; SAGE's two stacked matrices are within 2x of it).
  const double widest =
      static_cast<double>(std::max(o.features, o.hidden)) + 2.0;
  const double weights = widest * static_cast<double>(o.heads) *
                         static_cast<double>(std::max(o.hidden, o.classes));
  if (weights > 0x1p36)
    return invalid(error, "a layer's weights ((features + 2) x heads x "
                          "max(hidden, classes)) exceed 2^36 values");
  if (o.pipeline_depth > 64)
    return invalid(error, "pipeline depth must be at most 64, got " +
                              std::to_string(o.pipeline_depth));
  if (o.batch < 1 || o.epochs < 1)
    return invalid(error, "batch and epochs must be positive");
  if (!(o.learning_rate > 0.0f) || !std::isfinite(o.learning_rate))
    return invalid(error, "learning rate must be a positive number, got " +
                              formatFloat(o.learning_rate));
  if (!(o.dropout >= 0.0f && o.dropout < 1.0f))
    return invalid(error, "dropout must be in [0, 1), got " +
                              formatFloat(o.dropout));
  if (!(o.weight_decay >= 0.0f) || !std::isfinite(o.weight_decay))
    return invalid(error, "weight decay must be a non-negative number, got " +
                              formatFloat(o.weight_decay));
  if (!(o.train_fraction > 0.0 && o.train_fraction <= 1.0) ||
      !(o.val_fraction >= 0.0 && o.val_fraction < 1.0) ||
      o.train_fraction + o.val_fraction > 1.0 + 1e-12)
    return invalid(error, "the training fraction must be in (0, 1], the "
                          "validation fraction in [0, 1), and their sum at "
                          "most 1");
  const uint64_t n = sluice_graph_num_vertices(graph);
  if (n == 0 || n >= std::numeric_limits<uint32_t>::max())
    return invalid(error, "the graph has " + std::to_string(n) +
                              " vertices; gnn training takes 1 to 2^32 - 2");
  // Block edges are counted in 32 bits: at most n dst vertices per block
  // with at most min(fanout, max degree) edges each.
  const uint64_t *offsets = sluice_graph_offsets(graph);
  uint64_t maxDegree = 0;
  for (uint64_t v = 0; v < n; ++v)
    maxDegree = std::max(maxDegree, offsets[v + 1] - offsets[v]);
  for (uint32_t l = 0; l < o.layers; ++l)
    if (n * std::min<uint64_t>(o.fanouts[l], maxDegree) >=
        std::numeric_limits<uint32_t>::max())
      return invalid(error, "fanout " + std::to_string(o.fanouts[l]) +
                                " on " + std::to_string(n) +
                                " vertices may sample 2^32 edges or more in "
                                "one layer; lower it");
  if (!o.feature_data && !(o.feature_path && *o.feature_path) &&
      o.features != n)
    return invalid(error, "identity features give every vertex " +
                              std::to_string(n) + " features (one per vertex) "
                              "but the model declares " +
                              std::to_string(o.features));
  if (!sluice_graph_vertex_labels(graph))
    return invalid(error, "the graph has no vertex labels: gnn training takes "
                          "the classes from them (load the graph with a "
                          "vertex label file)");
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" {

void sluice_gnn_options_init(sluice_gnn_options_t *o) {
  if (!o)
    return;
  *o = sluice_gnn_options_t{};
  o->kind = SLUICE_GNN_SAGE;
  o->heads = 1;
  o->batch = 64;
  o->epochs = 10;
  o->learning_rate = 0.01f;
  o->weight_decay = 0.0f;
  o->seed = 1;
  o->train_fraction = 0.6;
  o->val_fraction = 0.2;
  o->input = SLUICE_GNN_INPUT_AUTO;
  o->pipeline_depth = 2;
}

sluice_status_t sluice_gnn_train(const sluice_graph_t *graph,
                                 const sluice_gnn_options_t *options,
                                 sluice_gnn_result_t *out,
                                 sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (!options)
      return invalid(error, "no options");
    const sluice_gnn_options_t &o = *options;
    if (sluice_status_t s = checkOptions(graph, o, error))
      return s;
    const uint64_t n = sluice_graph_num_vertices(graph);
    const int32_t *labels = sluice_graph_vertex_labels(graph);

    std::vector<uint32_t> labelled;
    for (uint64_t v = 0; v < n; ++v) {
      if (labels[v] == SLUICE_LABEL_NONE)
        continue;
      if (labels[v] < 0 || static_cast<uint64_t>(labels[v]) >= o.classes)
        return invalid(error,
                       "vertex " +
                           std::to_string(sluice_graph_original_id(
                               graph, static_cast<uint32_t>(v))) +
                           " has label " + std::to_string(labels[v]) +
                           " but the model has " + std::to_string(o.classes) +
                           (o.classes == 1 ? " class" : " classes") +
                           " (labels 0 to " +
                           std::to_string(o.classes - 1) + ")");
      labelled.push_back(static_cast<uint32_t>(v));
    }
    Split split;
    {
      Random rng(o.seed, Stream::Split, 0, 0, 0);
      for (size_t i = labelled.size(); i > 1; --i)
        std::swap(labelled[i - 1],
                  labelled[rng.below(static_cast<uint32_t>(i))]);
      const size_t total = labelled.size();
      const size_t train =
          static_cast<size_t>(std::llround(o.train_fraction * total));
      const size_t val = std::min(
          total - train,
          static_cast<size_t>(std::llround(o.val_fraction * total)));
      if (train == 0)
        return invalid(error, std::to_string(total) +
                                  " labelled vertices leave no training "
                                  "vertex at a training fraction of " +
                                  std::to_string(o.train_fraction));
      split.train.assign(labelled.begin(), labelled.begin() + train);
      split.val.assign(labelled.begin() + train,
                       labelled.begin() + train + val);
      split.test.assign(labelled.begin() + train + val, labelled.end());
      // Sorted sets: evaluation batches do not depend on the shuffle.
      std::sort(split.val.begin(), split.val.end());
      std::sort(split.test.begin(), split.test.end());
    }

    FeatureSource features;
    features.width = o.features;
    const bool fromFile = o.feature_path && *o.feature_path;
    features.identity = !o.feature_data && !fromFile;
    features.dense = fromFile ? nullptr : o.feature_data;
    std::unique_ptr<features::FeatureStore> store;
    const int64_t mode = enumValue(o.input);
    if (fromFile) {
      // File rows by original id; the store's cache is ranked by the
      // expected accesses of an epoch under the fanouts.
      const uint64_t base = sluice_graph_id_base(graph);
      features.rowOf.resize(n);
      uint64_t maxRow = 0;
      for (uint64_t v = 0; v < n; ++v) {
        const uint64_t row =
            sluice_graph_original_id(graph, static_cast<uint32_t>(v)) - base;
        if (row >= std::numeric_limits<uint32_t>::max())
          return invalid(error, "vertex " + std::to_string(row + base) +
                                    " has no row in a feature file (rows "
                                    "are 32-bit)");
        features.rowOf[v] = static_cast<uint32_t>(row);
        maxRow = std::max(maxRow, row);
      }
      features::FeatureLayout layout;
      std::string why;
      // A .npy file says its rows; a raw file has as many as its size
      // holds whole (else the reader says what it expected). Either needs
      // a row for every vertex id up to the largest.
      const std::string_view pathView(o.feature_path);
      const bool npy = pathView.size() >= 4 &&
                       pathView.substr(pathView.size() - 4) == ".npy";
      uint64_t rawRows = maxRow + 1;
      struct stat st;
      const uint64_t rowBytes = uint64_t(o.features) * 4;
      if (!npy && ::stat(o.feature_path, &st) == 0 && st.st_size > 0 &&
          static_cast<uint64_t>(st.st_size) % rowBytes == 0)
        rawRows = static_cast<uint64_t>(st.st_size) / rowBytes;
      if (!features::readFeatureLayout(o.feature_path,
                                       features::FeatureFormat::Auto,
                                       npy ? 0 : rawRows, o.features, layout,
                                       why))
        return invalid(error, why); // names the file
      if (layout.rows <= maxRow)
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {o.feature_path},
                    "the file has " + std::to_string(layout.rows) +
                        " rows of features but the graph has vertex " +
                        std::to_string(maxRow + base) + " (row " +
                        std::to_string(maxRow) + ")");
      // A cache this machine cannot hold is refused before anything is
      // allocated.
      const long pages = ::sysconf(_SC_PHYS_PAGES),
                 pageSize = ::sysconf(_SC_PAGE_SIZE);
      const uint64_t physical =
          pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
      const uint64_t cacheNeed =
          o.feature_out_of_core ? o.feature_cache_bytes : layout.fileSize;
      if (physical && cacheNeed > physical)
        return fail(error,
                    o.feature_out_of_core ? SLUICE_STATUS_INVALID_ARGUMENT
                                          : SLUICE_STATUS_OUT_OF_MEMORY,
                    {o.feature_path},
                    std::string(o.feature_out_of_core
                                    ? "a feature cache of "
                                    : "loading the features whole takes ") +
                        std::to_string(cacheNeed) +
                        " bytes, more than this machine's " +
                        std::to_string(physical) + " bytes of memory" +
                        (o.feature_out_of_core
                             ? ""
                             : "; read them out of core (feature_cache)"));
      features::FeatureStoreOptions so;
      so.path = o.feature_path;
      so.rows = layout.rows;
      so.dim = o.features;
      so.direct = o.feature_out_of_core != 0;
      so.hostCacheBytes = o.feature_cache_bytes;
      if (so.direct) {
        // Every training vertex is a seed once per epoch.
        std::vector<double> perVertex(n, 0.0);
        for (uint32_t s : split.train)
          perVertex[s] += 1.0;
        if (sluice_status_t st = sluice_gnn_expected_accesses(
                sluice_graph_offsets(graph), sluice_graph_targets(graph), n,
                o.fanouts, o.layers, 1, perVertex.data(), error))
          return st;
        so.expectedAccesses.assign(layout.rows, 0.0);
        for (uint64_t v = 0; v < n; ++v)
          so.expectedAccesses[features.rowOf[v]] += perVertex[v];
      }
      store = features::FeatureStore::open(so, why);
      if (!store)
        return invalid(error, why); // names the file
      features.store = store.get();
      if (StoreObserver observe = storeObserver.load())
        observe(*store);
      // Density measured on up to 4096 vertices spread over the graph.
      std::vector<uint32_t> probe;
      const uint64_t step = std::max<uint64_t>(1, n / 4096);
      for (uint64_t v = 0; v < n && probe.size() < 4096; v += step)
        probe.push_back(static_cast<uint32_t>(v));
      std::vector<float> rows(probe.size() * size_t(o.features));
      try {
        features.gatherStore(probe, rows.data());
      } catch (const FeatureReadError &e) {
        return fail(error, SLUICE_STATUS_IO_ERROR, {}, e.what());
      }
      uint64_t nonzero = 0;
      for (float x : rows)
        nonzero += x != 0.0f;
      features.density = rows.empty() ? 1.0
                                      : static_cast<double>(nonzero) /
                                            static_cast<double>(rows.size());
    } else if (features.identity) {
      features.density = 1.0 / static_cast<double>(n);
    } else {
      uint64_t nonzero = 0;
      const size_t total = size_t(n) * o.features;
      for (size_t i = 0; i < total; ++i)
        nonzero += o.feature_data[i] != 0.0f;
      features.density =
          static_cast<double>(nonzero) / static_cast<double>(total);
    }
    features.sparse =
        features.identity || mode == SLUICE_GNN_INPUT_SPARSE ||
        (mode == SLUICE_GNN_INPUT_AUTO &&
         features.density <= SLUICE_GNN_SPARSE_DENSITY);
    if (features.identity && mode == SLUICE_GNN_INPUT_DENSE)
      return invalid(error, "identity features are read sparsely; dense "
                            "input needs feature data");
    if (features.sparse && features.dense)
      compressRows(features.dense, n, o.features, features.all);

    const uint32_t threads =
        o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    AlgoThreadPool pool(threads);
    sluice_gnn_result_t result{};
    result.train_vertices = split.train.size();
    result.val_vertices = split.val.size();
    result.test_vertices = split.test.size();
    result.input_density = features.density;
    result.input_sparse = features.sparse ? 1 : 0;
    Trainer trainer(graph, o, pool, features, labels, std::move(split));
    try {
      trainer.run(result);
    } catch (const FeatureReadError &e) {
      return fail(error, SLUICE_STATUS_IO_ERROR, {}, e.what());
    } catch (const AggregatorError &e) {
      return fail(error, e.status, {}, e.what());
    }
    if (store) {
      features::FeatureStoreStats st = store->stats();
      result.feature_cache_hits = st.hostHits + st.deviceHits;
      result.feature_file_rows = st.fileRows;
      result.feature_file_bytes = st.fileBytes;
      result.feature_io_seconds = static_cast<double>(st.ioBusyNs) * 1e-9;
      result.feature_cached_rows =
          (store->hostBytes() + store->deviceBytes()) /
          (uint64_t(o.features) * 4);
    }
    if (out)
      *out = result;
    return SLUICE_STATUS_OK;
  });
}

} // extern "C"
