//===- BenchGnnGat.cpp - GAT's per-edge attention work, per slot ----------===//
//
//   sluice-bench-gnn-gat [--threads=T] [--repeat=R] [--dst=D] [--src=S]
//
// What one attention slot (a dst vertex's self loop or one of its sampled
// edges) costs in the runtime's GAT layer (runtime/src/gnn/Gat.{h,cpp}):
// the source of the plan's per-edge attention term (docs/gnn.md, "GAT",
// and its constants table). For each (heads H, head width F) of a fixed
// grid, a synthetic block of D dst rows and S src rows (the dst rows
// first) whose dst rows each have k distinct random src neighbours, dense
// input rows of width 16, is run through the runtime's gatForward and
// gatBackward (the layer's own code; no dX) with k = 4 and k = 16,
// alternating, R times each. Everything but the per-slot loops (the
// projection, the scores, the weight and attention-vector gradients) does
// not depend on k, so the difference of the medians over the 12 D extra
// slots is the marginal time of one slot: forward (the logit, LeakyReLU,
// max, exp, sum and division per head and the weighted sum over the Z
// row) and backward (dalpha over the Z row, the softmax and LeakyReLU
// backward, the ds scatter per head, the scatter into the dZ row). Prints
// per configuration those per-slot times (from the minima and from the
// medians of the CPU time), then least-squares lines through the medians:
// the time per slot and head (the slope over H of the F = 1 rows) and per
// slot and column of P = H F (the slope over P of the other rows, the
// heads' share taken off), with their intercepts.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/gnn/Gat.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <time.h>
#include <vector>

using namespace sluice::rt;
using namespace sluice::rt::gnn;

namespace {

struct Args {
  uint32_t threads = 1, repeat = 9, dst = 256, src = 1024;
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "sluice-bench-gnn-gat: %s\n", message.c_str());
  std::exit(1);
}

Args parse(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *eq = std::strchr(arg, '=');
    char *end = nullptr;
    const unsigned long v = eq ? std::strtoul(eq + 1, &end, 10) : 0;
    const bool number = eq && eq[1] && !*end && v > 0 && v <= 1u << 20;
    const std::string key(arg, eq ? eq - arg : std::strlen(arg));
    uint32_t *field = key == "--threads"  ? &a.threads
                      : key == "--repeat" ? &a.repeat
                      : key == "--dst"    ? &a.dst
                      : key == "--src"    ? &a.src
                                          : nullptr;
    if (!field || !number)
      die(std::string("bad argument '") + arg +
          "' (see the header of BenchGnnGat.cpp)");
    *field = static_cast<uint32_t>(v);
  }
  if (a.src < a.dst + 16)
    die("--src must be at least --dst + 16 (distinct neighbours)");
  return a;
}

/// D dst rows, each with k distinct random neighbours among the S src rows.
Block makeBlock(uint32_t dst, uint32_t src, uint32_t k, uint64_t seed) {
  Block b;
  b.numDst = dst;
  b.src.resize(src);
  for (uint32_t j = 0; j < src; ++j)
    b.src[j] = j;
  std::mt19937_64 rng(seed);
  b.offsets.push_back(0);
  std::vector<uint32_t> pick;
  for (uint32_t d = 0; d < dst; ++d) {
    pick.clear();
    while (pick.size() < k) {
      const uint32_t u = static_cast<uint32_t>(rng() % src);
      if (std::find(pick.begin(), pick.end(), u) == pick.end())
        pick.push_back(u);
    }
    b.nbr.insert(b.nbr.end(), pick.begin(), pick.end());
    b.offsets.push_back(static_cast<uint32_t>(b.nbr.size()));
  }
  b.coef.assign(b.nbr.size(), 1.0f / k);
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double minimum(const std::vector<double> &v) {
  return *std::min_element(v.begin(), v.end());
}

struct Layer {
  ModelShape shape;
  Input input;
  std::vector<float> h, param, grad, y, dY;
  Activations acts;
};

Layer makeLayer(uint32_t heads, uint32_t width, uint32_t src) {
  Layer L;
  const uint32_t in = 16;
  // Layer 0 of two: a hidden layer, heads of `width` concatenated.
  L.shape.kind = SLUICE_GNN_GAT;
  L.shape.heads = heads;
  L.shape.widths = {in, heads * width, 2};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  L.h.resize(size_t(src) * in);
  for (float &x : L.h)
    x = uni(rng);
  L.param.resize(L.shape.paramCount(0));
  for (float &x : L.param)
    x = 0.2f * uni(rng);
  L.grad.assign(L.param.size(), 0.0f);
  L.acts.projected.resize(1);
  L.acts.logit.resize(1);
  L.acts.attention.resize(1);
  return L;
}

/// Least-squares line y = a + b x: {a, b}.
std::pair<double, double> fitLine(const std::vector<double> &x,
                                  const std::vector<double> &y) {
  const double n = double(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return {(sy - b * sx) / n, b};
}

/// CPU seconds of the process (the threads' time running, not waiting for
/// a core: the VM is shared, and a wall clock counts the other jobs'
/// slices too).
double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// CPU seconds of one forward and one backward pass of `b`.
std::pair<double, double> timeLayer(AlgoThreadPool *pool, Layer &L,
                                    const Block &b) {
  const size_t out = L.shape.widths[1];
  L.y.resize(size_t(b.numDst) * out);
  L.dY.assign(L.y.size(), 0.01f);
  const double t0 = cpuSeconds();
  gatForward(pool, L.shape, 0, b, L.input, L.h.data(), L.param.data(), L.acts,
             L.y.data());
  const double t1 = cpuSeconds();
  gatBackward(pool, L.shape, 0, b, L.input, L.h.data(), L.param.data(), L.acts,
              L.dY.data(), L.grad.data(), nullptr);
  return {t1 - t0, cpuSeconds() - t1};
}

} // namespace

int main(int argc, char **argv) {
  const Args a = parse(argc, argv);
  std::unique_ptr<AlgoThreadPool> owned;
  if (a.threads > 1)
    owned = std::make_unique<AlgoThreadPool>(a.threads);
  AlgoThreadPool *pool = owned.get();
  const uint32_t kLow = 4, kHigh = 16;
  const Block low = makeBlock(a.dst, a.src, kLow, 1);
  const Block high = makeBlock(a.dst, a.src, kHigh, 2);
  const double extraSlots = double(a.dst) * (kHigh - kLow);
  std::printf("# GAT per-slot time: block %u dst, %u src, k %u vs %u "
              "neighbours, input width 16, %u thread(s), median of %u\n",
              a.dst, a.src, kLow, kHigh, a.threads, a.repeat);
  std::printf("heads\twidth\tP\tforward ns/slot (min)\tbackward ns/slot "
              "(min)\tforward ns/slot (median)\tbackward ns/slot (median)\n");
  const uint32_t grid[][2] = {{1, 1},  {2, 1},  {4, 1},  {8, 1},
                              {1, 16}, {4, 16}, {8, 16}, {1, 64},
                              {4, 42}, {2, 64}, {4, 64}, {8, 42}};
  // Per configuration: heads, P, forward and backward ns a slot (medians).
  std::vector<double> heads, cols, fwd, bwd;
  for (const auto &hw : grid) {
    Layer L = makeLayer(hw[0], hw[1], a.src);
    std::vector<double> fLow, fHigh, bLow, bHigh;
    timeLayer(pool, L, low); // warm the buffers
    timeLayer(pool, L, high);
    for (uint32_t r = 0; r < a.repeat; ++r) {
      // Alternate which block runs first.
      const bool lowFirst = r % 2 == 0;
      auto first = timeLayer(pool, L, lowFirst ? low : high);
      auto second = timeLayer(pool, L, lowFirst ? high : low);
      auto &tl = lowFirst ? first : second, &th = lowFirst ? second : first;
      fLow.push_back(tl.first);
      bLow.push_back(tl.second);
      fHigh.push_back(th.first);
      bHigh.push_back(th.second);
    }
    auto slope = [&](double (*stat)(const std::vector<double> &),
                     const std::vector<double> &hi,
                     const std::vector<double> &lo) {
      return (stat(hi) - stat(lo)) / extraSlots * 1e9;
    };
    auto med = [](const std::vector<double> &v) { return median(v); };
    heads.push_back(hw[0]);
    cols.push_back(hw[0] * hw[1]);
    fwd.push_back(slope(med, fHigh, fLow));
    bwd.push_back(slope(med, bHigh, bLow));
    std::printf("%u\t%u\t%u\t%.1f\t%.1f\t%.1f\t%.1f\n", hw[0], hw[1],
                hw[0] * hw[1], slope(minimum, fHigh, fLow),
                slope(minimum, bHigh, bLow), fwd.back(), bwd.back());
  }
  // Per head: the slope over the heads of the width-1 rows (the first
  // four), where a slot's row is H floats. Per column: the slope over P of
  // the other rows once the heads' share is taken off; its intercept is
  // the rows' set-up.
  auto perHead = [&](const std::vector<double> &t) {
    return fitLine({heads.begin(), heads.begin() + 4},
                   {t.begin(), t.begin() + 4});
  };
  auto perColumn = [&](const std::vector<double> &t, double head) {
    std::vector<double> x, y;
    for (size_t i = 4; i < t.size(); ++i) {
      x.push_back(cols[i]);
      y.push_back(t[i] - head * heads[i]);
    }
    return fitLine(x, y);
  };
  const auto fh = perHead(fwd), bh = perHead(bwd);
  const auto fc = perColumn(fwd, fh.second), bc = perColumn(bwd, bh.second);
  std::printf("per slot and head (width 1; medians): forward %.2f ns, "
              "backward %.2f ns (intercepts %.2f, %.2f ns)\n",
              fh.second, bh.second, fh.first, bh.first);
  std::printf("per slot and column (width > 1, less the heads): forward "
              "%.3f ns, backward %.3f ns (intercepts %.2f, %.2f ns)\n",
              fc.second, bc.second, fc.first, bc.first);
  return 0;
}
