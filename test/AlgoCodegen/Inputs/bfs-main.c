/* Runs the BFS that `sluicec -c` compiled from bfs-tiny.sluice, through
 * its generated header and libsluicert: usage bfs-main GRAPH SOURCE OUTPUT.
 * Writes "id depth" lines to OUTPUT like sluicec --run. */
#include "bfs.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = SLUICE_GRAPH_FORMAT_SNAP;
  load.flags = SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS |
               SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *graph = NULL;
  sluice_error_t error;
  if (sluice_graph_load(argv[1], &load, &graph, &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "load: %s\n", error.message);
    return 1;
  }
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.threads = 2;
  options.quiet = 1;
  sluice_algo_ctx_t *ctx = NULL;
  if (sluice_algo_ctx_create(graph, &options, &ctx, &error) !=
      SLUICE_STATUS_OK) {
    fprintf(stderr, "ctx: %s\n", error.message);
    return 1;
  }
  uint64_t n = sluice_graph_num_vertices(graph);
  int64_t *depth = malloc(n * sizeof(int64_t));
  void *props[] = {depth};
  sluice_algo_params_bfs_t params = {atoll(argv[2])};
  sluice_algo_bfs(ctx, &params, props);
  const char *message = NULL;
  if (sluice_algo_fault_site(ctx, &message) >= 0) {
    fprintf(stderr, "fault: %s\n", message);
    return 1;
  }
  sluice_algo_column_t column = {"depth", SLUICE_ALGO_I64, depth};
  if (sluice_algo_write_text(argv[3], graph, &column, 1, &error) !=
      SLUICE_STATUS_OK) {
    fprintf(stderr, "write: %s\n", error.message);
    return 1;
  }
  free(depth);
  sluice_algo_ctx_release(ctx);
  sluice_graph_release(graph);
  return 0;
}
