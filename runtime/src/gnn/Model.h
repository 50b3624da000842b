//===- Model.h - GraphSAGE and GCN layers, forward and backward -*- C++ -*-===//
//
// The layers of a gnn model over the blocks of a mini-batch (Sampler.h).
// Layer l reads H (block l's src rows) and writes block l's dst rows:
//
//   SAGE: out[v] = [H[v] | sum_e coef_e H[nbr_e]] W + b, W = [W_self; W_neigh]
//   GCN:  out[v] = (self_v H[v] + sum_e coef_e H[nbr_e]) W + b
//   GAT:  attention over {v} + the sampled neighbours, per head (Gat.h)
//
// with ReLU after every layer but the last, whose outputs are the logits
// of the seeds (softmax cross-entropy). The input of layer 0 is either
// dense rows or compressed sparse rows (SGCN's observation: inputs that are
// mostly zeros are cheaper to aggregate and multiply as (column, value)
// lists); the sparse path never materialises the aggregate. A layer's
// parameters are one array [W (rows x out) | b (out)], rows = 2 in (SAGE)
// or in (GCN); GAT's layout is in Gat.h. Gradients and Adam moments have
// the same layout.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_MODEL_H
#define SLUICE_RUNTIME_SRC_GNN_MODEL_H

#include "runtime/src/gnn/Sampler.h"
#include "runtime/src/gnn/TileTuner.h"
#include "sluice/gnn.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice::rt {
class AlgoThreadPool;
}

namespace sluice::rt::gnn {

/// The input features of a block's src rows.
struct Input {
  bool sparse = false;
  uint32_t width = 0;
  std::vector<float> dense;       ///< rows x width
  std::vector<uint64_t> rowStart; ///< sparse: rows + 1
  std::vector<uint32_t> column;
  std::vector<float> value;
  size_t rows() const {
    return sparse ? (rowStart.empty() ? 0 : rowStart.size() - 1)
                  : (width ? dense.size() / width : 0);
  }
};

struct ModelShape {
  sluice_gnn_kind_t kind = SLUICE_GNN_SAGE;
  std::vector<uint32_t> widths; ///< features, hidden..., classes
  uint32_t heads = 1;           ///< GAT: attention heads of every layer
  uint32_t layers() const { return static_cast<uint32_t>(widths.size() - 1); }
  bool gat() const { return kind == SLUICE_GNN_GAT; }
  size_t weightRows(uint32_t l) const {
    return (kind == SLUICE_GNN_SAGE ? 2 : 1) * size_t(widths[l]);
  }
  /// GAT: the width of one head of layer l (hidden layers concatenate the
  /// heads, the output layer averages them) and of all heads together.
  size_t headWidth(uint32_t l) const {
    return l + 1 < layers() ? widths[l + 1] / heads : widths[l + 1];
  }
  size_t projWidth(uint32_t l) const { return heads * headWidth(l); }
  size_t paramCount(uint32_t l) const {
    if (gat())
      return (size_t(widths[l]) + 2) * projWidth(l) + widths[l + 1];
    return (weightRows(l) + 1) * widths[l + 1];
  }
};

/// What a forward pass keeps for the backward pass.
struct Activations {
  std::vector<std::vector<float>> aggregate; ///< per layer, dense layers
  std::vector<std::vector<float>> output;    ///< per layer, after ReLU
  /// GAT, per layer: the projection Z (numSrc x heads F), the attention
  /// logits before the LeakyReLU and the attention ((numDst + edges) x
  /// heads: each dst's self loop, then its edges).
  std::vector<std::vector<float>> projected, logit, attention;
  float dropoutScale = 1.0f; ///< 1 / (1 - dropout) of the forward pass
};

/// Inverted dropout of the hidden layers' outputs during training: each
/// value is zeroed with probability `rate` (a Philox stream keyed by the
/// seed, the layer and `key`) and the others scaled by 1 / (1 - rate).
struct Dropout {
  float rate = 0.0f;
  uint64_t seed = 0;
  uint64_t key = 0;
};

/// What an aggregator (sluice_gnn_options_t.aggregator) returned when it
/// failed: GnnModel throws it, sluice_gnn_train returns its status and
/// message.
class AggregatorError : public std::runtime_error {
public:
  AggregatorError(sluice_status_t status, const std::string &message)
      : std::runtime_error(message), status(status) {}
  sluice_status_t status;
};

class GnnModel {
public:
  GnnModel(ModelShape shape, uint64_t seed);

  /// The dense layers' aggregation runs through `a` (null: the CPU's);
  /// its errors are thrown as AggregatorError.
  void setAggregator(const sluice_gnn_aggregator_t *a) { aggregator = a; }

  const ModelShape &shape() const { return modelShape; }
  std::vector<std::vector<float>> &params() { return param; }
  const std::vector<std::vector<float>> &params() const { return param; }
  std::vector<std::vector<float>> &grads() { return grad; }
  uint64_t parameterCount() const;

  /// Runs the layers; acts.output.back() holds the logits (seeds x classes).
  /// `tiles` picks the aggregation's tile and is told its times (null: one
  /// pass over whole rows); the tile does not change the results.
  void forward(AlgoThreadPool *pool, const MiniBatch &batch, const Input &input,
               Activations &acts, const Dropout &dropout = {},
               TileTuner *tiles = nullptr) const;
  /// Softmax cross-entropy of the logits against `labels` (one per seed):
  /// returns the mean loss, writes dLogits and counts correct argmaxes.
  static double lossAndGradient(const std::vector<float> &logits,
                                const std::vector<int32_t> &labels,
                                uint32_t classes, std::vector<float> &dLogits,
                                uint64_t &correct);
  /// Zeroes the gradients and accumulates those of the batch from dLogits.
  /// The gradients of the layers' inputs live in buffers the model keeps
  /// from batch to batch (grown to the largest batch, fully overwritten).
  void backward(AlgoThreadPool *pool, const MiniBatch &batch,
                const Input &input, const Activations &acts,
                const std::vector<float> &dLogits, TileTuner *tiles = nullptr);
  /// One Adam step (t is 1-based) with L2 weight decay on every value.
  void adamStep(uint64_t t, float learningRate, float weightDecay);

private:
  ModelShape modelShape;
  std::vector<std::vector<float>> param, grad, m, v;
  /// backward's scratch: the gradient of the current layer's output (dY),
  /// of its aggregate (dA) and of its src rows (dH).
  std::vector<float> dY, dA, dH;
  const sluice_gnn_aggregator_t *aggregator = nullptr;
};

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_MODEL_H
