//===- Transformer.cpp - A small fp32 decoder-only transformer ------------===//
#include "runtime/src/train/Transformer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace sluice::train;

namespace {

constexpr float kLnEps = 1e-5f;
constexpr float kGeluC = 0.7978845608028654f; // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;

float gelu(float x) {
  return 0.5f * x * (1.0f + std::tanh(kGeluC * (x + kGeluA * x * x * x)));
}

float geluGrad(float x) {
  const float t = std::tanh(kGeluC * (x + kGeluA * x * x * x));
  return 0.5f * (1.0f + t) +
         0.5f * x * (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * x * x);
}

/// y = LN(x) * g + b over rows of d; keeps xhat and 1/std.
void layerNormForward(size_t rows, uint32_t d, const float *x, const float *g,
                      const float *b, float *y, float *xhat, float *rstd) {
  for (size_t r = 0; r < rows; ++r) {
    const float *xr = x + r * d;
    float mean = 0;
    for (uint32_t i = 0; i < d; ++i)
      mean += xr[i];
    mean /= static_cast<float>(d);
    float var = 0;
    for (uint32_t i = 0; i < d; ++i)
      var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<float>(d);
    const float rs = 1.0f / std::sqrt(var + kLnEps);
    rstd[r] = rs;
    for (uint32_t i = 0; i < d; ++i) {
      const float xh = (xr[i] - mean) * rs;
      xhat[r * d + i] = xh;
      y[r * d + i] = xh * g[i] + b[i];
    }
  }
}

/// Writes dg, db (zeroed first) and dx (+= when accumulate).
void layerNormBackward(size_t rows, uint32_t d, const float *xhat,
                       const float *rstd, const float *g, const float *dy,
                       float *dg, float *db, float *dx, bool accumulate) {
  std::memset(dg, 0, sizeof(float) * d);
  std::memset(db, 0, sizeof(float) * d);
  for (size_t r = 0; r < rows; ++r) {
    const float *xh = xhat + r * d, *dyr = dy + r * d;
    float sumD = 0, sumDX = 0;
    for (uint32_t i = 0; i < d; ++i) {
      const float dxh = dyr[i] * g[i];
      sumD += dxh;
      sumDX += dxh * xh[i];
      dg[i] += dyr[i] * xh[i];
      db[i] += dyr[i];
    }
    const float meanD = sumD / static_cast<float>(d);
    const float meanDX = sumDX / static_cast<float>(d);
    for (uint32_t i = 0; i < d; ++i) {
      const float v = rstd[r] * (dyr[i] * g[i] - meanD - xh[i] * meanDX);
      dx[r * d + i] = accumulate ? dx[r * d + i] + v : v;
    }
  }
}

/// Prefixes a failed check's finding with the GEMM it was in.
bool named(bool ok, AbftFault &fault, const std::string &gemm) {
  if (!ok)
    fault.where = gemm + ": " + fault.where;
  return ok;
}

/// y = x W + b (rows x in times [W | b]), checked by the guard.
bool linear(size_t rows, uint32_t in, uint32_t out, const float *param,
            const float *x, float *y, AbftGuard &g, AbftFault &fault,
            const char *gemm) {
  return named(g.forward(in, out, static_cast<uint32_t>(rows), param, x, y,
                         /*relu=*/false, fault),
               fault, gemm);
}

/// Gradient of [W | b] (overwritten) and, when dX is given, dX = dY W^T,
/// checked by the guard.
bool linearBackward(size_t rows, uint32_t in, uint32_t out, const float *param,
                    const float *x, const float *dY, float *grad, float *dX,
                    AbftGuard &g, AbftFault &fault, const char *gemm) {
  return named(g.linearBackward(in, out, static_cast<uint32_t>(rows), param, x,
                                dY, grad, dX, fault),
               fault, gemm);
}

/// Where sequence b, head h of a block's attention lives: Q, K, V are
/// T x hd with row stride 3d, the output T x hd with row stride d, the
/// probabilities T x T (zero above the diagonal).
struct HeadView {
  HeadView(const TransformerConfig &c, BlockScratch &s, uint32_t b, uint32_t h)
      : d(c.dModel), hd(c.headDim()), T(c.seq),
        scale(1.0f / std::sqrt(static_cast<float>(c.headDim()))), b(b), h(h) {
    const size_t row0 = size_t(b) * T;
    q = s.qkv.data() + row0 * 3 * d + h * hd;
    dq = s.dqkv.data() + row0 * 3 * d + h * hd;
    o = s.att.data() + row0 * d + h * hd;
    dO = s.datt.data() + row0 * d + h * hd;
    P = s.probs.data() + (size_t(b) * c.heads + h) * T * T;
  }
  const float *k() const { return q + d; }
  const float *v() const { return q + 2 * d; }
  /// A T x hd view of Q, K or V (or of their gradients), row stride 3d.
  MatrixView rows3d(const float *p) const { return {p, 3 * size_t(d), 1}; }
  /// Its transpose (hd x T).
  MatrixView cols3d(const float *p) const { return {p, 1, 3 * size_t(d)}; }

  /// Prefixes a failed check's finding with the head (built only then).
  bool named(bool ok, AbftFault &fault) const {
    return ok || ::named(false, fault,
                         "attention of sequence " + std::to_string(b) +
                             ", head " + std::to_string(h));
  }

  uint32_t d, hd, T;
  float scale;
  uint32_t b, h;
  const float *q, *dO;
  float *dq, *o, *P;
};

/// A T x T (or T x hd) product of one head, the caller filling a, b, c.
Product headProduct(const HeadView &v, size_t cols, size_t inner, size_t ldc,
                    size_t terms, const char *what) {
  Product p;
  p.rows = v.T;
  p.cols = cols;
  p.inner = inner;
  p.ldc = ldc;
  p.terms = terms;
  p.what = what;
  return p;
}

/// Causal softmax attention of one (sequence, head): S = Q K^T scale on
/// the lower triangle, P = softmax(S) per row, O = P V; both products
/// checked.
bool attentionForward(const HeadView &v, AbftGuard &g, AbftFault &fault) {
  const uint32_t T = v.T, hd = v.hd, d = v.d;
  Product scores = headProduct(v, T, hd, T, hd + 1, "attention scores");
  scores.a = v.rows3d(v.q);
  scores.b = v.cols3d(v.k());
  scores.scale = v.scale;
  scores.c = v.P;
  scores.lower = true;
  auto computeScores = [&] {
    for (uint32_t t = 0; t < T; ++t) {
      const float *q = v.q + size_t(t) * 3 * d;
      for (uint32_t u = 0; u <= t; ++u) {
        const float *k = v.k() + size_t(u) * 3 * d;
        float dot = 0;
        for (uint32_t i = 0; i < hd; ++i)
          dot += q[i] * k[i];
        v.P[size_t(t) * T + u] = dot * v.scale;
      }
    }
  };
  if (!v.named(g.product(computeScores, scores, fault), fault))
    return false;
  for (uint32_t t = 0; t < T; ++t) {
    float *p = v.P + size_t(t) * T;
    float mx = -INFINITY;
    for (uint32_t u = 0; u <= t; ++u)
      mx = std::max(mx, p[u]);
    float sum = 0;
    for (uint32_t u = 0; u <= t; ++u) {
      p[u] = std::exp(p[u] - mx);
      sum += p[u];
    }
    for (uint32_t u = 0; u <= t; ++u)
      p[u] /= sum;
  }
  Product out = headProduct(v, hd, T, d, T, "attention output");
  out.a = {v.P, T, 1};
  out.b = v.rows3d(v.v());
  out.c = v.o;
  auto computeOut = [&] {
    for (uint32_t t = 0; t < T; ++t) {
      const float *p = v.P + size_t(t) * T;
      float *o = v.o + size_t(t) * d;
      std::fill(o, o + hd, 0.0f);
      for (uint32_t u = 0; u <= t; ++u) {
        const float *vu = v.v() + size_t(u) * 3 * d;
        for (uint32_t i = 0; i < hd; ++i)
          o[i] += p[u] * vu[i];
      }
    }
  };
  return v.named(g.product(computeOut, out, fault), fault);
}

/// The backward of attentionForward for one (sequence, head), given dO:
/// dP = dO V^T (lower), dV = P^T dO, dS = P (dP - rowsum(P dP)) scale,
/// dQ = dS K, dK = dS^T Q; the four products checked. dP and dS are T x T
/// scratch, zero above the diagonal.
bool attentionBackward(const HeadView &v, float *dP, float *dS, AbftGuard &g,
                       AbftFault &fault) {
  const uint32_t T = v.T, hd = v.hd, d = v.d;
  Product pg = headProduct(v, T, hd, T, hd, "probability gradient");
  pg.a = {v.dO, d, 1};
  pg.b = v.cols3d(v.v());
  pg.c = dP;
  pg.lower = true;
  auto computeDP = [&] {
    for (uint32_t t = 0; t < T; ++t) {
      const float *dO = v.dO + size_t(t) * d;
      for (uint32_t u = 0; u <= t; ++u) {
        const float *vu = v.v() + size_t(u) * 3 * d;
        float acc = 0;
        for (uint32_t i = 0; i < hd; ++i)
          acc += dO[i] * vu[i];
        dP[size_t(t) * T + u] = acc;
      }
    }
  };
  if (!v.named(g.product(computeDP, pg, fault), fault))
    return false;
  Product vg = headProduct(v, hd, T, 3 * size_t(d), T, "value gradient");
  vg.a = {v.P, 1, T};
  vg.b = {v.dO, d, 1};
  vg.c = v.dq + 2 * d;
  auto computeDV = [&] {
    for (uint32_t u = 0; u < T; ++u) {
      float *dv = v.dq + 2 * d + size_t(u) * 3 * d;
      std::fill(dv, dv + hd, 0.0f);
      for (uint32_t t = u; t < T; ++t) {
        const float p = v.P[size_t(t) * T + u], *dO = v.dO + size_t(t) * d;
        for (uint32_t i = 0; i < hd; ++i)
          dv[i] += p * dO[i];
      }
    }
  };
  if (!v.named(g.product(computeDV, vg, fault), fault))
    return false;
  // The softmax's backward (elementwise, not a GEMM).
  for (uint32_t t = 0; t < T; ++t) {
    const float *p = v.P + size_t(t) * T, *dp = dP + size_t(t) * T;
    float dot = 0;
    for (uint32_t u = 0; u <= t; ++u)
      dot += p[u] * dp[u];
    for (uint32_t u = 0; u <= t; ++u)
      dS[size_t(t) * T + u] = p[u] * (dp[u] - dot) * v.scale;
  }
  Product qg = headProduct(v, hd, T, 3 * size_t(d), T, "query gradient");
  qg.a = {dS, T, 1};
  qg.b = v.rows3d(v.k());
  qg.c = v.dq;
  auto computeDQ = [&] {
    for (uint32_t t = 0; t < T; ++t) {
      float *dq = v.dq + size_t(t) * 3 * d;
      std::fill(dq, dq + hd, 0.0f);
      for (uint32_t u = 0; u <= t; ++u) {
        const float ds = dS[size_t(t) * T + u], *k = v.k() + size_t(u) * 3 * d;
        for (uint32_t i = 0; i < hd; ++i)
          dq[i] += ds * k[i];
      }
    }
  };
  if (!v.named(g.product(computeDQ, qg, fault), fault))
    return false;
  Product kg = headProduct(v, hd, T, 3 * size_t(d), T, "key gradient");
  kg.a = {dS, 1, T};
  kg.b = v.rows3d(v.q);
  kg.c = v.dq + d;
  auto computeDK = [&] {
    for (uint32_t u = 0; u < T; ++u) {
      float *dk = v.dq + d + size_t(u) * 3 * d;
      std::fill(dk, dk + hd, 0.0f);
      for (uint32_t t = u; t < T; ++t) {
        const float ds = dS[size_t(t) * T + u], *q = v.q + size_t(t) * 3 * d;
        for (uint32_t i = 0; i < hd; ++i)
          dk[i] += ds * q[i];
      }
    }
  };
  return v.named(g.product(computeDK, kg, fault), fault);
}

void fill(std::vector<float> &v, size_t n) { v.assign(n, 0.0f); }

} // namespace

size_t TransformerConfig::paramCount(uint32_t layer) const {
  if (layer == 0)
    return (size_t(vocab) + seq) * dModel;
  if (layer <= blocks)
    return BlockLayout(*this).total;
  return 2 * size_t(dModel) + size_t(dModel) * vocab + vocab;
}

size_t TransformerConfig::activationCount(uint32_t layer) const {
  return layer == 0 ? rows() : rows() * dModel;
}

std::string TransformerConfig::check() const {
  auto range = [](const char *what, uint64_t v, uint64_t lo, uint64_t hi) {
    return v < lo || v > hi
               ? std::string(what) + " " + std::to_string(v) + " is outside " +
                     std::to_string(lo) + ".." + std::to_string(hi)
               : std::string();
  };
  for (std::string bad :
       {range("vocab", vocab, 2, 65536), range("seq", seq, 1, 4096),
        range("d_model", dModel, 1, 8192), range("heads", heads, 1, 1024),
        range("ffn", ffnWidth(), 1, 65536), range("blocks", blocks, 1, 1024),
        range("batch", batch, 1, 65536)})
    if (!bad.empty())
      return bad;
  if (dModel % heads)
    return "heads " + std::to_string(heads) + " do not divide d_model " +
           std::to_string(dModel);
  // Each tensor's floats stay far below 2^40 (sizes are checked before
  // anything is allocated).
  const double biggest =
      std::max({double(BlockLayout(*this).total),
                (double(vocab) + seq) * dModel, double(dModel) * vocab,
                double(batch) * seq * dModel, double(batch) * heads * seq * seq,
                double(batch) * seq * std::max(ffnWidth(), vocab)});
  if (biggest > double(uint64_t(1) << 32))
    return "a tensor of this transformer would hold " +
           std::to_string(uint64_t(biggest)) + " floats, more than 2^32";
  if (!(adam.learningRate > 0) || !(adam.beta1 >= 0 && adam.beta1 < 1) ||
      !(adam.beta2 >= 0 && adam.beta2 < 1) || !(adam.epsilon > 0))
    return "Adam needs lr > 0, 0 <= beta < 1 and epsilon > 0";
  return "";
}

BlockLayout::BlockLayout(const TransformerConfig &c) {
  const size_t d = c.dModel, f = c.ffnWidth();
  ln1g = 0;
  ln1b = d;
  qkv = 2 * d;
  proj = qkv + d * 3 * d + 3 * d;
  ln2g = proj + d * d + d;
  ln2b = ln2g + d;
  fc1 = ln2b + d;
  fc2 = fc1 + d * f + f;
  total = fc2 + f * d + d;
}

void sluice::train::embeddingForward(const TransformerConfig &c,
                                     const float *param, const float *tokens,
                                     float *out) {
  const uint32_t d = c.dModel;
  const float *tok = param, *pos = param + size_t(c.vocab) * d;
  for (size_t r = 0; r < c.rows(); ++r) {
    const float *e = tok + size_t(tokens[r]) * d, *p = pos + (r % c.seq) * d;
    for (uint32_t i = 0; i < d; ++i)
      out[r * d + i] = e[i] + p[i];
  }
}

void sluice::train::embeddingBackward(const TransformerConfig &c,
                                      const float *tokens, const float *dOut,
                                      float *grad) {
  const uint32_t d = c.dModel;
  std::memset(grad, 0, sizeof(float) * c.paramCount(0));
  float *tok = grad, *pos = grad + size_t(c.vocab) * d;
  for (size_t r = 0; r < c.rows(); ++r) {
    float *e = tok + size_t(tokens[r]) * d, *p = pos + (r % c.seq) * d;
    for (uint32_t i = 0; i < d; ++i) {
      e[i] += dOut[r * d + i];
      p[i] += dOut[r * d + i];
    }
  }
}

bool sluice::train::blockForward(const TransformerConfig &c, const float *param,
                                 const float *x, BlockScratch &s, float *out,
                                 AbftGuard &g, AbftFault &fault) {
  const BlockLayout L(c);
  const size_t rows = c.rows();
  const uint32_t d = c.dModel, f = c.ffnWidth(), H = c.heads, T = c.seq;
  fill(s.h1, rows * d);
  fill(s.xhat1, rows * d);
  fill(s.rstd1, rows);
  fill(s.qkv, rows * 3 * d);
  fill(s.probs, size_t(c.batch) * H * T * T);
  fill(s.att, rows * d);
  fill(s.x2, rows * d);
  fill(s.h2, rows * d);
  fill(s.xhat2, rows * d);
  fill(s.rstd2, rows);
  fill(s.f, rows * f);
  fill(s.a, rows * f);
  layerNormForward(rows, d, x, param + L.ln1g, param + L.ln1b, s.h1.data(),
                   s.xhat1.data(), s.rstd1.data());
  if (!linear(rows, d, 3 * d, param + L.qkv, s.h1.data(), s.qkv.data(), g,
              fault, "QKV projection"))
    return false;
  // Causal attention, one (sequence, head) at a time.
  for (uint32_t b = 0; b < c.batch; ++b)
    for (uint32_t h = 0; h < H; ++h)
      if (!attentionForward(HeadView(c, s, b, h), g, fault))
        return false;
  if (!linear(rows, d, d, param + L.proj, s.att.data(), s.x2.data(), g, fault,
              "attention output projection"))
    return false;
  for (size_t i = 0; i < rows * d; ++i)
    s.x2[i] += x[i];
  layerNormForward(rows, d, s.x2.data(), param + L.ln2g, param + L.ln2b,
                   s.h2.data(), s.xhat2.data(), s.rstd2.data());
  if (!linear(rows, d, f, param + L.fc1, s.h2.data(), s.f.data(), g, fault,
              "MLP up-projection"))
    return false;
  for (size_t i = 0; i < rows * f; ++i)
    s.a[i] = gelu(s.f[i]);
  if (!linear(rows, f, d, param + L.fc2, s.a.data(), out, g, fault,
              "MLP down-projection"))
    return false;
  for (size_t i = 0; i < rows * d; ++i)
    out[i] += s.x2[i];
  return true;
}

bool sluice::train::blockBackward(const TransformerConfig &c,
                                  const float *param, BlockScratch &s,
                                  const float *dOut, float *grad, float *dX,
                                  AbftGuard &g, AbftFault &fault) {
  const BlockLayout L(c);
  const size_t rows = c.rows();
  const uint32_t d = c.dModel, f = c.ffnWidth(), H = c.heads, T = c.seq;
  fill(s.da, rows * f);
  fill(s.df, rows * f);
  fill(s.dh, rows * d);
  fill(s.dx2, rows * d);
  fill(s.datt, rows * d);
  fill(s.dqkv, rows * 3 * d);
  fill(s.dprobs, size_t(T) * T);
  fill(s.dscores, size_t(T) * T);
  // out = x2 + MLP(LN2(x2)).
  if (!linearBackward(rows, f, d, param + L.fc2, s.a.data(), dOut, grad + L.fc2,
                      s.da.data(), g, fault, "MLP down-projection"))
    return false;
  for (size_t i = 0; i < rows * f; ++i)
    s.df[i] = s.da[i] * geluGrad(s.f[i]);
  if (!linearBackward(rows, d, f, param + L.fc1, s.h2.data(), s.df.data(),
                      grad + L.fc1, s.dh.data(), g, fault, "MLP up-projection"))
    return false;
  std::memcpy(s.dx2.data(), dOut, sizeof(float) * rows * d);
  layerNormBackward(rows, d, s.xhat2.data(), s.rstd2.data(), param + L.ln2g,
                    s.dh.data(), grad + L.ln2g, grad + L.ln2b, s.dx2.data(),
                    true);
  // x2 = x + Attn(LN1(x)).
  if (!linearBackward(rows, d, d, param + L.proj, s.att.data(), s.dx2.data(),
                      grad + L.proj, s.datt.data(), g, fault,
                      "attention output projection"))
    return false;
  for (uint32_t b = 0; b < c.batch; ++b)
    for (uint32_t h = 0; h < H; ++h)
      if (!attentionBackward(HeadView(c, s, b, h), s.dprobs.data(),
                             s.dscores.data(), g, fault))
        return false;
  if (!linearBackward(rows, d, 3 * d, param + L.qkv, s.h1.data(), s.dqkv.data(),
                      grad + L.qkv, s.dh.data(), g, fault, "QKV projection"))
    return false;
  // dX = dx2 + LN1's input gradient (dX may alias dOut, no longer read).
  std::memmove(dX, s.dx2.data(), sizeof(float) * rows * d);
  layerNormBackward(rows, d, s.xhat1.data(), s.rstd1.data(), param + L.ln1g,
                    s.dh.data(), grad + L.ln1g, grad + L.ln1b, dX, true);
  return true;
}

bool sluice::train::headForward(const TransformerConfig &c, const float *param,
                                const float *x, const uint32_t *targets,
                                HeadScratch &s, float &lossOut, AbftGuard &g,
                                AbftFault &fault) {
  const size_t rows = c.rows();
  const uint32_t d = c.dModel, V = c.vocab;
  fill(s.h, rows * d);
  fill(s.xhat, rows * d);
  fill(s.rstd, rows);
  fill(s.logits, rows * V);
  fill(s.dlogits, rows * V);
  layerNormForward(rows, d, x, param, param + d, s.h.data(), s.xhat.data(),
                   s.rstd.data());
  if (!linear(rows, d, V, param + 2 * d, s.h.data(), s.logits.data(), g, fault,
              "LM head"))
    return false;
  double loss = 0;
  const float inv = 1.0f / static_cast<float>(rows);
  for (size_t r = 0; r < rows; ++r) {
    const float *z = s.logits.data() + r * V;
    float *dz = s.dlogits.data() + r * V;
    float mx = z[0];
    for (uint32_t v = 1; v < V; ++v)
      mx = std::max(mx, z[v]);
    float sum = 0;
    for (uint32_t v = 0; v < V; ++v) {
      dz[v] = std::exp(z[v] - mx);
      sum += dz[v];
    }
    loss += double(std::log(sum) + mx - z[targets[r]]);
    for (uint32_t v = 0; v < V; ++v)
      dz[v] = (dz[v] / sum - (v == targets[r] ? 1.0f : 0.0f)) * inv;
  }
  lossOut = static_cast<float>(loss / double(rows));
  return true;
}

bool sluice::train::headBackward(const TransformerConfig &c, const float *param,
                                 HeadScratch &s, float *grad, float *dX,
                                 AbftGuard &g, AbftFault &fault) {
  const size_t rows = c.rows();
  const uint32_t d = c.dModel, V = c.vocab;
  fill(s.dh, rows * d);
  if (!linearBackward(rows, d, V, param + 2 * d, s.h.data(), s.dlogits.data(),
                      grad + 2 * d, s.dh.data(), g, fault, "LM head"))
    return false;
  layerNormBackward(rows, d, s.xhat.data(), s.rstd.data(), param, s.dh.data(),
                    grad, grad + d, dX, false);
  return true;
}

void sluice::train::makeSequences(const TransformerConfig &c, uint64_t step,
                                  std::vector<uint32_t> &inputs,
                                  std::vector<uint32_t> &targets) {
  uint64_t state = c.seed ^ (step * 0xD1B54A32D192ED03ull) ^ 0x7f4a7c15ull;
  const uint32_t period = std::max<uint32_t>(1, c.seq / 2);
  inputs.assign(c.rows(), 0);
  targets.assign(c.rows(), 0);
  std::vector<uint32_t> seq(size_t(c.seq) + 1);
  for (uint32_t b = 0; b < c.batch; ++b) {
    for (uint32_t t = 0; t <= c.seq; ++t)
      seq[t] = t < period ? static_cast<uint32_t>(splitmix(state) % c.vocab)
                          : seq[t - period];
    for (uint32_t t = 0; t < c.seq; ++t) {
      inputs[size_t(b) * c.seq + t] = seq[t];
      targets[size_t(b) * c.seq + t] = seq[t + 1];
    }
  }
}

void TransformerModel::initParams(uint32_t layer, float *param) const {
  uint64_t state = config.seed * 1000003u + layer * 7919u + 0x5eed;
  const uint32_t d = config.dModel, f = config.ffnWidth(), V = config.vocab;
  auto uniformFill = [&](float *p, size_t n, float scale) {
    for (size_t i = 0; i < n; ++i)
      p[i] = uniform(state) * scale;
  };
  auto linearInit = [&](float *p, uint32_t in, uint32_t out) {
    uniformFill(p, size_t(in) * out, 1.0f / std::sqrt(static_cast<float>(in)));
    std::fill(p + size_t(in) * out, p + size_t(in) * out + out, 0.0f);
  };
  auto normInit = [&](float *p) {
    std::fill(p, p + d, 1.0f);
    std::fill(p + d, p + 2 * d, 0.0f);
  };
  if (layer == 0) {
    uniformFill(param, size_t(V) * d, 1.0f);
    uniformFill(param + size_t(V) * d, size_t(config.seq) * d, 0.1f);
  } else if (layer <= config.blocks) {
    const BlockLayout L(config);
    normInit(param + L.ln1g);
    linearInit(param + L.qkv, d, 3 * d);
    linearInit(param + L.proj, d, d);
    normInit(param + L.ln2g);
    linearInit(param + L.fc1, d, f);
    linearInit(param + L.fc2, f, d);
  } else {
    normInit(param);
    linearInit(param + 2 * d, d, V);
  }
}

void TransformerModel::beginStep(uint64_t step, float *input) {
  makeSequences(config, step, inputs, targets);
  for (size_t r = 0; r < inputs.size(); ++r)
    input[r] = static_cast<float>(inputs[r]);
  const size_t n = config.rows() * config.dModel;
  out.assign(n, 0.0f);
  dH.assign(n, 0.0f);
  dX.assign(n, 0.0f);
}

bool TransformerModel::tokensValid(const float *tokens,
                                   AbftFault &fault) const {
  for (size_t r = 0; r < config.rows(); ++r)
    if (!(tokens[r] >= 0 && tokens[r] < float(config.vocab)) ||
        tokens[r] != std::floor(tokens[r])) {
      fault.where = "saved token " + std::to_string(r) + " is " +
                    std::to_string(tokens[r]) + ", not a token id below " +
                    std::to_string(config.vocab);
      return false;
    }
  return true;
}

bool TransformerModel::forward(uint32_t layer, const float *param,
                               const float *act, float *next, AbftGuard &g,
                               AbftFault &fault) {
  if (layer == 0) {
    if (!tokensValid(act, fault))
      return false;
    embeddingForward(config, param, act, next);
    return true;
  }
  if (layer <= config.blocks)
    return blockForward(config, param, act, block, next, g, fault);
  return headForward(config, param, act, targets.data(), head, stepLoss, g,
                     fault);
}

bool TransformerModel::backward(uint32_t layer, const float *param,
                                const float *act, float *grad, AbftGuard &g,
                                AbftFault &fault) {
  // The forward internals are recomputed from the saved input (the same
  // kernels: the same bits as keeping them; their GEMMs checked again).
  if (layer == 0) {
    if (!tokensValid(act, fault))
      return false;
    embeddingBackward(config, act, dH.data(), grad);
    return true;
  }
  if (layer <= config.blocks) {
    if (!blockForward(config, param, act, block, out.data(), g, fault) ||
        !blockBackward(config, param, block, dH.data(), grad, dX.data(), g,
                       fault))
      return false;
    dH.swap(dX);
    return true;
  }
  float loss = 0;
  return headForward(config, param, act, targets.data(), head, loss, g,
                     fault) &&
         headBackward(config, param, head, grad, dH.data(), g, fault);
}
