//===- Model.cpp - GraphSAGE, GCN and GAT layers, forward and backward ----===//

#include "runtime/src/gnn/Model.h"

#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/gnn/Aggregate.h"
#include "runtime/src/gnn/Dense.h"
#include "runtime/src/gnn/Gat.h"
#include "runtime/src/gnn/Random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace sluice::rt::gnn {

namespace {

/// Adds c * (row `r` of the sparse input) times W's rows from `rowBase` to
/// y (width out).
inline void addSparseRow(const Input &x, size_t r, float c, const float *w,
                         size_t rowBase, size_t out, float *y) {
  for (uint64_t q = x.rowStart[r]; q < x.rowStart[r + 1]; ++q) {
    const float s = c * x.value[q];
    const float *wr = w + (rowBase + x.column[q]) * out;
    for (size_t j = 0; j < out; ++j)
      y[j] += s * wr[j];
  }
}

/// Adds c * (sparse row r) outer g to the weight gradient, columns
/// [begin, end) only.
inline void scatterSparseRow(const Input &x, size_t r, float c,
                             const float *g, size_t rowBase, size_t out,
                             float *gw, size_t begin, size_t end) {
  for (uint64_t q = x.rowStart[r]; q < x.rowStart[r + 1]; ++q) {
    const float s = c * x.value[q];
    float *gr = gw + (rowBase + x.column[q]) * out;
    for (size_t j = begin; j < end; ++j)
      gr[j] += s * g[j];
  }
}

/// Runs one aggregation call `run(tile)` with the tuner's tile for layer
/// `l` (one pass without a tuner) and tells the tuner its time.
template <typename Run>
void timedAggregate(AlgoThreadPool *pool, TileTuner *tiles, uint32_t l,
                    const Block &b, size_t in, bool backward, Run run) {
  if (!tiles) {
    run(0);
    return;
  }
  AggregateShape shape;
  shape.numSrc = b.numSrc();
  shape.numDst = b.numDst;
  shape.edges = b.nbr.size();
  shape.width = in;
  shape.threads = pool ? pool->size() : 1;
  shape.backward = backward;
  const size_t tile = tiles->tileFor(l, shape);
  const auto t0 = std::chrono::steady_clock::now();
  run(tile);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  tiles->record(l, backward, seconds,
                static_cast<double>(b.numDst + b.nbr.size()) *
                    static_cast<double>(in));
}

/// Through the ReLU and the dropout of the previous layer (its outputs
/// are this layer's src rows): a value is positive exactly when it passed
/// both, and then it was scaled.
void maskThroughActivation(const std::vector<float> &h, float scale,
                           std::vector<float> &dH) {
  for (size_t i = 0; i < dH.size(); ++i)
    dH[i] = h[i] > 0.0f ? dH[i] * scale : 0.0f;
}

/// The block as the C API's view.
sluice_gnn_block_t blockView(const Block &b) {
  sluice_gnn_block_t v{};
  v.num_dst = b.numDst;
  v.num_src = b.numSrc();
  v.offsets = b.offsets.data();
  v.nbr = b.nbr.data();
  v.coef = b.coef.data();
  v.self_coef = b.selfCoef.empty() ? nullptr : b.selfCoef.data();
  return v;
}

/// Throws the aggregator's error.
void check(sluice_status_t status, const sluice_error_t &error) {
  if (status != SLUICE_STATUS_OK)
    throw AggregatorError(status, std::string("the aggregator failed: ") +
                                      error.message);
}

} // namespace

GnnModel::GnnModel(ModelShape shape, uint64_t seed)
    : modelShape(std::move(shape)) {
  const uint32_t layers = modelShape.layers();
  param.resize(layers);
  grad.resize(layers);
  m.resize(layers);
  v.resize(layers);
  for (uint32_t l = 0; l < layers; ++l) {
    const size_t rows = modelShape.weightRows(l), out = modelShape.widths[l + 1];
    param[l].assign(modelShape.paramCount(l), 0.0f);
    grad[l].assign(param[l].size(), 0.0f);
    m[l].assign(param[l].size(), 0.0f);
    v[l].assign(param[l].size(), 0.0f);
    if (modelShape.gat()) {
      // Glorot uniform per head: W_h (in x F) and a_src_h, a_dst_h (F x 1).
      const size_t in = modelShape.widths[l], f = modelShape.headWidth(l),
                   p = modelShape.projWidth(l);
      const float wLimit = std::sqrt(6.0f / static_cast<float>(in + f));
      const float aLimit = std::sqrt(6.0f / static_cast<float>(f + 1));
      Random rng(seed, Stream::Init, 0, l, 0);
      for (size_t i = 0; i < in * p; ++i)
        param[l][i] = (2.0f * rng.unit() - 1.0f) * wLimit;
      Random att(seed, Stream::Init, 0, l, 1);
      for (size_t i = in * p; i < in * p + 2 * p; ++i)
        param[l][i] = (2.0f * att.unit() - 1.0f) * aLimit;
      continue;
    }
    // Glorot uniform over the weights of each input (self and neighbour
    // halves of SAGE alike); biases start at zero.
    const float limit = std::sqrt(
        6.0f / static_cast<float>(modelShape.widths[l] + out));
    Random rng(seed, Stream::Init, 0, l, 0);
    for (size_t i = 0; i < rows * out; ++i)
      param[l][i] = (2.0f * rng.unit() - 1.0f) * limit;
  }
}

uint64_t GnnModel::parameterCount() const {
  uint64_t n = 0;
  for (const auto &p : param)
    n += p.size();
  return n;
}

void GnnModel::forward(AlgoThreadPool *pool, const MiniBatch &batch,
                       const Input &input, Activations &acts,
                       const Dropout &dropout, TileTuner *tiles) const {
  const uint32_t layers = modelShape.layers();
  const bool sage = modelShape.kind == SLUICE_GNN_SAGE;
  acts.aggregate.resize(layers);
  acts.output.resize(layers);
  if (modelShape.gat()) {
    acts.projected.resize(layers);
    acts.logit.resize(layers);
    acts.attention.resize(layers);
  }
  acts.dropoutScale = dropout.rate > 0.0f ? 1.0f / (1.0f - dropout.rate) : 1.0f;
  for (uint32_t l = 0; l < layers; ++l) {
    const Block &b = batch.blocks[l];
    const size_t in = modelShape.widths[l], out = modelShape.widths[l + 1];
    const size_t rows = modelShape.weightRows(l);
    const float *w = param[l].data();
    const float *bias = w + rows * out;
    std::vector<float> &y = acts.output[l];
    y.assign(size_t(b.numDst) * out, 0.0f);
    if (modelShape.gat()) {
      acts.aggregate[l].clear();
      const float *h = l > 0          ? acts.output[l - 1].data()
                       : input.sparse ? nullptr
                                      : input.dense.data();
      gatForward(pool, modelShape, l, b, input, h, w, acts, y.data());
    } else if (l == 0 && input.sparse) {
      acts.aggregate[l].clear();
      parallelRows(pool, b.numDst, [&](size_t begin, size_t end) {
        for (size_t d = begin; d < end; ++d) {
          float *yd = y.data() + d * out;
          std::memcpy(yd, bias, out * sizeof(float));
          addSparseRow(input, d, sage ? 1.0f : b.selfCoef[d], w, 0, out, yd);
          for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e)
            addSparseRow(input, b.nbr[e], b.coef[e], w, sage ? in : 0, out,
                         yd);
        }
      });
    } else {
      const float *h =
          l == 0 ? input.dense.data() : acts.output[l - 1].data();
      std::vector<float> &agg = acts.aggregate[l];
      agg.resize(size_t(b.numDst) * rows);
      timedAggregate(pool, tiles, l, b, in, false, [&](size_t tile) {
        if (!aggregator)
          return aggregateForward(pool, b, sage, h, in, agg.data(), tile);
        sluice_gnn_block_t view = blockView(b);
        sluice_error_t error{};
        check(aggregator->forward(aggregator->user, &view, h, uint32_t(in),
                                  agg.data(), &error),
              error);
      });
      matmul(pool, agg.data(), w, bias, y.data(), b.numDst, rows, out);
    }
    if (l + 1 < layers) {
      for (float &x : y)
        x = x > 0.0f ? x : 0.0f;
      if (dropout.rate > 0.0f) {
        Random rng(dropout.seed, Stream::Dropout,
                   static_cast<uint32_t>(l | ((dropout.key >> 32) << 4)),
                   static_cast<uint32_t>(dropout.key), 0);
        for (float &x : y)
          x = rng.unit() < dropout.rate ? 0.0f : x * acts.dropoutScale;
      }
    }
  }
}

double GnnModel::lossAndGradient(const std::vector<float> &logits,
                                 const std::vector<int32_t> &labels,
                                 uint32_t classes, std::vector<float> &dLogits,
                                 uint64_t &correct) {
  const size_t n = labels.size();
  dLogits.assign(logits.size(), 0.0f);
  double loss = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const float *z = logits.data() + i * classes;
    float *dz = dLogits.data() + i * classes;
    const size_t best = std::max_element(z, z + classes) - z;
    if (static_cast<int32_t>(best) == labels[i])
      ++correct;
    const float top = z[best];
    double sum = 0.0;
    for (uint32_t c = 0; c < classes; ++c)
      sum += std::exp(static_cast<double>(z[c] - top));
    loss += std::log(sum) - static_cast<double>(z[labels[i]] - top);
    for (uint32_t c = 0; c < classes; ++c)
      dz[c] = static_cast<float>(std::exp(static_cast<double>(z[c] - top)) /
                                 sum / static_cast<double>(n));
    dz[labels[i]] -= static_cast<float>(1.0 / static_cast<double>(n));
  }
  return n ? loss / static_cast<double>(n) : 0.0;
}

void GnnModel::backward(AlgoThreadPool *pool, const MiniBatch &batch,
                        const Input &input, const Activations &acts,
                        const std::vector<float> &dLogits, TileTuner *tiles) {
  const uint32_t layers = modelShape.layers();
  const bool sage = modelShape.kind == SLUICE_GNN_SAGE;
  for (auto &g : grad)
    std::fill(g.begin(), g.end(), 0.0f);
  dY.assign(dLogits.begin(), dLogits.end());
  for (uint32_t l = layers; l-- > 0;) {
    const Block &b = batch.blocks[l];
    const size_t in = modelShape.widths[l], out = modelShape.widths[l + 1];
    const size_t rows = modelShape.weightRows(l);
    const float *w = param[l].data();
    float *gw = grad[l].data();
    if (modelShape.gat()) {
      const float *h = l > 0          ? acts.output[l - 1].data()
                       : input.sparse ? nullptr
                                      : input.dense.data();
      if (l > 0)
        dH.assign(size_t(b.numSrc()) * in, 0.0f);
      gatBackward(pool, modelShape, l, b, input, h, w, acts, dY.data(), gw,
                  l > 0 ? dH.data() : nullptr);
      if (l == 0)
        break;
      maskThroughActivation(acts.output[l - 1], acts.dropoutScale, dH);
      dY.swap(dH);
      continue;
    }
    float *gb = gw + rows * out;
    for (size_t d = 0; d < b.numDst; ++d)
      for (size_t j = 0; j < out; ++j)
        gb[j] += dY[d * out + j];
    if (l == 0 && input.sparse) {
      // One thread: splitting the columns makes every thread walk all the
      // terms, which measured slower than one walk (docs/gnn.md).
      parallelRows(nullptr, out, [&](size_t begin, size_t end) {
        for (size_t d = 0; d < b.numDst; ++d) {
          const float *g = dY.data() + d * out;
          scatterSparseRow(input, d, sage ? 1.0f : b.selfCoef[d], g, 0, out,
                           gw, begin, end);
          for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e)
            scatterSparseRow(input, b.nbr[e], b.coef[e], g, sage ? in : 0,
                             out, gw, begin, end);
        }
      });
      break;
    }
    matmulAtB(pool, acts.aggregate[l].data(), dY.data(), gw, b.numDst, rows,
              out);
    if (l == 0)
      break;
    dA.assign(size_t(b.numDst) * rows, 0.0f);
    matmulABt(pool, dY.data(), w, dA.data(), b.numDst, rows, out);
    // Scatter the aggregate's gradient to the src rows; threads own
    // feature columns, so every value is summed in dst/edge order.
    dH.assign(size_t(b.numSrc()) * in, 0.0f);
    timedAggregate(pool, tiles, l, b, in, true, [&](size_t tile) {
      if (!aggregator)
        return aggregateBackward(pool, b, sage, dA.data(), in, dH.data(), tile);
      sluice_gnn_block_t view = blockView(b);
      sluice_error_t error{};
      check(aggregator->backward(aggregator->user, &view, dA.data(),
                                 uint32_t(in), dH.data(), &error),
            error);
    });
    maskThroughActivation(acts.output[l - 1], acts.dropoutScale, dH);
    dY.swap(dH);
  }
}

void GnnModel::adamStep(uint64_t t, float learningRate, float weightDecay) {
  const double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  const double c1 = 1.0 - std::pow(beta1, static_cast<double>(t));
  const double c2 = 1.0 - std::pow(beta2, static_cast<double>(t));
  for (size_t l = 0; l < param.size(); ++l)
    for (size_t i = 0; i < param[l].size(); ++i) {
      const float g = grad[l][i] + weightDecay * param[l][i];
      m[l][i] = static_cast<float>(beta1 * m[l][i] + (1.0 - beta1) * g);
      v[l][i] = static_cast<float>(beta2 * v[l][i] + (1.0 - beta2) * g * g);
      const double mHat = m[l][i] / c1, vHat = v[l][i] / c2;
      param[l][i] -= static_cast<float>(learningRate * mHat /
                                        (std::sqrt(vHat) + epsilon));
    }
}

} // namespace sluice::rt::gnn
