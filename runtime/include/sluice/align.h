/*===- sluice/align.h - Guided sequence alignment (AGAThA) -----------------===*
 *
 * Banded affine-gap extension alignment with Z-drop, as minimap2's
 * ksw_extz2 computes it and AGAThA reproduces it on GPUs: the alignment
 * starts at the first base of both sequences (the anchor) and extends
 * towards their ends; the job of `align` in the language (docs/align.md).
 *
 * Scores: a match adds `match`, a mismatch (or any pair with an N) adds
 * -`mismatch`, a gap of length L adds -(`gap_open` + L * `gap_extend`).
 * Cells with |i - j| > `band` (i: target index, j: query index) are
 * -infinity. The matrix is walked by anti-diagonals r = i + j; after each
 * one the Z-drop test runs on its best cell (i, j) (the smallest i among
 * equals) against the best cell so far (i', j'): when i >= i', j >= j' and
 * best - H(i, j) > zdrop + gap_extend * |(i - i') - (j - j')| the alignment
 * stops (zdropped). A negative zdrop disables the test. An anti-diagonal
 * with no cell in the band also stops it (zdropped, as ksw_extz2 does).
 *
 * Two kernels compute the same numbers: the anti-diagonal wavefront (SIMD
 * across the cells of an anti-diagonal) and a row-by-row serial one (the
 * baseline of bench/align). Both are exact: equal scores and positions.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_ALIGN_H
#define SLUICE_ALIGN_H

#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The score of an unreached cell (minimap2's KSW_NEG_INF). */
#define SLUICE_ALIGN_NEG_INF (-0x40000000)

typedef struct sluice_align_scoring_t {
  int32_t match;      /* > 0 */
  int32_t mismatch;   /* > 0, subtracted */
  int32_t gap_open;   /* >= 0 */
  int32_t gap_extend; /* > 0 */
  int32_t band;       /* >= 0; cells with |i - j| > band are not computed */
  int32_t zdrop;      /* < 0: no Z-drop */
} sluice_align_scoring_t;

typedef struct sluice_align_result_t {
  /* The best score (0 before any cell beats it is not implied: the best of
   * the computed cells) and its cell: the 0-based last aligned base of the
   * query and of the target. */
  int32_t max_score;
  int32_t max_query_end;
  int32_t max_target_end;
  /* The best score of a cell on the query's last base (-inf if none was
   * reached) and its target index (-1 if none) */
  int32_t query_end_score;
  int32_t query_end_target;
  /* The score of the whole of both sequences (the global-to-end score),
   * -inf when the alignment stopped before the last cell or it is out of
   * the band. */
  int32_t global_score;
  /* 1 when the Z-drop (or an empty band) stopped the alignment. */
  int32_t zdropped;
} sluice_align_result_t;

/* Which kernel sluice_align_batch runs. */
typedef enum sluice_align_kernel_e {
  SLUICE_ALIGN_WAVEFRONT = 0, /* anti-diagonal, vectorised */
  SLUICE_ALIGN_SERIAL = 1     /* row by row, scalar (the baseline) */
} sluice_align_kernel_t;

/* Checks `scoring` (the ranges above; match, mismatch, gap_open and
 * gap_extend at most 255, band at most 2^20, zdrop at most 2^28);
 * INVALID_ARGUMENT naming the field otherwise. */
SLUICE_API sluice_status_t sluice_align_check_scoring(
    const sluice_align_scoring_t *scoring, sluice_error_t *error);

/* Aligns pairs k in [0, count): queries[k] (query_lengths[k] bytes) against
 * targets[k], bases A/C/G/T (either case; anything else counts as N),
 * writing results[k]. Pairs are spread over `threads` threads (0: one per
 * hardware thread). Lengths above 2^20 are OUT_OF_RANGE. */
SLUICE_API sluice_status_t sluice_align_batch(
    const char *const *queries, const uint32_t *query_lengths,
    const char *const *targets, const uint32_t *target_lengths, uint64_t count,
    const sluice_align_scoring_t *scoring, sluice_align_kernel_t kernel,
    uint32_t threads, sluice_align_result_t *results, sluice_error_t *error);

/* The kernel `sluicec -c` compiles for an align job J (docs/align.md,
 * "sluicec -c"): the object file's `sluice_align_J_pair`, with the job's
 * scoring baked in. It aligns one pair: `query` and `target` hold base
 * codes (A C G T -> 0 1 2 3, anything else 4), lengths at most 2^20;
 * `scratch` holds SLUICE_ALIGN_SCRATCH_ROWS * (target_length + 2) int32
 * (any contents); it writes *result as sluice_align_batch does. */
#define SLUICE_ALIGN_SCRATCH_ROWS 7
typedef void (*sluice_align_pair_kernel_t)(
    const uint8_t *query, uint32_t query_length, const uint8_t *target,
    uint32_t target_length, int32_t *scratch, sluice_align_result_t *result);

/* sluice_align_batch with a compiled kernel: bases as sluice_align_batch
 * takes them (converted to codes here), each thread with its own scratch,
 * pairs claimed one at a time. The scoring is the kernel's. */
SLUICE_API sluice_status_t sluice_align_batch_compiled(
    sluice_align_pair_kernel_t kernel, const char *const *queries,
    const uint32_t *query_lengths, const char *const *targets,
    const uint32_t *target_lengths, uint64_t count, uint32_t threads,
    sluice_align_result_t *results, sluice_error_t *error);

/* What sluice_align_fasta did. */
typedef struct sluice_align_report_t {
  uint64_t pairs;
  uint64_t query_bases;
  uint64_t target_bases;
  uint64_t zdropped;
  uint32_t threads;
  double read_seconds;  /* reading and checking both files */
  double align_seconds; /* the kernel */
} sluice_align_report_t;

/* Reads two FASTA files of the same number of records (record k of the
 * query file is aligned to record k of the target file), aligns them and,
 * when `output` is not NULL, writes a TSV file: a header line, then per
 * pair "id, target id, query length, target length, score, query end,
 * target end, query-end score, query-end target, global score, zdropped"
 * (1-based ends; -inf scores and the missing query-end target written
 * as '*'). A malformed file (a
 * character that is not a base letter, a record without bases, text
 * before the first '>', an empty id) or a count mismatch is a PARSE_ERROR
 * at its line and column. */
SLUICE_API sluice_status_t sluice_align_fasta(
    const char *query_path, const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, uint32_t threads,
    sluice_align_report_t *report, sluice_error_t *error);

/* sluice_align_fasta with a compiled kernel; `scoring` must be the one
 * it was compiled with (checked as sluice_align_fasta checks it; the
 * generated header's SLUICE_ALIGN_J_SCORING). */
SLUICE_API sluice_status_t sluice_align_fasta_compiled(
    sluice_align_pair_kernel_t kernel, const char *query_path,
    const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, uint32_t threads,
    sluice_align_report_t *report, sluice_error_t *error);

/* The cells a kernel computes for a pair when nothing stops it early: the
 * band's cells of every anti-diagonal up to the last one, or up to the
 * first without a band cell (where the alignment stops). An upper bound
 * for a pair the Z-drop stops; the cell count of GCUPS figures. */
SLUICE_API uint64_t sluice_align_band_cells(uint32_t query_length,
                                            uint32_t target_length,
                                            int32_t band);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_ALIGN_H */
