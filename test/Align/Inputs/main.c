/* A C program linking the object sluicec -c writes for pairs.sluice
 * (test/Align/compile.test): the FASTA wrapper writes the TSV, then the
 * batch wrapper and the pair function align one pair by hand. */
#include "pairs.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s QUERY.fa TARGET.fa OUT.tsv\n", argv[0]);
    return 2;
  }
  sluice_align_report_t report;
  sluice_error_t error;
  if (sluice_align_pairs_fasta(argv[1], argv[2], argv[3], 1, &report,
                               &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "error: %s\n", error.message);
    return 1;
  }
  printf("fasta: %llu pairs, %llu zdropped\n",
         (unsigned long long)report.pairs,
         (unsigned long long)report.zdropped);
  const sluice_align_scoring_t scoring = SLUICE_ALIGN_pairs_SCORING;
  printf("scoring: %d %d %d %d %d %d\n", scoring.match, scoring.mismatch,
         scoring.gap_open, scoring.gap_extend, scoring.band, scoring.zdrop);
  /* ACGTTCGT against ACGTACGT: 7 matches, one mismatch. */
  const char *queries[] = {"ACGTTCGT"};
  const char *targets[] = {"ACGTACGT"};
  uint32_t lengths[] = {8};
  sluice_align_result_t result;
  if (sluice_align_pairs(queries, lengths, targets, lengths, 1, 1, &result,
                         &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "error: %s\n", error.message);
    return 1;
  }
  printf("batch: score %d at q%d t%d, global %d\n", result.max_score,
         result.max_query_end, result.max_target_end, result.global_score);
  const uint8_t query[] = {0, 1, 2, 3, 3, 1, 2, 3};
  const uint8_t target[] = {0, 1, 2, 3, 0, 1, 2, 3};
  int32_t *scratch =
      malloc(sizeof(int32_t) * SLUICE_ALIGN_SCRATCH_ROWS * (8 + 2));
  sluice_align_pairs_pair(query, 8, target, 8, scratch, &result);
  free(scratch);
  printf("pair: score %d at q%d t%d, global %d\n", result.max_score,
         result.max_query_end, result.max_target_end, result.global_score);
  return 0;
}
