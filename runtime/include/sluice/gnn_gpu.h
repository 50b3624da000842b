/*===- sluice/gnn_gpu.h - libsluicert: GNN aggregation on a GPU ------------===*
 *
 * Runs the aggregation kernels that `gnn-to-gpu` builds for a `train` job
 * of a sage or gcn model (`sluicec --emit=ptx` or `-c --target=gpu`;
 * docs/gnn.md, "GPU aggregation") on one sampled block, from host arrays:
 * upload, launch, download. With H the block's src rows (width `in`) and
 * A the aggregate of its dst rows (dst d is src row d):
 *
 *   SAGE: A[d] = [H[d] | 0 + sum_e coef_e H[nbr_e]]          (width 2 in)
 *   GCN:  A[d] = self_coef_d H[d] + sum_e coef_e H[nbr_e]    (width in)
 *
 * and backward dH[u] += the transpose applied to dA. Both give the same
 * bits as the CPU trainer's aggregation (runtime/src/gnn/Aggregate.cpp):
 *
 *  - forward, a thread per (dst, feature) sums d's edges in block order
 *    from the same first term, with separate fp32 multiplies and adds
 *    (the PTX has mul.rn/add.rn, never a fused multiply-add);
 *  - backward is a gather over the block's transpose (a thread per (src,
 *    feature)), not an atomic scatter: the transpose lists, for each src
 *    u, the terms that the CPU's scatter adds to dH[u] in the CPU's order
 *    (by dst; within a dst its self term, then its edges in block order),
 *    so every dH value is the CPU's sum in the CPU's order.
 *
 * Without a CUDA driver or device, sluice_gnn_gpu_open returns
 * SLUICE_STATUS_UNSUPPORTED with the reason (after checking its
 * arguments).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_GNN_GPU_H
#define SLUICE_GNN_GPU_H

#include "sluice/gnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The threads of a block of either kernel. */
#define SLUICE_GNN_GPU_BLOCK 256

/* The forward kernel's one argument points to this struct in device
 * memory (device addresses as uint64_t). gnn-to-gpu reads the fields by
 * their offsets (compiler/Conversion/GnnToGPU/GnnGpuAbi.h). */
typedef struct sluice_gnn_gpu_forward_args_t {
  uint64_t offsets;   /* u32 per dst + 1 */
  uint64_t nbr;       /* u32 per edge */
  uint64_t coef;      /* f32 per edge */
  uint64_t self_coef; /* f32 per dst (GCN; unused by SAGE) */
  uint64_t h;         /* f32, num_src x in */
  uint64_t agg;       /* f32, num_dst x (SAGE: 2 in, GCN: in) */
  uint64_t num_dst;
  uint64_t in;
} sluice_gnn_gpu_forward_args_t;

/* The backward kernel's argument: the block's transpose (built on the
 * host: sluice_gnn_block_transpose) and the gradients. */
typedef struct sluice_gnn_gpu_backward_args_t {
  uint64_t offsets; /* u32 per src + 1: src u's terms */
  uint64_t slot;    /* u32 per term: 2 d + half, the dA values it reads
                       are dA[d][half * in + j] (half 1: SAGE's neighbour
                       half) */
  uint64_t coef;    /* f32 per term */
  uint64_t da;      /* f32, num_dst x (SAGE: 2 in, GCN: in) */
  uint64_t dh;      /* f32, num_src x in, read and written */
  uint64_t num_src;
  uint64_t in;
} sluice_gnn_gpu_backward_args_t;

/* The block's transpose for the backward kernel: num_dst + (edges) terms.
 * `offsets` has num_src + 1 entries, `slot` and `coef` one per term. For
 * src u, its terms in the order the CPU's scatter adds them to dH[u]: by
 * dst d ascending; for d == u, d's self term (coefficient 1 for SAGE,
 * self_coef[d] for GCN; half 0) first, then d's edges e with nbr[e] == u
 * in block order (coefficient coef[e]; half 1 for SAGE, 0 for GCN).
 * INVALID_ARGUMENT for a NULL array, num_dst > num_src, offsets that
 * decrease, a nbr not below num_src, or GCN without self_coef. */
SLUICE_API sluice_status_t sluice_gnn_block_transpose(
    const sluice_gnn_block_t *block, sluice_gnn_kind_t kind, uint32_t *offsets,
    uint32_t *slot, float *coef, sluice_error_t *error);

/* What the calls on a handle cost so far (host wall clock; each launch
 * waits for the kernel). */
typedef struct sluice_gnn_gpu_stats_t {
  uint64_t launches;
  double kernel_seconds;    /* the launches */
  double upload_seconds;    /* allocations and copies to the device */
  double download_seconds;  /* copies back */
  double transpose_seconds; /* the backward's transposes, on the host */
  uint64_t bytes_to_device;
  uint64_t bytes_from_device;
} sluice_gnn_gpu_stats_t;

typedef struct sluice_gnn_gpu_t sluice_gnn_gpu_t;

/* Opens the default GPU and loads `ptx` (NUL-terminated PTX text, as
 * sluicec writes it), whose kernels for `job` of kind `kind` are
 * `sluice_gnn_<job>_<sage|gcn>_forward` and `..._backward`: both must be
 * there (NOT_FOUND names the missing one), so a SAGE kernel is never run
 * as GCN. INVALID_ARGUMENT for a NULL or empty argument or kind GAT (no
 * GPU kernel); UNSUPPORTED without a driver or device. */
SLUICE_API sluice_status_t sluice_gnn_gpu_open(const char *ptx, const char *job,
                                               sluice_gnn_kind_t kind,
                                               sluice_gnn_gpu_t **out,
                                               sluice_error_t *error);
/* NULL is allowed. */
SLUICE_API void sluice_gnn_gpu_close(sluice_gnn_gpu_t *gpu);
/* The device's name ("NVIDIA H200"). */
SLUICE_API const char *sluice_gnn_gpu_device_name(const sluice_gnn_gpu_t *gpu);
SLUICE_API void sluice_gnn_gpu_stats(const sluice_gnn_gpu_t *gpu,
                                     sluice_gnn_gpu_stats_t *stats);
/* An aggregator for sluice_gnn_options_t.aggregator that runs the dense
 * layers' aggregation of training on `gpu` (its forward and backward
 * below, `user` = gpu). */
SLUICE_API void sluice_gnn_gpu_aggregator(sluice_gnn_gpu_t *gpu,
                                          sluice_gnn_aggregator_t *out);

/* Writes agg (num_dst x (SAGE: 2 in, GCN: in)) from h (num_src x in).
 * in == 0 or num_dst == 0 does nothing. */
SLUICE_API sluice_status_t sluice_gnn_gpu_forward(
    sluice_gnn_gpu_t *gpu, const sluice_gnn_block_t *block, const float *h,
    uint32_t in, float *agg, sluice_error_t *error);

/* Adds the transpose of the aggregation applied to dA to dh (num_src x
 * in; its values on entry are the sums' first terms). */
SLUICE_API sluice_status_t sluice_gnn_gpu_backward(
    sluice_gnn_gpu_t *gpu, const sluice_gnn_block_t *block, const float *da,
    uint32_t in, float *dh, sluice_error_t *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_GNN_GPU_H */
