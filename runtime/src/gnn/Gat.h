//===- Gat.h - Graph attention layers, forward and backward -----*- C++ -*-===//
//
// Velickovic et al.'s GAT layer (ICLR 2018) over a block (Sampler.h), with
// H heads of width F: for every src row j and head h the projection
// Z[j, h] = X[j] W_h, the scores s_src[j, h] = a_src_h . Z[j, h] and
// s_dst[i, h] = a_dst_h . Z[i, h]; for every dst row i and each member j
// of its neighbourhood N(i) = {i} + its sampled in-block edges (the self
// loop first, then the edges in block order)
//
//   e_ij = LeakyReLU_0.2(s_src[j, h] + s_dst[i, h])
//   alpha_ij = exp(e_ij) / sum_{k in N(i)} exp(e_ik)
//   O[i, h] = sum_{j in N(i)} alpha_ij Z[j, h]
//
// A hidden layer concatenates the heads (F = out / H) and adds the bias,
// the output layer averages them (F = out): y[i] = mean_h O[i, h] + b.
// The block's edge coefficients are not used (attention replaces them).
// Parameters, one array: [W (in x H F) | a_src (H F) | a_dst (H F) | b
// (out)]. Every value is summed in one fixed order for any thread count:
// rows are split over threads, the scatters to src rows over columns (or
// run on one thread).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_GAT_H
#define SLUICE_RUNTIME_SRC_GNN_GAT_H

#include "runtime/src/gnn/Model.h"

namespace sluice::rt::gnn {

/// The negative slope of the attention logits' LeakyReLU.
inline constexpr float kGatSlope = 0.2f;

/// Layer `l` forward: X is the sparse input (l == 0 and input.sparse) or
/// the dense rows `h` (numSrc x in). Writes y (numDst x out, before the
/// activation) and keeps Z, the logits before the LeakyReLU and the
/// attention in acts (projected, logit, attention)[l].
void gatForward(AlgoThreadPool *pool, const ModelShape &shape, uint32_t l,
                const Block &b, const Input &input, const float *h,
                const float *param, Activations &acts, float *y);

/// Layer `l` backward from dY (numDst x out): adds the parameters'
/// gradients to `grad` and, when dH is not null, writes the gradient of
/// the dense src rows `h` into dH (numSrc x in).
void gatBackward(AlgoThreadPool *pool, const ModelShape &shape, uint32_t l,
                 const Block &b, const Input &input, const float *h,
                 const float *param, const Activations &acts, const float *dY,
                 float *grad, float *dH);

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_GAT_H
