/*===- sluice/sampling.h - libsluicert: random-walk sampling core ---------===*
 *
 * The pieces a walk engine draws its next edge with (docs/sampling.md):
 *
 *   - a counter-based RNG, Philox4x32-10, keyed by (seed, walker, step), so
 *     that a walker's draws do not depend on which thread runs it or when;
 *   - samplers over the candidate edges of a vertex, whose weights come from
 *     a caller-supplied functor (possibly history-dependent): Vose alias
 *     tables for static weights, rejection against an upper bound, and
 *     one-pass weighted reservoir sampling with exponential jumps (A-ExpJ);
 *   - FlexiWalker's per-vertex cost model that picks rejection or reservoir.
 *
 * This header is the C part: the Philox block function and the cost
 * model. The samplers themselves are C++ templates inside the runtime
 * (runtime/src/walk/Sampling.h: the weight functor is inlined into the
 * loop).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_SAMPLING_H
#define SLUICE_SAMPLING_H

#include "sluice/graph.h"
#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Philox4x32-10 block: out = Philox4x32-10(counter, key), the
 * Random123 definition (10 rounds, multipliers 0xD2511F53 / 0xCD9E8D57,
 * Weyl constants 0x9E3779B9 / 0xBB67AE85). */
SLUICE_API void sluice_philox4x32_10(const uint32_t counter[4],
                                     const uint32_t key[2], uint32_t out[4]);

/* The cost model: 1 when reservoir sampling is expected to be cheaper than
 * rejection sampling for a vertex whose candidate weights are bounded by
 * `weight_bound` (w_max) and sum to `weight_sum` (W_sum), i.e. when
 * cost_ratio * weight_bound > weight_sum; also 1 when weight_sum is not
 * positive (rejection could never accept). cost_ratio is r = c_rej / c_res,
 * the cost of one rejection trial over the cost of one reservoir edge. */
SLUICE_API int sluice_sampler_prefers_reservoir(double cost_ratio,
                                                double weight_bound,
                                                double weight_sum);

/* Measures r = c_rej / c_res with a micro-benchmark of a few milliseconds
 * on this machine (docs/sampling.md), clamped to [1/16, 256]. */
SLUICE_API double sluice_sampler_calibrate_cost_ratio(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_SAMPLING_H */
