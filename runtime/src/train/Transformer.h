//===- Transformer.h - A small fp32 decoder-only transformer -----*- C++
//-*-===//
//
// A GPT-style decoder trained on the CPU in fp32, as a TrainModel
// (TrainModel.h) so that the offload trainer moves its per-layer state like
// the MLP's. Its layers, in the trainer's sense:
//
//   layer 0          token embedding (vocab x d) + learned positions
//                    (seq x d); its saved input is the batch's token ids
//                    (stored as floats: exact below 2^24)
//   layers 1..N      pre-norm blocks: x + Attn(LN1(x)), then
//                    x + MLP(LN2(x)); causal multi-head self-attention
//                    (fused QKV projection, softmax, output projection),
//                    MLP d -> ffn -> d with tanh-GELU; saved input x
//   layer N+1        final LayerNorm, a separate (untied) LM head d ->
//                    vocab, softmax cross-entropy averaged over batch*seq
//                    positions; saved input x
//
// A tied head would share the embedding's parameters across two layers,
// which the per-layer schedule cannot express; the head is separate.
//
// Saved activations are the layers' inputs (activation checkpointing per
// layer): a block's and the head's backward recompute their forward
// internals from the saved input with the same kernels, so the result is
// bit-identical to keeping them. Every kernel is a single-threaded loop
// with a fixed summation order (the linear layers are Mlp.h's kernels).
//
// The task: every sequence is a random prefix of seq/2 tokens repeated
// (copying needs attention), next-token targets; the loss goes from about
// ln(vocab) towards ln(vocab)/2 as the model learns to copy.
//
// Parameter layouts (floats, in this order):
//   embedding: tok[vocab][d] | pos[seq][d]
//   block:     ln1.g[d] ln1.b[d] | Wqkv[d][3d] bqkv[3d] | Wo[d][d] bo[d] |
//              ln2.g[d] ln2.b[d] | W1[d][ffn] b1[ffn] | W2[ffn][d] b2[d]
//   head:      lnf.g[d] lnf.b[d] | Wout[d][vocab] bout[vocab]
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_TRANSFORMER_H
#define SLUICE_RUNTIME_SRC_TRAIN_TRANSFORMER_H

#include "runtime/src/train/TrainModel.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::train {

struct TransformerConfig {
  uint32_t vocab = 16;
  uint32_t seq = 16; ///< context length (positions)
  uint32_t dModel = 32;
  uint32_t heads = 4; ///< divides dModel
  uint32_t ffn = 0;   ///< MLP width; 0 means 4 * dModel
  uint32_t blocks = 2;
  uint32_t batch = 4; ///< sequences per step
  AdamParams adam{3e-3f, 0.9f, 0.999f, 1e-8f};
  uint64_t seed = 1;

  uint32_t ffnWidth() const { return ffn ? ffn : 4 * dModel; }
  uint32_t headDim() const { return heads ? dModel / heads : 0; }
  /// Token positions per step (batch * seq).
  size_t rows() const { return size_t(batch) * seq; }
  /// blocks + 2: the embedding, the blocks, the head.
  uint32_t layers() const { return blocks + 2; }
  size_t paramCount(uint32_t layer) const;
  size_t activationCount(uint32_t layer) const;
  /// "" or what is wrong ("heads 3 do not divide d_model 32").
  std::string check() const;
};

/// Offsets of a block's parameters (TransformerConfig's layout).
struct BlockLayout {
  explicit BlockLayout(const TransformerConfig &c);
  size_t ln1g, ln1b, qkv, proj, ln2g, ln2b, fc1, fc2, total;
};

/// A block's forward internals, kept for its backward.
struct BlockScratch {
  std::vector<float> h1, xhat1, rstd1, qkv, probs, att, x2, h2, xhat2, rstd2, f,
      a;
  /// Backward temporaries (dprobs, dscores: one head's T x T).
  std::vector<float> dqkv, datt, dx2, dh, df, da, dprobs, dscores;
};

/// The head's forward internals.
struct HeadScratch {
  std::vector<float> h, xhat, rstd, logits, dlogits, dh;
};

// Kernels (rows = batch * seq; x and outputs are rows x d). Every GEMM
// (the QKV, attention-output, MLP and head projections, forward and
// backward, and each (sequence, head)'s attention products: the scores
// Q K^T, P V, and in the backward dO V^T, P^T dO, dS K, dS^T Q) goes
// through the guard (Abft.h): checked unless it is off, faults injected
// when it says so. False (with `fault`, naming the GEMM) when a checked
// GEMM is still wrong.
void embeddingForward(const TransformerConfig &c, const float *param,
                      const float *tokens, float *out);
void embeddingBackward(const TransformerConfig &c, const float *tokens,
                       const float *dOut, float *grad);
bool blockForward(const TransformerConfig &c, const float *param,
                  const float *x, BlockScratch &s, float *out, AbftGuard &guard,
                  AbftFault &fault);
/// After blockForward(param, x, s): writes grad and dX (which may alias
/// dOut); what it needs of x is in s.
bool blockBackward(const TransformerConfig &c, const float *param,
                   BlockScratch &s, const float *dOut, float *grad, float *dX,
                   AbftGuard &guard, AbftFault &fault);
/// loss = the mean cross-entropy of the next-token targets; s.dlogits =
/// dLoss/dlogits.
bool headForward(const TransformerConfig &c, const float *param, const float *x,
                 const uint32_t *targets, HeadScratch &s, float &loss,
                 AbftGuard &guard, AbftFault &fault);
/// After headForward(param, x, ...): writes grad and dX.
bool headBackward(const TransformerConfig &c, const float *param,
                  HeadScratch &s, float *grad, float *dX, AbftGuard &guard,
                  AbftFault &fault);

/// The tokens of step `step` (1-based): batch sequences of seq + 1 tokens,
/// each a random prefix of max(1, seq / 2) tokens repeated; a function of
/// (seed, step) only. Inputs are tokens [0, seq), targets [1, seq].
void makeSequences(const TransformerConfig &c, uint64_t step,
                   std::vector<uint32_t> &inputs,
                   std::vector<uint32_t> &targets);

class TransformerModel final : public TrainModel {
public:
  explicit TransformerModel(const TransformerConfig &config) : config(config) {}
  std::unique_ptr<TrainModel> clone() const override {
    return std::make_unique<TransformerModel>(config);
  }
  const char *kind() const override { return "transformer"; }
  std::string check() const override { return config.check(); }
  uint32_t layers() const override { return config.layers(); }
  size_t paramCount(uint32_t layer) const override {
    return config.paramCount(layer);
  }
  size_t activationCount(uint32_t layer) const override {
    return config.activationCount(layer);
  }
  AdamParams adam() const override { return config.adam; }
  void initParams(uint32_t layer, float *param) const override;
  void beginStep(uint64_t step, float *input) override;
  bool forward(uint32_t layer, const float *param, const float *act,
               float *next, AbftGuard &guard, AbftFault &fault) override;
  float loss() const override { return stepLoss; }
  bool backward(uint32_t layer, const float *param, const float *act,
                float *grad, AbftGuard &guard, AbftFault &fault) override;

  const TransformerConfig &transformer() const { return config; }

private:
  /// False (with `fault`) when a saved token id is not a token.
  bool tokensValid(const float *tokens, AbftFault &fault) const;

  TransformerConfig config;
  std::vector<uint32_t> inputs, targets;
  BlockScratch block;
  HeadScratch head;
  std::vector<float> out, dH, dX; // rows x d
  float stepLoss = 0;
};

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_TRANSFORMER_H
