//===- TransformerReference.h - Naive double-precision transformer -*- C++
//-*-===//
//
// An independent reference for runtime/src/train/Transformer.{h,cpp}: the
// same model (documented layout, pre-norm blocks, causal attention,
// tanh-GELU, untied head, mean cross-entropy) written from its definition,
// one sequence and one position at a time, in double precision, sharing no
// code with the runtime's kernels. Used for the forward/loss check and as
// the function whose central differences check the runtime's gradients.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_OFFLOAD_TRANSFORMERREFERENCE_H
#define SLUICE_TEST_UNIT_OFFLOAD_TRANSFORMERREFERENCE_H

#include <cmath>
#include <cstdint>
#include <vector>

namespace sluice::test {

struct NaiveTransformer {
  int V, T, D, H, F, N; // vocab, seq, d_model, heads, ffn, blocks
  /// params[l]: layer l's parameters in the runtime's layout, as doubles.
  std::vector<std::vector<double>> params;

  using Vec = std::vector<double>;

  /// W is row-major [in][out] at `w`, bias follows at w + in*out.
  Vec affine(const Vec &x, const double *w, int in, int out) const {
    Vec y(out);
    for (int o = 0; o < out; ++o) {
      double acc = w[in * out + o];
      for (int i = 0; i < in; ++i)
        acc += x[i] * w[i * out + o];
      y[o] = acc;
    }
    return y;
  }

  Vec norm(const Vec &x, const double *g, const double *b) const {
    double mean = 0, var = 0;
    for (double v : x)
      mean += v;
    mean /= D;
    for (double v : x)
      var += (v - mean) * (v - mean);
    var /= D;
    Vec y(D);
    for (int i = 0; i < D; ++i)
      y[i] = (x[i] - mean) / std::sqrt(var + 1e-5) * g[i] + b[i];
    return y;
  }

  static double gelu(double x) {
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  }

  /// Mean next-token cross-entropy of `batch` sequences (inputs and targets
  /// are batch x T token ids).
  double loss(const std::vector<uint32_t> &inputs,
              const std::vector<uint32_t> &targets) const {
    const int batch = int(inputs.size()) / T, hd = D / H;
    double total = 0;
    for (int b = 0; b < batch; ++b) {
      // Residual stream of this sequence: T vectors of D.
      std::vector<Vec> x(T, Vec(D));
      const std::vector<double> &emb = params[0];
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < D; ++i)
          x[t][i] = emb[inputs[b * T + t] * D + i] + emb[(V + t) * D + i];
      for (int n = 0; n < N; ++n) {
        const double *p = params[1 + n].data();
        const double *ln1 = p, *qkv = p + 2 * D;
        const double *proj = qkv + D * 3 * D + 3 * D;
        const double *ln2 = proj + D * D + D, *fc1 = ln2 + 2 * D;
        const double *fc2 = fc1 + D * F + F;
        std::vector<Vec> q(T), k(T), v(T);
        for (int t = 0; t < T; ++t) {
          Vec all = affine(norm(x[t], ln1, ln1 + D), qkv, D, 3 * D);
          q[t].assign(all.begin(), all.begin() + D);
          k[t].assign(all.begin() + D, all.begin() + 2 * D);
          v[t].assign(all.begin() + 2 * D, all.end());
        }
        std::vector<Vec> mixed(T, Vec(D, 0.0));
        for (int h = 0; h < H; ++h)
          for (int t = 0; t < T; ++t) {
            Vec w(t + 1);
            double mx = -1e300, z = 0;
            for (int u = 0; u <= t; ++u) {
              double s = 0;
              for (int i = h * hd; i < (h + 1) * hd; ++i)
                s += q[t][i] * k[u][i];
              w[u] = s / std::sqrt(double(hd));
              mx = std::max(mx, w[u]);
            }
            for (int u = 0; u <= t; ++u)
              z += (w[u] = std::exp(w[u] - mx));
            for (int u = 0; u <= t; ++u)
              for (int i = h * hd; i < (h + 1) * hd; ++i)
                mixed[t][i] += w[u] / z * v[u][i];
          }
        for (int t = 0; t < T; ++t) {
          Vec o = affine(mixed[t], proj, D, D);
          for (int i = 0; i < D; ++i)
            x[t][i] += o[i];
          Vec hidden = affine(norm(x[t], ln2, ln2 + D), fc1, D, F);
          for (double &e : hidden)
            e = gelu(e);
          Vec y = affine(hidden, fc2, F, D);
          for (int i = 0; i < D; ++i)
            x[t][i] += y[i];
        }
      }
      const double *head = params[N + 1].data();
      for (int t = 0; t < T; ++t) {
        Vec logits = affine(norm(x[t], head, head + D), head + 2 * D, D, V);
        double mx = logits[0], z = 0;
        for (double l : logits)
          mx = std::max(mx, l);
        for (double l : logits)
          z += std::exp(l - mx);
        total += std::log(z) + mx - logits[targets[b * T + t]];
      }
    }
    return total / double(inputs.size());
  }
};

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_OFFLOAD_TRANSFORMERREFERENCE_H
