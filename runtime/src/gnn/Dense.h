//===- Dense.h - fp32 matrix kernels of GNN training ------------*- C++ -*-===//
//
// Row-major matrices, rows split statically over a thread pool: every
// output value is summed in one fixed order, so the bits do not depend on
// the number of threads.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_DENSE_H
#define SLUICE_RUNTIME_SRC_GNN_DENSE_H

#include <cstddef>
#include <cstdint>
#include <functional>

namespace sluice::rt {
class AlgoThreadPool;
}

namespace sluice::rt::gnn {

/// Calls fn(begin, end) on static shares of [0, n) on the pool's threads
/// (all on the caller when pool is null or n is small).
void parallelRows(AlgoThreadPool *pool, size_t n,
                  const std::function<void(size_t, size_t)> &fn);

/// C[n x m] = A[n x k] B[k x m] (+ bias[m] broadcast when not null).
void matmul(AlgoThreadPool *pool, const float *a, const float *b,
            const float *bias, float *c, size_t n, size_t k, size_t m);
/// G[k x m] += A[n x k]^T D[n x m].
void matmulAtB(AlgoThreadPool *pool, const float *a, const float *d, float *g,
               size_t n, size_t k, size_t m);
/// E[n x k] = D[n x m] B[k x m]^T.
void matmulABt(AlgoThreadPool *pool, const float *d, const float *b, float *e,
               size_t n, size_t k, size_t m);

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_DENSE_H
