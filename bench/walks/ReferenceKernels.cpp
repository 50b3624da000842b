//===- ReferenceKernels.cpp - Hand-written reference walk kernels ---------===//
//
// HAND-WRITTEN, see ReferenceKernels.h. Each kernel reads its parameters
// from the 8-byte slots of frame->params and the graph through the C API
// (sluice/graph.h), as generated code does.
//
//===----------------------------------------------------------------------===//
#include "bench/walks/ReferenceKernels.h"

#include "sluice/walk_support.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

using namespace sluice::walkref;

namespace {

double paramF64(const sluice_walk_frame_t *f, unsigned slot) {
  double value;
  std::memcpy(&value, static_cast<const int64_t *>(f->params) + slot,
              sizeof(value));
  return value;
}

const sluice_walk_list_t *paramList(const sluice_walk_frame_t *f,
                                    unsigned slot) {
  const sluice_walk_list_t *list;
  std::memcpy(&list, static_cast<const int64_t *>(f->params) + slot,
              sizeof(list));
  return list;
}

int64_t slotOfF64(double value) {
  int64_t slot;
  std::memcpy(&slot, &value, sizeof(slot));
  return slot;
}

/// has_edge(u, v): binary search in u's sorted adjacency, by the runtime
/// function compiled kernels call (sluicec's walk-to-llvm lowers has_edge
/// to sluice_graph_has_edge).
bool hasEdge(const sluice_graph_t *g, uint32_t u, uint32_t v) {
  return sluice_graph_has_edge(g, u, v) != 0;
}

double degreeOf(const sluice_graph_t *g, uint32_t v) {
  const uint64_t *offsets = sluice_graph_offsets(g);
  return static_cast<double>(offsets[v + 1] - offsets[v]);
}

//===--- weight = w (deepwalk, ppr) ---------------------------------------===//

double weightW(const sluice_walk_frame_t *, uint32_t, uint64_t, double w) {
  return w;
}
double maxW(const sluice_walk_frame_t *f) {
  return sluice_graph_weight_max(f->graph, f->cur);
}
double minW(const sluice_walk_frame_t *f) {
  return sluice_graph_weight_min(f->graph, f->cur);
}
double sumW(const sluice_walk_frame_t *f) {
  return sluice_graph_weight_sum(f->graph, f->cur);
}

//===--- weight = 1 (udeepwalk) -------------------------------------------===//

double weightOne(const sluice_walk_frame_t *, uint32_t, uint64_t, double) {
  return 1.0;
}
double one(const sluice_walk_frame_t *) { return 1.0; }
double degreeOfCur(const sluice_walk_frame_t *f) {
  return degreeOf(f->graph, f->cur);
}

//===--- node2vec ----------------------------------------------------------===//
// weight(prev, cur, next, w) = if next == prev then w / p
//                              else if has_edge(prev, next) then w
//                              else w / q
// params: p (slot 0), q (slot 1).

double node2vecWeight(const sluice_walk_frame_t *f, uint32_t next, uint64_t,
                      double w) {
  if (next == f->prev)
    return w / paramF64(f, 0);
  if (hasEdge(f->graph, f->prev, next))
    return w;
  return w / paramF64(f, 1);
}
double node2vecMaxFactor(const sluice_walk_frame_t *f) {
  return std::max({1.0, 1.0 / paramF64(f, 0), 1.0 / paramF64(f, 1)});
}
double node2vecMinFactor(const sluice_walk_frame_t *f) {
  return std::min({1.0, 1.0 / paramF64(f, 0), 1.0 / paramF64(f, 1)});
}
double node2vecUpper(const sluice_walk_frame_t *f) {
  return maxW(f) * node2vecMaxFactor(f);
}
double node2vecLower(const sluice_walk_frame_t *f) {
  return minW(f) * node2vecMinFactor(f);
}
double node2vecSumUpper(const sluice_walk_frame_t *f) {
  return sumW(f) * node2vecMaxFactor(f);
}
double node2vecSumLower(const sluice_walk_frame_t *f) {
  return sumW(f) * node2vecMinFactor(f);
}

//===--- metapath ----------------------------------------------------------===//
// state hop: i64 = 0
// weight(cur, next, w) = if label(next) == schema[(hop + 1) % size(schema)]
//                        then w else 0.0
// update(cur, next) { hop += 1 }
// params: schema (slot 0, a list).

double metapathWeight(const sluice_walk_frame_t *f, uint32_t next, uint64_t,
                      double w) {
  const sluice_walk_list_t *schema = paramList(f, 0);
  int64_t hop = f->state[0];
  int64_t want = schema->data[(hop + 1) % schema->size];
  return sluice_graph_vertex_label(f->graph, next) == want ? w : 0.0;
}
void metapathUpdate(sluice_walk_frame_t *f, uint32_t) { f->state[0] += 1; }
double zero(const sluice_walk_frame_t *) { return 0.0; }
// The sum bounds walk-bounds derives for a label filter: the smallest and
// largest label mass of cur over the schema's labels.
double metapathSumUpper(const sluice_walk_frame_t *f) {
  return sluice_kernel_label_mass(f->graph, f->cur, paramList(f, 0), 0, 1);
}
double metapathSumLower(const sluice_walk_frame_t *f) {
  return sluice_kernel_label_mass(f->graph, f->cur, paramList(f, 0), 0, 0);
}

//===--- ppr2 --------------------------------------------------------------===//
// weight(prev, cur, next, w) =
//   if next != prev and has_edge(prev, next)
//   then (1 - alpha) / degree(cur) + alpha / degree(prev)
//   else (1 - alpha) / degree(cur)
// params: alpha (slot 0), restart (slot 1; the engine's stop probability).
// Bounds: prev has an edge to cur (or is cur), so degree(prev) >= 1; the
// sum over cur's edges is (1 - alpha) plus alpha times the fraction of
// prev's out-neighbours among them: in [1 - alpha, 1].

double ppr2Weight(const sluice_walk_frame_t *f, uint32_t next, uint64_t,
                  double) {
  double alpha = paramF64(f, 0);
  double base = (1.0 - alpha) / degreeOf(f->graph, f->cur);
  if (next != f->prev && hasEdge(f->graph, f->prev, next))
    return base + alpha / degreeOf(f->graph, f->prev);
  return base;
}
double ppr2Upper(const sluice_walk_frame_t *f) {
  double alpha = paramF64(f, 0);
  return (1.0 - alpha) / degreeOf(f->graph, f->cur) + alpha;
}
double ppr2Lower(const sluice_walk_frame_t *f) {
  return (1.0 - paramF64(f, 0)) / degreeOf(f->graph, f->cur);
}
double ppr2SumUpper(const sluice_walk_frame_t *) { return 1.0; }
double ppr2SumLower(const sluice_walk_frame_t *f) {
  return 1.0 - paramF64(f, 0);
}

sluice_walk_kernel_t makeKernel(const char *name,
                                sluice_walk_weight_class_t cls,
                                uint32_t flags, uint32_t numParams,
                                uint32_t numState) {
  sluice_walk_kernel_t k;
  std::memset(&k, 0, sizeof(k));
  k.abi_version = SLUICE_WALK_ABI_VERSION;
  k.flags = flags;
  k.name = name;
  k.weight_class = cls;
  k.num_params = numParams;
  k.num_state = numState;
  return k;
}

sluice_walk_kernel_t weightWKernel(const char *name, uint32_t numParams) {
  sluice_walk_kernel_t k =
      makeKernel(name, SLUICE_WALK_WEIGHT_STATIC, SLUICE_WALK_PURE_WEIGHT,
                 numParams, 0);
  k.weight = weightW;
  k.upper_bound = maxW;
  k.lower_bound = minW;
  k.sum_upper_bound = sumW;
  k.sum_lower_bound = sumW;
  return k;
}

sluice_walk_kernel_t uniformKernel() {
  sluice_walk_kernel_t k = makeKernel("udeepwalk", SLUICE_WALK_WEIGHT_CONSTANT,
                                      SLUICE_WALK_PURE_WEIGHT, 0, 0);
  k.weight = weightOne;
  k.upper_bound = one;
  k.lower_bound = one;
  k.sum_upper_bound = degreeOfCur;
  k.sum_lower_bound = degreeOfCur;
  return k;
}

sluice_walk_kernel_t node2vecKernel(const char *name) {
  sluice_walk_kernel_t k = makeKernel(
      name, SLUICE_WALK_WEIGHT_DYNAMIC,
      SLUICE_WALK_SECOND_ORDER | SLUICE_WALK_PURE_WEIGHT, 2, 0);
  k.weight = node2vecWeight;
  k.upper_bound = node2vecUpper;
  k.lower_bound = node2vecLower;
  k.sum_upper_bound = node2vecSumUpper;
  k.sum_lower_bound = node2vecSumLower;
  return k;
}

sluice_walk_kernel_t metapathKernel() {
  sluice_walk_kernel_t k = makeKernel("metapath", SLUICE_WALK_WEIGHT_DYNAMIC,
                                      SLUICE_WALK_MAY_BE_ZERO, 1, 1);
  k.weight = metapathWeight;
  k.update = metapathUpdate;
  k.upper_bound = maxW;
  k.lower_bound = zero;
  k.sum_upper_bound = metapathSumUpper;
  k.sum_lower_bound = metapathSumLower;
  return k;
}

sluice_walk_kernel_t ppr2Kernel() {
  sluice_walk_kernel_t k = makeKernel(
      "ppr2", SLUICE_WALK_WEIGHT_DYNAMIC,
      SLUICE_WALK_SECOND_ORDER | SLUICE_WALK_PURE_WEIGHT, 2, 0);
  k.weight = ppr2Weight;
  k.upper_bound = ppr2Upper;
  k.lower_bound = ppr2Lower;
  k.sum_upper_bound = ppr2SumUpper;
  k.sum_lower_bound = ppr2SumLower;
  return k;
}

const sluice_walk_kernel_t kDeepWalk = weightWKernel("deepwalk", 0);
const sluice_walk_kernel_t kUniformDeepWalk = uniformKernel();
const sluice_walk_kernel_t kNode2Vec = node2vecKernel("node2vec");
const sluice_walk_kernel_t kWeightedNode2Vec = node2vecKernel("wnode2vec");
const sluice_walk_kernel_t kPPR = weightWKernel("ppr", 2);
const sluice_walk_kernel_t kMetaPath = metapathKernel();
const sluice_walk_kernel_t kPPR2 = ppr2Kernel();

/// splitmix64: the hash behind the synthetic weights and labels.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Edges {
  std::vector<uint32_t> sources, targets;
  std::vector<float> weights;
};

Edges edgesOf(const sluice_graph_t *g) {
  Edges e;
  uint64_t n = sluice_graph_num_vertices(g), m = sluice_graph_num_edges(g);
  const uint64_t *offsets = sluice_graph_offsets(g);
  const uint32_t *targets = sluice_graph_targets(g);
  e.sources.resize(m);
  e.targets.assign(targets, targets + m);
  for (uint64_t v = 0; v < n; ++v)
    for (uint64_t i = offsets[v]; i < offsets[v + 1]; ++i)
      e.sources[i] = static_cast<uint32_t>(v);
  if (const float *w = sluice_graph_weights(g))
    e.weights.assign(w, w + m);
  return e;
}

GraphPtr build(const sluice_graph_t *g, const Edges &e,
               const int32_t *labels) {
  sluice_graph_t *out = nullptr;
  sluice_error_t error;
  sluice_status_t status = sluice_graph_create_from_edges(
      sluice_graph_num_vertices(g), e.sources.size(), e.sources.data(),
      e.targets.data(), e.weights.empty() ? nullptr : e.weights.data(),
      sluice_graph_edge_labels(g), labels, 0, &out, &error);
  if (status != SLUICE_STATUS_OK)
    throw std::runtime_error(std::string("walkref: ") + error.message);
  return GraphPtr(out);
}

} // namespace

const char *sluice::walkref::name(Workload w) {
  switch (w) {
  case Workload::DeepWalk:
    return "deepwalk";
  case Workload::UniformDeepWalk:
    return "udeepwalk";
  case Workload::Node2Vec:
    return "node2vec";
  case Workload::WeightedNode2Vec:
    return "wnode2vec";
  case Workload::PPR:
    return "ppr";
  case Workload::MetaPath:
    return "metapath";
  case Workload::PPR2:
    return "ppr2";
  }
  return "?";
}

bool sluice::walkref::fromName(const std::string &text, Workload *out) {
  for (Workload w : kAllWorkloads)
    if (text == name(w)) {
      *out = w;
      return true;
    }
  return false;
}

const sluice_walk_kernel_t *sluice::walkref::kernel(Workload w) {
  switch (w) {
  case Workload::DeepWalk:
    return &kDeepWalk;
  case Workload::UniformDeepWalk:
    return &kUniformDeepWalk;
  case Workload::Node2Vec:
    return &kNode2Vec;
  case Workload::WeightedNode2Vec:
    return &kWeightedNode2Vec;
  case Workload::PPR:
    return &kPPR;
  case Workload::MetaPath:
    return &kMetaPath;
  case Workload::PPR2:
    return &kPPR2;
  }
  return nullptr;
}

bool sluice::walkref::needsWeights(Workload w) {
  return w == Workload::WeightedNode2Vec;
}
bool sluice::walkref::needsLabels(Workload w) {
  return w == Workload::MetaPath;
}

Params::Params(Workload w) {
  switch (w) {
  case Workload::DeepWalk:
  case Workload::UniformDeepWalk:
    break;
  case Workload::Node2Vec:
  case Workload::WeightedNode2Vec:
    slots_ = {slotOfF64(kP), slotOfF64(kQ)};
    break;
  case Workload::PPR:
    slots_ = {0, slotOfF64(kRestart)};
    break;
  case Workload::MetaPath:
    slots_.resize(1);
    setSchema(std::vector<int64_t>(std::begin(kSchema), std::end(kSchema)));
    break;
  case Workload::PPR2:
    slots_ = {slotOfF64(kAlpha), slotOfF64(kRestart)};
    break;
  }
}

void Params::setNode2Vec(double p, double q) {
  slots_.resize(2);
  slots_[0] = slotOfF64(p);
  slots_[1] = slotOfF64(q);
}

void Params::setSchema(const std::vector<int64_t> &schema) {
  schema_ = schema;
  list_.data = schema_.data();
  list_.size = static_cast<int64_t>(schema_.size());
  slots_.resize(std::max<size_t>(slots_.size(), 1));
  const sluice_walk_list_t *pointer = &list_;
  std::memcpy(&slots_[0], &pointer, sizeof(pointer));
}

void Params::setAlpha(double alpha) {
  slots_.resize(2);
  slots_[0] = slotOfF64(alpha);
}

void sluice::walkref::applyOptions(Workload w, sluice_walk_options_t *options,
                                   const uint32_t *source) {
  if (w == Workload::PPR || w == Workload::PPR2)
    options->stop_probability = kRestart;
  if (w == Workload::PPR && source) {
    options->starts = source;
    options->num_starts = 1;
  }
}

GraphPtr sluice::walkref::withSyntheticWeights(const sluice_graph_t *graph,
                                               uint64_t seed) {
  Edges e = edgesOf(graph);
  e.weights.resize(e.sources.size());
  for (size_t i = 0; i < e.sources.size(); ++i) {
    uint64_t a = std::min(e.sources[i], e.targets[i]);
    uint64_t b = std::max(e.sources[i], e.targets[i]);
    uint64_t h = mix(seed ^ mix(a << 32 | b));
    e.weights[i] = 1.0f + 4.0f * static_cast<float>(h >> 40) * 0x1.0p-24f;
  }
  return build(graph, e, sluice_graph_vertex_labels(graph));
}

GraphPtr sluice::walkref::withSyntheticLabels(const sluice_graph_t *graph,
                                              uint32_t numLabels,
                                              uint64_t seed) {
  Edges e = edgesOf(graph);
  uint64_t n = sluice_graph_num_vertices(graph);
  std::vector<int32_t> labels(n);
  for (uint64_t v = 0; v < n; ++v)
    labels[v] = static_cast<int32_t>(mix(seed ^ mix(v)) % numLabels);
  return build(graph, e, labels.data());
}
