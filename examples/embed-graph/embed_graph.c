/*===- embed_graph.c - Load a graph through libsluicert's C API -----------===*
 *
 * The smallest useful embedding of the Sluice runtime: parse a few options,
 * load a graph (edge list, Matrix Market, binary CSR; gzip'd or not), print
 * what it holds and what it costs in memory, and optionally write it as a
 * binary CSR file and write a few deterministic walks. Every call's status
 * is checked and its error details printed.
 *
 *   sluice-embed-graph [options] GRAPH
 *     --format auto|snap|mtx|mtx-body|binary   (default auto)
 *     --undirected --drop-self-loops --dedup --compact-ids
 *     --simple          all four: a simple undirected graph
 *     --sum-duplicates  merge duplicate edges adding up their weights
 *     --weights none|column|ones
 *     --edge-labels     read an edge label column
 *     --labels FILE     vertex labels, "vertex label" per line
 *     --quiet           no progress lines
 *     --write-binary OUT   write the graph as binary CSR
 *     --walks OUT       write one walk per vertex (.npy: int64, else text)
 *     --walk-length L   vertices per walk (default 5)
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L

#include "sluice/graph.h"
#include "sluice/runtime.h"
#include "sluice/walk_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Prints "error: <status>: path:line:col: message" and returns 1. */
static int report(const char *what, sluice_status_t status,
                  const sluice_error_t *error) {
  char text[2048];
  sluice_error_format(error, text, sizeof(text));
  fprintf(stderr, "error: %s: %s: %s\n", what, sluice_status_message(status),
          text);
  return 1;
}

static int usage(void) {
  fprintf(stderr, "usage: sluice-embed-graph [--format F] [--undirected] "
                  "[--drop-self-loops] [--dedup] [--compact-ids] [--simple]\n"
                  "       [--sum-duplicates] [--weights none|column|ones] "
                  "[--edge-labels] "
                  "[--labels FILE] [--quiet]\n"
                  "       [--write-binary OUT] [--walks OUT] [--walk-length L] "
                  "GRAPH\n");
  return 2;
}

/* Walk i starts at vertex i and takes, at step k, the neighbour at index
 * (i + k) mod degree: deterministic, so the output can be diffed. */
static int write_walks(const sluice_graph_t *graph, const char *path,
                       uint32_t length) {
  uint64_t n = sluice_graph_num_vertices(graph);
  const uint64_t *offsets = sluice_graph_offsets(graph);
  const uint32_t *targets = sluice_graph_targets(graph);
  uint32_t *walks = malloc((n ? n : 1) * length * sizeof(uint32_t));
  uint32_t *lengths = malloc((n ? n : 1) * sizeof(uint32_t));
  if (!walks || !lengths) {
    free(walks);
    free(lengths);
    fprintf(stderr, "error: out of memory for %llu walks\n",
            (unsigned long long)n);
    return 1;
  }
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t v = (uint32_t)i, k = 0;
    walks[i * length] = v;
    for (k = 1; k < length; ++k) {
      uint64_t degree = offsets[v + 1] - offsets[v];
      if (degree == 0)
        break;
      v = targets[offsets[v] + (i + k) % degree];
      walks[i * length + k] = v;
    }
    lengths[i] = k;
  }
  size_t len = strlen(path);
  sluice_walk_format_t format = len > 4 && strcmp(path + len - 4, ".npy") == 0
                                    ? SLUICE_WALK_FORMAT_NPY_INT64
                                    : SLUICE_WALK_FORMAT_TEXT;
  sluice_error_t error;
  sluice_status_t status =
      sluice_walks_write(path, format, walks, lengths, n, length,
                         SLUICE_WALK_WRITE_ORIGINAL_IDS, graph, &error);
  free(walks);
  free(lengths);
  if (status != SLUICE_STATUS_OK)
    return report("writing walks", status, &error);
  printf("walks          %llu written to %s\n", (unsigned long long)n, path);
  return 0;
}

int main(int argc, char **argv) {
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  const char *path = NULL, *binary_out = NULL, *walks_out = NULL;
  uint32_t walk_length = 5;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--format") == 0 && value) {
      if (sluice_graph_format_from_name(value, &options.format) !=
          SLUICE_STATUS_OK) {
        fprintf(stderr, "error: unknown format '%s'\n", value);
        return 2;
      }
      ++i;
    } else if (strcmp(arg, "--undirected") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
    } else if (strcmp(arg, "--drop-self-loops") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
    } else if (strcmp(arg, "--sum-duplicates") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
    } else if (strcmp(arg, "--dedup") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_DEDUPLICATE;
    } else if (strcmp(arg, "--compact-ids") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_COMPACT_IDS;
    } else if (strcmp(arg, "--simple") == 0) {
      options.flags |=
          SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
          SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS;
    } else if (strcmp(arg, "--edge-labels") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN;
    } else if (strcmp(arg, "--quiet") == 0) {
      options.flags |= SLUICE_GRAPH_LOAD_QUIET;
    } else if (strcmp(arg, "--weights") == 0 && value) {
      if (strcmp(value, "none") == 0)
        options.weights = SLUICE_WEIGHTS_NONE;
      else if (strcmp(value, "column") == 0)
        options.weights = SLUICE_WEIGHTS_COLUMN;
      else if (strcmp(value, "ones") == 0)
        options.weights = SLUICE_WEIGHTS_ONES;
      else
        return usage();
      ++i;
    } else if (strcmp(arg, "--labels") == 0 && value) {
      options.vertex_labels_path = value;
      ++i;
    } else if (strcmp(arg, "--write-binary") == 0 && value) {
      binary_out = value;
      ++i;
    } else if (strcmp(arg, "--walks") == 0 && value) {
      walks_out = value;
      ++i;
    } else if (strcmp(arg, "--walk-length") == 0 && value) {
      walk_length = (uint32_t)strtoul(value, NULL, 10);
      ++i;
    } else if (arg[0] == '-' || path) {
      return usage();
    } else {
      path = arg;
    }
  }
  if (!path)
    return usage();

  sluice_graph_t *graph = NULL;
  sluice_error_t error;
  double start = now_seconds();
  sluice_status_t status = sluice_graph_load(path, &options, &graph, &error);
  double seconds = now_seconds() - start;
  if (status != SLUICE_STATUS_OK)
    return report("loading", status, &error);

  uint64_t n = sluice_graph_num_vertices(graph);
  uint64_t m = sluice_graph_num_edges(graph);
  uint32_t props = sluice_graph_properties(graph);
  uint64_t max_degree = 0, isolated = 0;
  uint32_t max_vertex = 0;
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t d = sluice_graph_degree(graph, (uint32_t)v);
    if (d > max_degree) {
      max_degree = d;
      max_vertex = (uint32_t)v;
    }
    isolated += d == 0;
  }
  sluice_graph_memory_t memory;
  sluice_graph_memory(graph, &memory);
  sluice_graph_load_stats_t loaded;
  sluice_graph_load_stats(graph, &loaded);

  printf("graph          %s\n", path);
  printf("vertices       %llu\n", (unsigned long long)n);
  printf("edges          %llu (stored arcs)\n", (unsigned long long)m);
  printf("properties    %s%s%s%s%s%s%s%s\n",
         props & SLUICE_GRAPH_DIRECTED ? " directed" : " undirected",
         props & SLUICE_GRAPH_WEIGHTED ? " weighted" : "",
         props & SLUICE_GRAPH_VERTEX_LABELS ? " vertex-labels" : "",
         props & SLUICE_GRAPH_EDGE_LABELS ? " edge-labels" : "",
         props & SLUICE_GRAPH_COMPACTED ? " compacted" : "",
         props & SLUICE_GRAPH_NO_DUPLICATES ? " no-duplicates" : "",
         props & SLUICE_GRAPH_NO_SELF_LOOPS ? " no-self-loops" : "",
         props & SLUICE_GRAPH_MAPPED ? " mapped" : "");
  printf("max degree     %llu (vertex %u, original id %llu)\n",
         (unsigned long long)max_degree, max_vertex,
         (unsigned long long)sluice_graph_original_id(graph, max_vertex));
  printf("mean degree    %.2f\n", n ? (double)m / (double)n : 0.0);
  printf("no out-edges   %llu vertices\n", (unsigned long long)isolated);
  printf("read           %llu edges: %llu self loops, %llu duplicate edges "
         "(%llu arcs merged), %llu vertices without edges\n",
         (unsigned long long)loaded.input_edges,
         (unsigned long long)loaded.self_loops,
         (unsigned long long)loaded.duplicate_edges,
         (unsigned long long)loaded.merged_arcs,
         (unsigned long long)loaded.isolated_vertices);
  printf("memory         %llu bytes (%llu heap, %llu mapped)\n",
         (unsigned long long)memory.total_bytes,
         (unsigned long long)memory.heap_bytes,
         (unsigned long long)memory.mapped_bytes);
  printf("bytes/edge     %.2f (CSR arrays %.2f)\n",
         m ? (double)memory.total_bytes / (double)m : 0.0,
         m ? (double)(memory.offsets_bytes + memory.targets_bytes +
                      memory.weights_bytes) /
                 (double)m
           : 0.0);
  printf("load time      %.3f s\n", seconds);

  int rc = 0;
  if (binary_out) {
    status = sluice_graph_write_binary(graph, binary_out, &error);
    if (status != SLUICE_STATUS_OK)
      rc = report("writing the binary CSR", status, &error);
    else
      printf("binary CSR     written to %s\n", binary_out);
  }
  if (rc == 0 && walks_out)
    rc = write_walks(graph, walks_out, walk_length ? walk_length : 1);
  sluice_graph_release(graph);
  return rc;
}
