//===- Gat.cpp - Graph attention layers, forward and backward -------------===//

#include "runtime/src/gnn/Gat.h"

#include "runtime/src/gnn/Dense.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sluice::rt::gnn {

namespace {

/// The layer's sizes and the pieces of its parameter array.
struct GatLayer {
  size_t in, out, heads, f, p; ///< p = heads f
  size_t numSrc, numDst, slots;
  GatLayer(const ModelShape &shape, uint32_t l, const Block &b)
      : in(shape.widths[l]), out(shape.widths[l + 1]), heads(shape.heads),
        f(shape.headWidth(l)), p(shape.projWidth(l)), numSrc(b.numSrc()),
        numDst(b.numDst), slots(size_t(b.numDst) + b.nbr.size()) {}
  size_t aSrc() const { return in * p; }
  size_t aDst() const { return in * p + p; }
  size_t bias() const { return in * p + 2 * p; }
  bool averaged(const ModelShape &shape, uint32_t l) const {
    return l + 1 == shape.layers();
  }
};

/// The local src row of slot k (0: the self loop) of dst d.
inline uint32_t slotSrc(const Block &b, size_t d, size_t k) {
  return k == 0 ? static_cast<uint32_t>(d) : b.nbr[b.offsets[d] + k - 1];
}

inline size_t slotBase(const Block &b, size_t d) { return b.offsets[d] + d; }

inline float dot(const float *x, const float *y, size_t n) {
  float s = 0.0f;
  for (size_t k = 0; k < n; ++k)
    s += x[k] * y[k];
  return s;
}

} // namespace

void gatForward(AlgoThreadPool *pool, const ModelShape &shape, uint32_t l,
                const Block &b, const Input &input, const float *h,
                const float *param, Activations &acts, float *y) {
  const GatLayer g(shape, l, b);
  const size_t H = g.heads, F = g.f, P = g.p;
  std::vector<float> &z = acts.projected[l];
  z.assign(g.numSrc * P, 0.0f);
  if (l == 0 && input.sparse) {
    parallelRows(pool, g.numSrc, [&](size_t begin, size_t end) {
      for (size_t j = begin; j < end; ++j) {
        float *zj = z.data() + j * P;
        for (uint64_t q = input.rowStart[j]; q < input.rowStart[j + 1]; ++q) {
          const float x = input.value[q];
          const float *wr = param + size_t(input.column[q]) * P;
          for (size_t c = 0; c < P; ++c)
            zj[c] += x * wr[c];
        }
      }
    });
  } else {
    matmul(pool, h, param, nullptr, z.data(), g.numSrc, g.in, P);
  }
  const float *aSrc = param + g.aSrc(), *aDst = param + g.aDst();
  const float *bias = param + g.bias();
  std::vector<float> sSrc(g.numSrc * H), sDst(g.numDst * H);
  parallelRows(pool, g.numSrc, [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j)
      for (size_t hd = 0; hd < H; ++hd) {
        const float *zj = z.data() + j * P + hd * F;
        sSrc[j * H + hd] = dot(aSrc + hd * F, zj, F);
        if (j < g.numDst)
          sDst[j * H + hd] = dot(aDst + hd * F, zj, F);
      }
  });
  std::vector<float> &logit = acts.logit[l], &alpha = acts.attention[l];
  logit.assign(g.slots * H, 0.0f);
  alpha.assign(g.slots * H, 0.0f);
  const bool averaged = g.averaged(shape, l);
  const float invHeads = 1.0f / static_cast<float>(H);
  parallelRows(pool, g.numDst, [&](size_t begin, size_t end) {
    std::vector<float> acc(F);
    for (size_t d = begin; d < end; ++d) {
      const size_t base = slotBase(b, d);
      const size_t count = 1 + b.offsets[d + 1] - b.offsets[d];
      float *yd = y + d * g.out;
      if (averaged)
        std::fill(yd, yd + g.out, 0.0f);
      for (size_t hd = 0; hd < H; ++hd) {
        float top = -INFINITY;
        for (size_t k = 0; k < count; ++k) {
          const float r = sSrc[slotSrc(b, d, k) * H + hd] + sDst[d * H + hd];
          logit[(base + k) * H + hd] = r;
          const float e = r > 0.0f ? r : kGatSlope * r;
          alpha[(base + k) * H + hd] = e;
          top = std::max(top, e);
        }
        float sum = 0.0f;
        for (size_t k = 0; k < count; ++k) {
          float &a = alpha[(base + k) * H + hd];
          a = std::exp(a - top);
          sum += a;
        }
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (size_t k = 0; k < count; ++k) {
          float &a = alpha[(base + k) * H + hd];
          a /= sum;
          const float *zj = z.data() + size_t(slotSrc(b, d, k)) * P + hd * F;
          for (size_t c = 0; c < F; ++c)
            acc[c] += a * zj[c];
        }
        if (averaged)
          for (size_t c = 0; c < F; ++c)
            yd[c] += acc[c];
        else
          for (size_t c = 0; c < F; ++c)
            yd[hd * F + c] = acc[c] + bias[hd * F + c];
      }
      if (averaged)
        for (size_t c = 0; c < g.out; ++c)
          yd[c] = yd[c] * invHeads + bias[c];
    }
  });
}

void gatBackward(AlgoThreadPool *pool, const ModelShape &shape, uint32_t l,
                 const Block &b, const Input &input, const float *h,
                 const float *param, const Activations &acts, const float *dY,
                 float *grad, float *dH) {
  const GatLayer g(shape, l, b);
  const size_t H = g.heads, F = g.f, P = g.p;
  const std::vector<float> &z = acts.projected[l];
  const std::vector<float> &logit = acts.logit[l], &alpha = acts.attention[l];
  const float *aSrc = param + g.aSrc(), *aDst = param + g.aDst();
  float *gW = grad, *gSrc = grad + g.aSrc(), *gDst = grad + g.aDst(),
        *gBias = grad + g.bias();
  for (size_t d = 0; d < g.numDst; ++d)
    for (size_t c = 0; c < g.out; ++c)
      gBias[c] += dY[d * g.out + c];
  // dO: the gradient of every head's output (the mean divides by H).
  const bool averaged = g.averaged(shape, l);
  std::vector<float> dO(g.numDst * P);
  const float invHeads = 1.0f / static_cast<float>(H);
  for (size_t d = 0; d < g.numDst; ++d)
    for (size_t hd = 0; hd < H; ++hd)
      for (size_t c = 0; c < F; ++c)
        dO[d * P + hd * F + c] = averaged ? dY[d * g.out + c] * invHeads
                                          : dY[d * g.out + hd * F + c];
  // Per slot: through the weighted sum, the softmax and the LeakyReLU, to
  // the raw logit r = s_src + s_dst.
  std::vector<float> dR(g.slots * H), dsDst(g.numDst * H, 0.0f);
  parallelRows(pool, g.numDst, [&](size_t begin, size_t end) {
    std::vector<float> dAlpha;
    for (size_t d = begin; d < end; ++d) {
      const size_t base = slotBase(b, d);
      const size_t count = 1 + b.offsets[d + 1] - b.offsets[d];
      dAlpha.resize(count);
      for (size_t hd = 0; hd < H; ++hd) {
        const float *od = dO.data() + d * P + hd * F;
        float weighted = 0.0f;
        for (size_t k = 0; k < count; ++k) {
          const float *zj = z.data() + size_t(slotSrc(b, d, k)) * P + hd * F;
          dAlpha[k] = dot(od, zj, F);
          weighted += alpha[(base + k) * H + hd] * dAlpha[k];
        }
        float sum = 0.0f;
        for (size_t k = 0; k < count; ++k) {
          const size_t s = (base + k) * H + hd;
          const float de = alpha[s] * (dAlpha[k] - weighted);
          dR[s] = logit[s] > 0.0f ? de : kGatSlope * de;
          sum += dR[s];
        }
        dsDst[d * H + hd] = sum;
      }
    }
  });
  // s_src's gradient: a scatter to src rows, on one thread in slot order.
  std::vector<float> dsSrc(g.numSrc * H, 0.0f);
  for (size_t d = 0; d < g.numDst; ++d) {
    const size_t base = slotBase(b, d);
    const size_t count = 1 + b.offsets[d + 1] - b.offsets[d];
    for (size_t k = 0; k < count; ++k)
      for (size_t hd = 0; hd < H; ++hd)
        dsSrc[size_t(slotSrc(b, d, k)) * H + hd] += dR[(base + k) * H + hd];
  }
  // dZ: the weighted sum's transpose (threads own columns), then the
  // scores' terms row by row.
  std::vector<float> dZ(g.numSrc * P, 0.0f);
  parallelRows(pool, P, [&](size_t begin, size_t end) {
    for (size_t d = 0; d < g.numDst; ++d) {
      const size_t base = slotBase(b, d);
      const size_t count = 1 + b.offsets[d + 1] - b.offsets[d];
      const float *od = dO.data() + d * P;
      for (size_t k = 0; k < count; ++k) {
        float *dz = dZ.data() + size_t(slotSrc(b, d, k)) * P;
        const float *a = alpha.data() + (base + k) * H;
        for (size_t c = begin; c < end; ++c)
          dz[c] += a[c / F] * od[c];
      }
    }
  });
  parallelRows(pool, g.numSrc, [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j)
      for (size_t hd = 0; hd < H; ++hd) {
        float *dz = dZ.data() + j * P + hd * F;
        const float ss = dsSrc[j * H + hd];
        const float sd = j < g.numDst ? dsDst[j * H + hd] : 0.0f;
        for (size_t c = 0; c < F; ++c)
          dz[c] += ss * aSrc[hd * F + c] +
                   (j < g.numDst ? sd * aDst[hd * F + c] : 0.0f);
      }
  });
  // The attention vectors' gradients: columns over threads, rows in order.
  parallelRows(pool, P, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      const size_t hd = c / F;
      float gs = 0.0f, gd = 0.0f;
      for (size_t j = 0; j < g.numSrc; ++j) {
        gs += dsSrc[j * H + hd] * z[j * P + c];
        if (j < g.numDst)
          gd += dsDst[j * H + hd] * z[j * P + c];
      }
      gSrc[c] += gs;
      gDst[c] += gd;
    }
  });
  if (l == 0 && input.sparse) {
    // One thread, as the other models' sparse scatter (docs/gnn.md).
    for (size_t j = 0; j < g.numSrc; ++j) {
      const float *dz = dZ.data() + j * P;
      for (uint64_t q = input.rowStart[j]; q < input.rowStart[j + 1]; ++q) {
        const float x = input.value[q];
        float *gr = gW + size_t(input.column[q]) * P;
        for (size_t c = 0; c < P; ++c)
          gr[c] += x * dz[c];
      }
    }
  } else {
    matmulAtB(pool, h, dZ.data(), gW, g.numSrc, g.in, P);
  }
  if (dH)
    matmulABt(pool, dZ.data(), param, dH, g.numSrc, g.in, P);
}

} // namespace sluice::rt::gnn
