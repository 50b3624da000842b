//===- GnnCost.h - Cost model of mini-batch GNN training --------*- C++ -*-===//
//
// What `sluicec --emit=plan` predicts for a gnn `train` job (docs/gnn.md,
// "Plan and cost model"), over plain structs (no IR):
//
//  - profileBatch: the expected size of one mini-batch's blocks under the
//    fanouts, exactly as the runtime's sampler builds them (hop h samples
//    the neighbours of every vertex reached at hops 0..h-1, distinct
//    vertices kept once), from each vertex's probability of being a seed;
//  - placeFeatures: the unified static cache: feature rows ranked by their
//    expected accesses per epoch (sluice_gnn_expected_accesses), the
//    hottest in GPU memory (when the layers run there), then host memory,
//    the rest on the NVMe drives;
//  - predictEpoch: per-stage times of the pipeline (sampling, feature
//    gather per tier, compute, optimizer, the batches' fixed costs,
//    evaluation), the epoch time of the bounded ring and the stage that
//    bounds it;
//  - throughput per cost (Hyperion's TPC) and the SSD count and host
//    cache size that maximise it within a budget.
//
// Every constant is in GnnCostConstants with its meaning and where its
// value comes from.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_GNN_GNNCOST_H
#define SLUICE_COMPILER_ANALYSIS_GNN_GNNCOST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::gnn {

/// Per-operation costs of the CPU runtime (runtime/src/gnn), measured on
/// the development machine (docs/gnn.md, "Constants"): seconds per
/// operation on one core, or dimensionless fractions.
struct GnnCostConstants {
  /// Sampling, per frontier vertex (Floyd's draw set-up, block offsets).
  double samplePerVertex = 60e-9;
  /// Sampling, per sampled edge (a Philox draw, the dedup stamp, the
  /// coefficient).
  double samplePerEdge = 17e-9;
  /// Gather from host memory, per dense row (lookup and copy set-up); the
  /// bytes move at the host memory bandwidth on top.
  double gatherPerRow = 10e-9;
  /// Gather of a one-hot row (one (column, 1) pair).
  double identityPerRow = 2e-9;
  /// Attained share of the CPU's peak FP32 FLOP/s by the layers' small,
  /// skinny products (forward and backward).
  double cpuGemmEfficiency = 0.07;
  /// Sparse input layer, per (non-zero x output column) multiply-add on
  /// one core.
  double sparsePerMac = 1.0e-9;
  /// GAT's per-edge attention on one core, per slot (a dst vertex's self
  /// loop or one of its sampled edges) and head: the forward's logit,
  /// LeakyReLU, max, exp, sum and division; the backward's softmax and
  /// LeakyReLU backward and the ds scatters (sluice-bench-gnn-gat, the
  /// slope over the heads at head width 1; docs/gnn.md, "Constants").
  double attentionForwardPerHead = 9.5e-9;
  double attentionBackwardPerHead = 8.0e-9;
  /// The backward's work per slot and column (P = H F columns) beyond the
  /// rows' bytes: dalpha's dot product (a serial float sum) and the dZ
  /// scatter's head lookup (sluice-bench-gnn-gat: 2.37 ns a column, the
  /// slope over P at widths > 1, less the two rows' 8 B at 23 GB/s).
  double attentionBackwardPerColumn = 2.0e-9;
  /// Random rows of P floats a slot touches: the forward's weighted sum
  /// reads a row of Z; the backward's dalpha reads one and its scatter
  /// updates a row of dZ. Each costs gatherPerRow plus its bytes at the
  /// host memory bandwidth, the gather's own model.
  double attentionForwardRows = 1;
  double attentionBackwardRows = 2;
  /// Adam, per parameter on one core: the runtime's update in double
  /// (a square root and two divisions), 5.5 ns measured.
  double adamPerParam = 5.5e-9;
  /// Host memory bytes an Adam step moves per parameter: reads of the
  /// weight, gradient, both moments (16 B), writes of weight and moments
  /// (12 B), and the gradient zeroed before the backward pass (4 B).
  double adamBytesPerParam = 32;
  /// Fixed cost of a training batch on the trainer's thread, whatever its
  /// size: taking the slot from the pipeline (the trainer woken by the
  /// producer's hand-over), the parallel regions' dispatch, the seeds'
  /// labels, the slot's release (bench/gnn/fixed-cost.py: tiny jobs of
  /// the same seeds in 39 to 1229 batches, the slope of the epoch beyond
  /// the rest of the model; docs/gnn.md, "Constants").
  double trainBatchFixed = 17e-6;
  /// The same for an evaluation batch (no hand-over: sampled, gathered and
  /// run forward on the trainer's thread): the slope over 2 to 26
  /// evaluation batches of the same seeds.
  double evalBatchFixed = 9e-6;
  /// The NVMe read unit of the store's O_DIRECT reads.
  double ioBlockBytes = 4096;
  /// The store's largest merged read (FeatureStoreOptions::maxMergedBytes).
  double ioMaxMergedBytes = 128 << 10;
  /// Share of GPU memory left to the cache (the rest: weights,
  /// activations, workspace).
  double gpuCacheFraction = 0.5;
  /// Share of host memory the cache and the loaded features may take.
  double hostUsableFraction = 0.9;
  /// Batches simulateBatches draws at least to correct the analytic block
  /// sizes (whole epochs of sizes: simulationSizes); 0: the analytic
  /// profile alone.
  unsigned simulatedBatches = 16;
};

/// The machine as the model sees it (from the job's topology).
struct GnnMachine {
  std::string cpu; ///< the CPU device's name
  unsigned cores = 1;
  double cpuFlops = 0;      ///< peak FP32 FLOP/s of all cores
  double hostMemory = 0;    ///< bytes; 0: not known (not checked)
  double hostBandwidth = 0; ///< B/s
  std::string gpu;          ///< empty: none
  double gpuMemory = 0;     ///< bytes
  /// The layers run on the GPU (else on the CPU, as the runtime does
  /// today, and GPU memory holds no features).
  bool computeOnGpu = false;
  unsigned ssds = 0;
  double ssdReadBandwidth = 0; ///< per drive, B/s
  double ssdIops = 0;          ///< per drive, 4 KiB random reads/s; 0: none
  double ssdCapacity = 0;      ///< per drive, bytes
  double ssdPrice = 0;         ///< per drive
  double otherPrice = 0;       ///< every priced device but the drives
  std::string currency;        ///< of the prices; empty when none priced
};

enum class GnnKind { Sage, Gcn, Gat };

/// The job: model, options and where its features come from.
struct GnnJob {
  GnnKind kind = GnnKind::Sage;
  std::vector<uint32_t> fanouts; ///< one per layer
  uint32_t features = 0, hidden = 0, classes = 0;
  uint32_t heads = 1; ///< GAT's attention heads (1 for the others)
  uint32_t batch = 64;
  uint32_t threads = 0;       ///< 0: every core
  uint32_t pipelineDepth = 2; ///< 0: no overlap
  bool sparseInput = false;   ///< the input layer reads compressed rows
  double inputDensity = 1.0;  ///< non-zero share of the input rows
  bool fromFile = false;      ///< features in a file (else in the program)
  bool outOfCore = false;     ///< feature_cache given
  uint64_t cacheBytes = 0;    ///< feature_cache
  uint64_t fileRows = 0;      ///< rows of the file (>= vertices)
  double trainVertices = 0;   ///< expected training seeds per epoch
  double evalVertices = 0;    ///< validation + test vertices
  /// Of evalVertices, the validation set; the runtime evaluates it and the
  /// test set apart, each in batches of evalBatch(). 0: one set.
  double valVertices = 0;
  uint32_t evalBatch() const { return batch > 256 ? batch : 256; }
  /// Evaluation batches an epoch: ceil(val / b) + ceil(test / b).
  double evalBatches() const {
    const double b = evalBatch();
    if (valVertices <= 0 || valVertices >= evalVertices)
      return std::ceil(evalVertices / b);
    return std::ceil(valVertices / b) +
           std::ceil((evalVertices - valVertices) / b);
  }
  uint64_t rowBytes() const { return uint64_t(features) * 4; }
  uint32_t layers() const { return static_cast<uint32_t>(fanouts.size()); }
};

/// A CSR and each vertex's share of the seeds.
struct GnnGraph {
  llvm::ArrayRef<uint64_t> offsets; ///< n + 1
  llvm::ArrayRef<uint32_t> targets;
  /// Per vertex: its expected number of times as a training seed in an
  /// epoch (0 or the training fraction of labelled vertices).
  llvm::ArrayRef<double> trainSeed;
  /// Per vertex: as an evaluation seed (validation and test).
  llvm::ArrayRef<double> evalSeed;
  /// Per vertex: its row of the feature file; empty: row v.
  llvm::ArrayRef<uint32_t> rowOf;
  uint64_t row(size_t v) const { return rowOf.empty() ? v : rowOf[v]; }
  size_t vertices() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

/// Expected sizes of one batch's blocks, hop 1 first (the block of the last
/// layer), and each vertex's probability of being among the input rows.
struct BatchProfile {
  struct Hop {
    double dst = 0, edges = 0, src = 0;
  };
  std::vector<Hop> hops;
  std::vector<double> inputProbability; ///< per vertex
  /// The input vertices of each batch simulateBatches drew (empty: the
  /// analytic profile alone); driveLoad counts their blocks.
  std::vector<std::vector<uint32_t>> sampledInputs;
  double inputRows() const { return hops.empty() ? 0 : hops.back().src; }
};

/// Vertex v is a seed of a batch with probability q_0(v) =
/// seedProbability[v]. Hop h: every vertex u reached by hops 0..h-1 (with
/// probability q_{h-1}(u)) samples min(f_h, deg u) distinct neighbours, so
/// reaches a given neighbour w with probability q_{h-1}(u) min(f_h, deg u)
/// / deg u; the parents are taken as independent:
///   q_h(w) = 1 - (1 - q_{h-1}(w)) prod_{u->w} (1 - q_{h-1}(u) k_u / deg u).
/// Hop h's block has sum q_{h-1} dst vertices, sum q_{h-1}(u) k_u edges
/// and sum q_h src vertices.
BatchProfile profileBatch(llvm::ArrayRef<uint64_t> offsets,
                          llvm::ArrayRef<uint32_t> targets,
                          llvm::ArrayRef<double> seedProbability,
                          llvm::ArrayRef<uint32_t> fanouts);

/// The mean block sizes of `samples` batches drawn as the runtime draws
/// them: `batch` distinct seeds uniformly from the vertices with a
/// positive seedWeight, then each hop's distinct neighbours without
/// replacement, distinct vertices kept once (std::mt19937_64 keyed by
/// `seed`: the same answer every time). Corrects profileBatch, whose
/// independent parents overcount the distinct vertices of skewed graphs
/// (docs/gnn.md, "Plan and cost model").
BatchProfile simulateBatches(llvm::ArrayRef<uint64_t> offsets,
                             llvm::ArrayRef<uint32_t> targets,
                             llvm::ArrayRef<double> seedWeight, uint32_t batch,
                             llvm::ArrayRef<uint32_t> fanouts, unsigned samples,
                             uint64_t seed);

/// The same with one batch of each size in `batchSizes` (the runtime's
/// batches of an epoch: full ones and a smaller last one), so that the
/// means are over the sizes the run has, not at their mean size: the
/// distinct rows grow less than linearly with the batch.
BatchProfile simulateBatches(llvm::ArrayRef<uint64_t> offsets,
                             llvm::ArrayRef<uint32_t> targets,
                             llvm::ArrayRef<double> seedWeight,
                             llvm::ArrayRef<uint32_t> batchSizes,
                             llvm::ArrayRef<uint32_t> fanouts, uint64_t seed);

/// The batch sizes of an epoch in the runtime's order: each set of
/// `setSeeds` (rounded to whole seeds; the validation and the test set are
/// batched apart) cut into batches of `batch`, the last one smaller.
std::vector<uint32_t> epochBatchSizes(llvm::ArrayRef<double> setSeeds,
                                      uint32_t batch);

/// The sizes to simulate: the epoch's sizes repeated until there are at
/// least `samples`, or, when the epoch has more than 4 x `samples`
/// batches, 4 x `samples` of them evenly spaced (the last one included).
std::vector<uint32_t> simulationSizes(llvm::ArrayRef<uint32_t> epochSizes,
                                      unsigned samples);

/// The analytic profile with its hop sizes replaced by the simulated ones,
/// each vertex's input probability scaled to the simulated input rows (at
/// most 1) and the simulated batches' input vertices kept; unchanged when
/// either is empty.
void correctProfile(BatchProfile &analytic, const BatchProfile &simulated);

/// The cache placement (rows are vertices' feature rows).
struct Placement {
  uint64_t gpuRows = 0, hostRows = 0, ssdRows = 0;
  uint64_t gpuBytes = 0, hostBytes = 0, ssdBytes = 0;
  double gpuCapacity = 0, hostCapacity = 0; ///< bytes offered to the cache
  /// Expected row reads of one training batch served by each tier.
  double gpuReads = 0, hostReads = 0, ssdReads = 0;
  /// Share of an epoch's expected accesses the GPU and host tiers serve.
  double hitRate = 0;
  /// Per file row: 0 GPU, 1 host, 2 drives (out of core only).
  std::vector<uint8_t> tierOfRow;
};

/// What one batch reads from the drives: rows, the ioBlock-sized blocks
/// they touch and the requests after merging adjacent blocks.
struct IoLoad {
  double rows = 0, blocks = 0, requests = 0;
};

/// With simulated batches (profile.sampledInputs), their mean: the rows of
/// a batch's input vertices on the drives, the distinct blocks covering
/// them, and the runs of adjacent blocks (one merged request each; runs
/// longer than the store's 128 KiB merge limit split). This keeps what
/// the independent model below loses: rows of one block read together
/// (neighbouring ids sampled by the same batch; docs/gnn.md, "Plan and
/// cost model"). Without them, rows r on the drives are read when their
/// vertex is an input row (probability p_r, inputProbability); a block b
/// holding rows R_b is read with probability P_b = 1 - prod_{r in R_b} (1
/// - p_r); blocks = sum P_b; adjacent blocks merge into one request:
/// requests = sum P_b - sum P_b P_{b-1} (independent blocks).
IoLoad driveLoad(const GnnGraph &graph, const GnnJob &job,
                 const Placement &placement, const BatchProfile &profile,
                 const GnnCostConstants &c = {});

/// The stages of one training batch, seconds.
struct StageTimes {
  double sample = 0;
  double gatherHost = 0; ///< host and GPU cache rows
  double gatherSsd = 0;  ///< rows read from the drives
  double compute = 0;    ///< forward and backward
  /// GAT: the per-edge attention's share of compute (attentionSeconds).
  double attention = 0;
  double optimizer = 0;
  /// The batch's fixed cost on the trainer's thread (trainBatchFixed or
  /// evalBatchFixed).
  double fixed = 0;
  double producer() const { return sample + gatherHost + gatherSsd; }
  double trainer() const { return compute + optimizer + fixed; }
};

struct EpochPrediction {
  BatchProfile train, eval;
  Placement placement;
  IoLoad trainIo, evalIo; ///< per batch
  StageTimes perBatch;    ///< one training batch
  double batches = 0, evalBatches = 0;
  double flopsPerBatch = 0, parameters = 0;
  double trainSeconds = 0; ///< the pipelined training batches
  double evalSeconds = 0;  ///< validation and test, after the batches
  double epochSeconds = 0;
  /// The batches' fixed costs' share of trainSeconds (what trainSeconds
  /// would lose with trainBatchFixed = 0: nothing where the producer
  /// bounds the ring) and of evalSeconds.
  double trainFixedSeconds = 0, evalFixedSeconds = 0;
  std::string bound; ///< the stage that bounds the ring
  /// Per epoch, summed over the batches.
  StageTimes perEpoch() const;
  /// Bytes read from the drives in an epoch, evaluation included.
  double epochReadBytes(double blockBytes = 4096) const {
    return (batches * trainIo.blocks + evalBatches * evalIo.blocks) *
           blockBytes;
  }
};

/// Where the rows go. Errors (llvm::StringError) say what does not fit:
/// the cache above host memory, the features in no tier.
llvm::Expected<Placement> placeFeatures(const GnnGraph &graph,
                                        const GnnJob &job,
                                        const GnnMachine &machine,
                                        const BatchProfile &train,
                                        const GnnCostConstants &c = {});

/// Parameters of the model (weights and biases).
double parameterCount(const GnnJob &job);
/// FLOPs of one batch's forward (and, when `backward`, backward) pass.
/// GAT layers (src S, dst D, edges E, heads H of width F, P = H F; docs/
/// gnn.md): forward 2 S in P (projection) + 2 (S + D) P (scores) +
/// 6 (D + E) H (logit, LeakyReLU, softmax) + 2 (D + E) P (weighted sum);
/// backward 2 S in P (weight gradient; twice above the input layer) +
/// 4 (D + E) P + 7 (D + E) H + 4 (S + D) P.
double batchFlops(const GnnJob &job, const BatchProfile &profile,
                  bool backward);
/// The attention's share of batchFlops (GAT's logits, softmax and their
/// backward: the 6 and 7 (D + E) H terms); 0 for the other kinds.
double attentionFlops(const GnnJob &job, const BatchProfile &profile,
                      bool backward);
/// GAT: the FLOPs of the per-slot loops (a layer's 6 (D + E) H + 2 (D + E)
/// P forward, 7 (D + E) H + 4 (D + E) P backward), which compute costs by
/// attentionSeconds instead of at the GEMM efficiency; 0 for the others.
double slotFlops(const GnnJob &job, const BatchProfile &profile, bool backward);
/// GAT's per-edge attention on one core, per layer of D dst, E edges, H
/// heads, P columns: (D + E) x (H c_fwd,head + rows_fwd x (c_row + 4 P /
/// bandwidth)), and when `backward` (D + E) x (H c_bwd,head + P c_bwd,col
/// + rows_bwd x (c_row + 4 P / bandwidth)); 0 for the other kinds.
double attentionSeconds(const GnnJob &job, const GnnMachine &machine,
                        const BatchProfile &profile, bool backward,
                        const GnnCostConstants &c = {});
/// The stage times of one batch of `profile` reading `io` from the
/// drives (the other input rows from memory).
StageTimes batchStages(const GnnJob &job, const GnnMachine &machine,
                       const BatchProfile &profile, const IoLoad &io,
                       bool training, const GnnCostConstants &c = {});

/// The whole prediction (errors as placeFeatures).
llvm::Expected<EpochPrediction> predictEpoch(const GnnGraph &graph,
                                             const GnnJob &job,
                                             const GnnMachine &machine,
                                             const GnnCostConstants &c = {});

/// Hyperion's throughput per cost: training seeds per second per unit of
/// the machine's price (0 when nothing is priced).
struct TpcPoint {
  unsigned ssds = 0;
  uint64_t cacheBytes = 0;
  double price = 0, epochSeconds = 0, seedsPerSecond = 0, tpc = 0;
};
struct TpcAdvice {
  TpcPoint current, best;
  /// The best number of drives at the job's own cache size.
  TpcPoint bestAtCache;
  std::vector<TpcPoint> points; ///< every configuration tried
  double budget = 0;            ///< 0: no limit
};
/// Tries 1..maxSsds drives and host caches of 1/64, 1/16, 1/4 and all of
/// the file (within host memory), keeps those within `budget` (0: any),
/// and picks the one of highest TPC (ties: fewer drives, smaller cache).
/// Needs an out-of-core job and priced drives.
llvm::Expected<TpcAdvice> adviseTpc(const GnnGraph &graph, const GnnJob &job,
                                    const GnnMachine &machine, double budget,
                                    unsigned maxSsds,
                                    const GnnCostConstants &c = {});

} // namespace sluice::gnn

#endif // SLUICE_COMPILER_ANALYSIS_GNN_GNNCOST_H
