//===- ModelCostWalk.cpp - Costs of model ops -----------------------------===//
#include "dialects/Model/Transforms/ModelCostWalk.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::model;

static int64_t i64(IntegerAttr a) { return a.getInt(); }

static int64_t bytesOf(Type t) {
  return static_cast<int64_t>(t.getIntOrFloatBitWidth() + 7) / 8;
}

int64_t sluice::model::dtypeBytes(TransformerOp op) {
  return bytesOf(op.getDtype());
}

BlockCost sluice::model::blockCost(Operation *op, int64_t seq,
                                   int64_t microBatch) {
  const double s = static_cast<double>(seq);
  const double b = static_cast<double>(microBatch);
  BlockCost c;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](EmbeddingOp e) {
        const int64_t h = i64(e.getHiddenAttr());
        c.params = i64(e.getVocabAttr()) * h;
        if (e.getPositionsAttr())
          c.params += i64(e.getPositionsAttr()) * h;
      })
      .Case([&](NormOp n) {
        const int64_t h = i64(n.getHiddenAttr());
        c.params = n.getKind() == NormKind::LayerNorm ? 2 * h : h;
        // The norm's input (2 bytes per element; Korthikanti et al.).
        c.actBytes = c.actBytesSelective = 2.0 * s * b * static_cast<double>(h);
      })
      .Case([&](AttentionOp a) {
        const int64_t h = i64(a.getHiddenAttr());
        const int64_t kvDim = i64(a.getKvHeadsAttr()) * a.getHeadDim();
        const int64_t weights = 2 * h * h + 2 * h * kvDim; // Q, O; K, V
        c.params = weights + (a.getBias() ? 2 * h + 2 * kvDim : 0);
        const double hd = static_cast<double>(h);
        const double heads = static_cast<double>(i64(a.getHeadsAttr()));
        // 2 FLOPs per weight per token, plus Q K^T and scores x V.
        c.fwdFlops = 2.0 * s * static_cast<double>(weights) + 4.0 * s * s * hd;
        // Korthikanti et al.: 11sbh (QKV input, Q, K, V, softmax-dropout
        // output, output-projection input, dropout mask) + 5as^2b (scores,
        // softmax output, dropout mask); selective recomputation drops the
        // latter.
        c.actBytesSelective = 11.0 * s * b * hd;
        c.actBytes = c.actBytesSelective + 5.0 * heads * s * s * b;
      })
      .Case([&](MlpOp m) {
        const int64_t h = i64(m.getHiddenAttr()), f = i64(m.getFfnAttr());
        const int64_t matrices = m.getGated() ? 3 : 2;
        const int64_t expert =
            matrices * h * f + (m.getBias() ? (matrices - 1) * f + h : 0);
        const double hd = static_cast<double>(h);
        // 19sbh: input, inner activation and its GeLU input, dropout mask.
        if (!m.isMixture()) {
          c.params = expert;
          c.fwdFlops = 2.0 * s * static_cast<double>(matrices * h * f);
          c.actBytes = c.actBytesSelective = 19.0 * s * b * hd;
          return;
        }
        // A mixture of experts: every expert's parameters and the router's;
        // each token goes through routedPerToken() experts (capacity
        // padding included) and the router; the 19sbh for each copy, the
        // router's input and its fp32 probabilities.
        const int64_t e = i64(m.getExpertsAttr());
        const double r = m.routedPerToken(), ed = static_cast<double>(e);
        c.params = expert * e + h * e;
        c.fwdFlops =
            2.0 * s * (r * static_cast<double>(matrices * h * f) + hd * ed);
        c.actBytes = c.actBytesSelective =
            (19.0 * r + 2.0) * s * b * hd + 4.0 * s * b * ed;
      })
      .Case([&](HeadOp hd) {
        const int64_t h = i64(hd.getHiddenAttr()), v = i64(hd.getVocabAttr());
        c.params = hd.getTied() ? 0 : v * h;
        c.fwdFlops = 2.0 * s * static_cast<double>(h) * static_cast<double>(v);
      });
  return c;
}

ModelTotals sluice::model::transformerCost(TransformerOp op,
                                           int64_t microBatch) {
  const int64_t seq = i64(op.getSeqAttr());
  const double sbh = static_cast<double>(seq) *
                     static_cast<double>(microBatch) *
                     static_cast<double>(i64(op.getHiddenAttr()));
  ModelTotals t;
  BlockCost total;
  for (Operation &child : op.getBody().front()) {
    if (auto layers = dyn_cast<LayersOp>(child)) {
      BlockCost layer;
      for (Operation &inner : layers.getBody().front())
        layer += blockCost(&inner, seq, microBatch);
      const int64_t n = i64(layers.getCountAttr());
      const double nd = static_cast<double>(n);
      total.params += layer.params * n;
      total.fwdFlops += layer.fwdFlops * nd;
      t.layersFwdFlops += layer.fwdFlops * nd;
      t.actBytes += layer.actBytes * nd;
      t.actBytesSelective += layer.actBytesSelective * nd;
      t.actBytesFull += 2.0 * sbh * nd; // each layer's input
      continue;
    }
    total += blockCost(&child, seq, microBatch);
  }
  t.params = total.params;
  t.fwdFlops = total.fwdFlops;
  const double n = static_cast<double>(t.params);
  const double bytes = static_cast<double>(dtypeBytes(op));
  t.paramBytes = bytes * n;
  t.gradBytes = bytes * n;
  t.optimizerBytes = 12.0 * n;
  const double s = static_cast<double>(seq);
  t.trainFlopsPerToken = 3.0 * t.fwdFlops / s;
  t.trainFlopsPerTokenRecompute = (3.0 * t.fwdFlops + t.layersFwdFlops) / s;
  t.kvCacheBytesPerToken =
      2.0 * static_cast<double>(i64(op.getLayersAttr())) *
      static_cast<double>(i64(op.getKvHeadsAttr())) *
      static_cast<double>(i64(op.getHiddenAttr()) / i64(op.getHeadsAttr())) *
      bytes;
  return t;
}

std::optional<TransformerConfig>
sluice::model::uniformConfig(TransformerOp op) {
  Block &body = op.getBody().front();
  LayersOp layers;
  NormOp finalNorm;
  EmbeddingOp embedding;
  HeadOp head;
  for (Operation &child : body) {
    if (auto l = dyn_cast<LayersOp>(child)) {
      if (layers)
        return std::nullopt;
      layers = l;
    } else if (auto n = dyn_cast<NormOp>(child)) {
      if (finalNorm || !layers)
        return std::nullopt;
      finalNorm = n;
    } else if (auto e = dyn_cast<EmbeddingOp>(child)) {
      embedding = e;
    } else if (auto h = dyn_cast<HeadOp>(child)) {
      head = h;
    }
  }
  if (!layers || !finalNorm || !embedding || !head)
    return std::nullopt;
  // One layer: norm, attention, norm, mlp.
  llvm::SmallVector<Operation *> ops;
  for (Operation &inner : layers.getBody().front())
    ops.push_back(&inner);
  if (ops.size() != 4)
    return std::nullopt;
  auto n1 = dyn_cast<NormOp>(ops[0]), n2 = dyn_cast<NormOp>(ops[2]);
  auto attn = dyn_cast<AttentionOp>(ops[1]);
  auto mlp = dyn_cast<MlpOp>(ops[3]);
  if (!n1 || !n2 || !attn || !mlp)
    return std::nullopt;
  if (n1.getKind() != n2.getKind() || n1.getKind() != finalNorm.getKind())
    return std::nullopt;
  if (attn.getBias() != mlp.getBias())
    return std::nullopt;

  TransformerConfig c;
  c.layers = i64(op.getLayersAttr());
  c.hidden = i64(op.getHiddenAttr());
  c.heads = i64(op.getHeadsAttr());
  c.kvHeads = i64(op.getKvHeadsAttr());
  c.ffn = i64(op.getFfnAttr());
  c.seq = i64(op.getSeqAttr());
  c.vocab = i64(op.getVocabAttr());
  c.dtypeBytes = dtypeBytes(op);
  c.tiedEmbeddings = head.getTied();
  c.linearBiases = attn.getBias();
  c.mlp = mlp.getGated() ? MlpKind::Gated : MlpKind::Standard;
  c.norm = n1.getKind();
  c.positions = embedding.getPositionsAttr() ? PositionKind::Learned
                                             : PositionKind::Rotary;
  if (mlp.isMixture()) {
    c.experts = i64(mlp.getExpertsAttr());
    c.topK = i64(mlp.getTopKAttr());
    c.capacityFactor = mlp.getCapacityAttr().getValueAsDouble();
  }
  if (!c.validate().empty())
    return std::nullopt;
  return c;
}

JobCosts sluice::model::jobCosts(JobOp job, TransformerOp model) {
  JobCosts c;
  c.seq = job.getSeqAttr() ? i64(job.getSeqAttr()) : i64(model.getSeqAttr());
  for (Operation &child : model.getBody().front()) {
    auto layers = dyn_cast<LayersOp>(child);
    if (!layers) {
      BlockCost b = blockCost(&child, c.seq, 1);
      c.otherParams += b.params;
      c.headFwdFlops += b.fwdFlops;
      continue;
    }
    JobLayerCosts g;
    g.count = i64(layers.getCountAttr());
    for (Operation &inner : layers.getBody().front()) {
      g.cost += blockCost(&inner, c.seq, 1);
      if (auto a = dyn_cast<AttentionOp>(inner)) {
        if (g.attentions++ == 0) {
          g.hidden = i64(a.getHiddenAttr());
          g.heads = i64(a.getHeadsAttr());
          g.kvDim = i64(a.getKvHeadsAttr()) * a.getHeadDim();
        }
      } else if (auto m = dyn_cast<MlpOp>(inner)) {
        if (g.mlps++ == 0) {
          g.ffn = i64(m.getFfnAttr());
          g.gated = m.getGated();
          if (m.isMixture()) {
            g.experts = i64(m.getExpertsAttr());
            g.topK = i64(m.getTopKAttr());
            g.capacity = m.getCapacityAttr().getValueAsDouble();
          }
        }
      }
    }
    c.params += g.cost.params * g.count;
    c.groups.push_back(g);
  }
  c.params += c.otherParams;
  const double n = static_cast<double>(c.params);
  const double bytes = static_cast<double>(dtypeBytes(model));
  c.paramBytes = bytes * n;
  c.gradBytes = bytes * n;
  // The optimizer's states (TransformerCost.h, optimizerCost); Sema has
  // checked the name. Adafactor factors each weight matrix's second
  // moments into its rows + columns.
  Optimizer opt = Optimizer::Adam;
  if (job.getOptimizer())
    if (std::optional<Optimizer> o = parseOptimizer(job.getOptimizer()->str()))
      opt = *o;
  double factored = 0;
  if (opt == Optimizer::Adafactor && n > 0) {
    double matrixParams = 0, rowsCols = 0;
    auto matrix = [&](double rows, double cols, double count) {
      matrixParams += rows * cols * count;
      rowsCols += (rows + cols) * count;
    };
    for (const JobLayerCosts &g : c.groups) {
      const double h = static_cast<double>(g.hidden),
                   kv = static_cast<double>(g.kvDim),
                   f = static_cast<double>(g.ffn),
                   k = static_cast<double>(g.count);
      matrix(h, h + 2 * kv, k * g.attentions); // qkv
      matrix(h, h, k * g.attentions);          // out
      matrix(h, f, k * g.mlps * (g.gated ? 2 : 1));
      matrix(f, h, k * g.mlps);
    }
    const double vocab = static_cast<double>(i64(model.getVocabAttr())),
                 hidden = static_cast<double>(i64(model.getHiddenAttr()));
    matrix(vocab, hidden, 1); // the embedding (a tied head shares it)
    const double vectors = std::max(0.0, n - matrixParams);
    factored = 4.0 * (rowsCols + vectors) / n;
  }
  c.updateBytes = optimizerCost(opt, factored).updateBytes;
  c.optimizerBytes = optimizerCost(opt, factored).stateBytes * n;
  c.kvCacheBytesPerToken =
      2.0 * static_cast<double>(i64(model.getLayersAttr())) *
      static_cast<double>(i64(model.getKvHeadsAttr())) *
      static_cast<double>(i64(model.getHiddenAttr()) /
                          i64(model.getHeadsAttr())) *
      bytes;
  return c;
}
