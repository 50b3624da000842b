//===- Dense.cpp - fp32 matrix kernels of GNN training --------------------===//

#include "runtime/src/gnn/Dense.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <cstring>

namespace sluice::rt::gnn {

void parallelRows(AlgoThreadPool *pool, size_t n,
                  const std::function<void(size_t, size_t)> &fn) {
  const size_t threads = pool ? pool->size() : 1;
  if (threads <= 1 || n < 2 * threads) {
    fn(0, n);
    return;
  }
  pool->run([&](uint32_t t) {
    const size_t begin = n * t / threads, end = n * (t + 1) / threads;
    if (begin < end)
      fn(begin, end);
  });
}

void matmul(AlgoThreadPool *pool, const float *a, const float *b,
            const float *bias, float *c, size_t n, size_t k, size_t m) {
  parallelRows(pool, n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      float *ci = c + i * m;
      if (bias)
        std::memcpy(ci, bias, m * sizeof(float));
      else
        std::fill(ci, ci + m, 0.0f);
      const float *ai = a + i * k;
      for (size_t p = 0; p < k; ++p) {
        const float x = ai[p];
        if (x == 0.0f)
          continue;
        const float *bp = b + p * m;
        for (size_t j = 0; j < m; ++j)
          ci[j] += x * bp[j];
      }
    }
  });
}

void matmulAtB(AlgoThreadPool *pool, const float *a, const float *d, float *g,
               size_t n, size_t k, size_t m) {
  parallelRows(pool, k, [&](size_t begin, size_t end) {
    for (size_t i = 0; i < n; ++i) {
      const float *ai = a + i * k;
      const float *di = d + i * m;
      for (size_t p = begin; p < end; ++p) {
        const float x = ai[p];
        if (x == 0.0f)
          continue;
        float *gp = g + p * m;
        for (size_t j = 0; j < m; ++j)
          gp[j] += x * di[j];
      }
    }
  });
}

void matmulABt(AlgoThreadPool *pool, const float *d, const float *b, float *e,
               size_t n, size_t k, size_t m) {
  parallelRows(pool, n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const float *di = d + i * m;
      float *ei = e + i * k;
      for (size_t p = 0; p < k; ++p) {
        const float *bp = b + p * m;
        float sum = 0.0f;
        for (size_t j = 0; j < m; ++j)
          sum += di[j] * bp[j];
        ei[p] = sum;
      }
    }
  });
}

} // namespace sluice::rt::gnn
