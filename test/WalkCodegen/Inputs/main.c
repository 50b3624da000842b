/* Runs the node2vec kernel that `sluicec -c` compiled into an object file,
 * through its generated header, with the options of job `embed` of
 * node2vec.sluice: usage main GRAPH OUTPUT. */
#include "node2vec.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = SLUICE_GRAPH_FORMAT_SNAP;
  /* What `load("tiny.txt", format: snap, undirected)` means: the simple
   * graph (duplicates merged, self loops dropped), compact ids. */
  load.flags =
      SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DEDUPLICATE |
      SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS | SLUICE_GRAPH_LOAD_COMPACT_IDS |
      SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES | SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *graph = NULL;
  sluice_error_t error;
  if (sluice_graph_load(argv[1], &load, &graph, &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "load: %s\n", error.message);
    return 1;
  }
  sluice_walk_params_node2vec_t params = SLUICE_WALK_PARAMS_NODE2VEC_DEFAULTS;
  printf("defaults p=%g q=%g\n", params.p, params.q);
  params.p = 0.25;
  params.q = 4.0;

  sluice_walk_frame_t frame = {0};
  frame.graph = graph;
  frame.params = &params;
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  options.max_length = (uint32_t)sluice_walk_node2vec_length(&frame);
  options.walks_per_vertex = 7;
  options.seed = 42;
  options.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  options.quiet = 1;

  sluice_walk_writer_t *writer = NULL;
  if (sluice_walk_writer_open(argv[2], SLUICE_WALK_FORMAT_TEXT,
                              options.max_length,
                              SLUICE_WALK_WRITE_ORIGINAL_IDS, graph, &writer,
                              &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "open: %s\n", error.message);
    return 1;
  }
  sluice_walk_stats_t stats;
  if (sluice_walk_run(graph, &sluice_walk_kernel_node2vec, &params, &options,
                      writer, &stats, &error) != SLUICE_STATUS_OK ||
      sluice_walk_writer_commit(writer, &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "run: %s\n", error.message);
    return 1;
  }
  printf("kernel %s: abi %u, %u params, length %u, %llu walks\n",
         sluice_walk_kernel_node2vec.name,
         sluice_walk_kernel_node2vec.abi_version,
         sluice_walk_kernel_node2vec.num_params, options.max_length,
         (unsigned long long)stats.walks);
  sluice_walk_writer_release(writer);
  sluice_graph_release(graph);
  return 0;
}
