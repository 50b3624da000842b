/* Runs a kernel that `sluicec -c PROG.sluice -o k.o` compiled, RUNS times
 * in one process on a graph file (the bench's cached binary CSR), each run
 * in a new context as sluicec --run does: the kernel's time, minor page
 * faults and the process's CPU time per run (the first run is cold, the
 * later ones warm), and with -DWRAP the time inside
 * sluice_algo_parallel_for and its calls and items (bench/RESULTS.md,
 * "Graph algorithms: a round's fixed cost"). Built per
 * kernel, e.g. for the bench's SSSP on luxembourg_osm (source id 1, one
 * property):
 *
 *   cc -O2 -Iruntime/include -include k.h -DALGO=sssp -DNPROPS=1 \
 *      '-DPARAMS_INIT={1}' bench/algorithms/kernel-driver.c k.o \
 *      build/lib/libsluicert.a -lstdc++ -lz -luring -lzstd -llz4 -lpthread -lm
 *   # with -DWRAP -Wl,--wrap=sluice_algo_parallel_for for per-pass times
 *
 *   kernel-driver GRAPH THREADS RUNS
 *
 * `valgrind --tool=callgrind --toggle-collect=sluice_algo_sssp` on it
 * counts the kernel's instructions alone. The checksum sums the first
 * property as 8-byte words (equal runs, equal sums). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
static long faults(void) { struct rusage r; getrusage(RUSAGE_SELF, &r); return r.ru_minflt; }
/* The process's CPU time (user and system): with 1 thread, the kernel's
 * own, without the time it waited for a core on a loaded machine. */
static double cpu(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec +
         (r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN CAT(sluice_algo_, ALGO)
#define PT CAT(CAT(sluice_algo_params_, ALGO), _t)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#ifdef WRAP
void __real_sluice_algo_parallel_for(sluice_algo_ctx_t *, uint64_t, int32_t,
                                     uint64_t, sluice_algo_range_fn_t, void *);
static double pfTime;
static unsigned long pfCalls, pfItems, pfSmall;
void __wrap_sluice_algo_parallel_for(sluice_algo_ctx_t *c, uint64_t n,
                                     int32_t s, uint64_t ch,
                                     sluice_algo_range_fn_t fn, void *env) {
  double t = now();
  __real_sluice_algo_parallel_for(c, n, s, ch, fn, env);
  pfTime += now() - t;
  ++pfCalls;
  pfItems += n;
  pfSmall += n < 128;
}
#endif

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.flags = SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *graph = NULL;
  sluice_error_t error;
  if (sluice_graph_load(argv[1], &load, &graph, &error) != SLUICE_STATUS_OK) {
    fprintf(stderr, "load: %s\n", error.message);
    return 1;
  }
  int threads = atoi(argv[2]), runs = atoi(argv[3]);
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.threads = threads;
  options.quiet = 1;
  uint64_t n = sluice_graph_num_vertices(graph);
  for (int r = 0; r < runs; ++r) {
    sluice_algo_ctx_t *ctx = NULL;
    if (sluice_algo_ctx_create(graph, &options, &ctx, &error) !=
        SLUICE_STATUS_OK)
      return 1;
    void *props[NPROPS];
    for (int i = 0; i < NPROPS; ++i)
      { props[i] = calloc(n ? n : 1, 8); volatile char *c = props[i]; for (uint64_t b = 0; b < n * 8; b += 4096) c[b] = 0; }
    PT params = PARAMS_INIT;
#ifdef WRAP
    pfTime = 0;
    pfCalls = pfItems = pfSmall = 0;
#endif
    long f0 = faults();
    double c0 = cpu();
    double t0 = now();
    FN(ctx, &params, props);
    double t = now() - t0;
    double ct = cpu() - c0;
    long df = faults() - f0;
    long sum = 0;
    for (uint64_t v = 0; v < n; ++v)
      sum += ((long *)props[0])[v];
    printf("run %d: %.6f s faults %ld passes %lu check %ld cpu %.6f s", r, t,
           df, (unsigned long)sluice_algo_passes(ctx), sum, ct);
#ifdef WRAP
    printf(" | pf %.6f s calls %lu items %lu small %lu", pfTime, pfCalls,
           pfItems, pfSmall);
#endif
    printf("\n");
    for (int i = 0; i < NPROPS; ++i)
      free(props[i]);
    sluice_algo_ctx_release(ctx);
  }
  sluice_graph_release(graph);
  return 0;
}
