//===- BenchTextLoad.cpp - Seconds of one text edge-list load -------------===//
//
//   sluice-bench-text-load FILE THREADS [--compact] [--chunks[=BYTES]]
//
// Loads FILE (SNAP, quiet, compact ids with --compact) with `threads` =
// THREADS and prints "seconds vertices edges". --chunks parses in chunks
// whatever the file's size and the thread count (pieces of BYTES a thread
// and pass; default the runtime's), through the runtime's test-only
// tuning: how the size threshold of runtime/src/ChunkedEdgeList.h was
// measured (bench/RESULTS.md, "Loading text").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ChunkedEdgeList.h"
#include "sluice/graph.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FILE THREADS [--compact] "
                         "[--chunks[=BYTES]]\n",
                 argv[0]);
    return 2;
  }
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.format = SLUICE_GRAPH_FORMAT_SNAP;
  o.flags = SLUICE_GRAPH_LOAD_QUIET;
  char *end = nullptr;
  unsigned long threads = std::strtoul(argv[2], &end, 10);
  if (*end || threads > 1024) {
    std::fprintf(stderr, "THREADS must be 0..1024, got '%s'\n", argv[2]);
    return 2;
  }
  o.threads = static_cast<uint32_t>(threads);
  sluice::rt::ChunkedParseTuning tuning;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--compact") {
      o.flags |= SLUICE_GRAPH_LOAD_COMPACT_IDS;
    } else if (arg.rfind("--chunks", 0) == 0) {
      tuning.force = true;
      if (arg.size() > 8) {
        unsigned long long bytes = std::strtoull(arg.c_str() + 9, &end, 10);
        if (arg[8] != '=' || *end || bytes == 0) {
          std::fprintf(stderr, "--chunks=BYTES needs BYTES > 0\n");
          return 2;
        }
        tuning.pieceBytes = static_cast<size_t>(bytes);
      }
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (tuning.force)
    sluice::rt::setChunkedParseTuningForTesting(&tuning);
  sluice_graph_t *graph = nullptr;
  sluice_error_t error;
  auto start = std::chrono::steady_clock::now();
  if (sluice_graph_load(argv[1], &o, &graph, &error) != SLUICE_STATUS_OK) {
    char text[2048];
    sluice_error_format(&error, text, sizeof(text));
    std::fprintf(stderr, "%s\n", text);
    return 1;
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  std::printf("%.4f %llu %llu\n", seconds,
              static_cast<unsigned long long>(sluice_graph_num_vertices(graph)),
              static_cast<unsigned long long>(sluice_graph_num_edges(graph)));
  sluice_graph_release(graph);
  return 0;
}
