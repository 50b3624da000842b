//===- PlanOps.cpp - Verifiers of the plan dialect ------------------------===//
#include "dialects/Plan/IR/PlanOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

using namespace mlir;
using namespace sluice::plan;

#define GET_OP_CLASSES
#include "dialects/Plan/IR/PlanOps.cpp.inc"

static bool isFiniteNum(double x) { return std::isfinite(x); }

/// A number as "%g" writes it ("2", "1.5", "1e+09") for messages.
static std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

//===----------------------------------------------------------------------===//
// plan.demands / plan.demand
//===----------------------------------------------------------------------===//

LogicalResult DemandsOp::verifyRegions() {
  if (getBody().front().empty())
    return emitOpError() << "holds no plan.demand";
  for (Operation &op : getBody().front())
    if (!isa<DemandOp>(op))
      return op.emitOpError() << "is not allowed in plan.demands";
  double chunk = getChunkBytes().convertToDouble();
  if (!isFiniteNum(chunk) || chunk < 0)
    return emitOpError() << "chunk_bytes must be finite and non-negative, got "
                         << num(chunk);
  return success();
}

LogicalResult DemandOp::verify() {
  double bytes = getBytes().convertToDouble();
  if (!isFiniteNum(bytes) || bytes <= 0)
    return emitOpError() << "bytes must be finite and positive, got "
                         << num(bytes);
  if (getSources().empty() || getDestinations().empty())
    return emitOpError() << "needs at least one source and one destination";
  for (ArrayAttr list : {getSources(), getDestinations()})
    for (Attribute a : list)
      if (cast<StringAttr>(a).getValue().empty())
        return emitOpError() << "has an empty device pattern";
  if (isOverOneGroup() && getSources() != getDestinations())
    return emitOpError() << "'" << stringifyDemandKind(getKind())
                         << "' runs over one group: sources and destinations "
                            "must be equal";
  if (getKind() == DemandKind::BlockIO)
    return verifyBlockIO();
  if (auto job = getJobAttr()) {
    if (getKind() != DemandKind::Gather)
      return emitOpError() << "only a 'gather' and a 'blockio' have a job";
    auto items = job.getAs<IntegerAttr>("items");
    auto itemBytes = job.getAs<FloatAttr>("item_bytes");
    if (!items || items.getInt() <= 0 || !itemBytes ||
        !isFiniteNum(itemBytes.getValueAsDouble()) ||
        itemBytes.getValueAsDouble() <= 0)
      return emitOpError() << "a gather job needs positive 'items' (i64) and "
                              "'item_bytes' (f64)";
    bool file = static_cast<bool>(job.getAs<StringAttr>("access_file"));
    bool graph = static_cast<bool>(job.getAs<StringAttr>("graph"));
    if (file == graph)
      return emitOpError() << "a gather job needs exactly one of "
                              "'access_file' and 'graph'";
    if (graph && (!job.getAs<StringAttr>("graph_format") ||
                  !job.getAs<DenseI64ArrayAttr>("fanout")))
      return emitOpError() << "a sampled gather job needs 'graph_format' and "
                              "'fanout'";
    if (auto cap = job.getAs<ArrayAttr>("capacity"))
      if (cap.size() != getSources().size())
        return emitOpError() << "'capacity' needs one size per tier";
    if (Attribute counts = job.get("access_counts")) {
      if (!graph)
        return emitOpError() << "only a sampled gather job (with 'graph') "
                                "has 'access_counts'";
      auto dense = dyn_cast<DenseFPElementsAttr>(counts);
      if (!dense || !dense.getElementType().isF64() ||
          dense.getType().getRank() != 2 ||
          dense.getType().getDimSize(0) != items.getInt())
        return emitOpError()
               << "'access_counts' must be a tensor of " << items.getInt()
               << " items x destinations f64 counts";
    }
  }
  return success();
}

LogicalResult DemandOp::verifyBlockIO() {
  DictionaryAttr job = getJobAttr();
  if (!job)
    return emitOpError() << "a 'blockio' demand needs a job";
  auto tier = job.getAs<ArrayAttr>("middle_tier");
  if (!tier || tier.empty() ||
      !llvm::all_of(tier, [](Attribute a) { return isa<StringAttr>(a); }))
    return emitOpError()
           << "a 'blockio' job needs 'middle_tier', a non-empty array of "
              "device patterns";
  auto rate = job.getAs<FloatAttr>("rate");
  if (!rate || !isFiniteNum(rate.getValueAsDouble()) ||
      rate.getValueAsDouble() <= 0)
    return emitOpError() << "a 'blockio' job needs a positive 'rate' (f64)";
  auto c = job.getAs<FloatAttr>("compressibility");
  if (!c || !(c.getValueAsDouble() >= 0 && c.getValueAsDouble() < 1))
    return emitOpError()
           << "a 'blockio' job needs 'compressibility' (f64) in [0, 1)";
  auto h = job.getAs<FloatAttr>("header_cost");
  if (!h || !isFiniteNum(h.getValueAsDouble()) || h.getValueAsDouble() < 0)
    return emitOpError()
           << "a 'blockio' job needs a non-negative 'header_cost' (f64)";
  if (Attribute codec = job.get("codec"); codec && !isa<CodecAttr>(codec))
    return emitOpError() << "a 'blockio' job's 'codec' must be a "
                            "#plan<codec>, e.g. #plan<codec lz4>";
  if (Attribute read = job.get("read_fraction")) {
    auto r = dyn_cast<FloatAttr>(read);
    if (!r || !(r.getValueAsDouble() >= 0 && r.getValueAsDouble() <= 1))
      return emitOpError()
             << "a 'blockio' job's 'read_fraction' must be an f64 in [0, 1]";
  }
  return success();
}

LogicalResult MiddleTierOp::verify() {
  StringRef source = getCpuSource();
  if (source != "measured" && source != "given" && source != "fallback")
    return emitOpError() << "cpu_source must be \"measured\", \"given\" or "
                            "\"fallback\", got \""
                         << source << "\"";
  for (double v :
       {getCpuRate().convertToDouble(),
        getCpuDecompressRate().convertToDouble(),
        getCpuRatio().convertToDouble(), getSpeedup().convertToDouble()})
    if (!isFiniteNum(v) || v <= 0)
      return emitOpError() << "cpu_rate, cpu_decompress_rate, cpu_ratio and "
                              "speedup must be positive, got "
                           << num(v);
  double read = getReadFraction().convertToDouble();
  if (!(read >= 0 && read <= 1))
    return emitOpError() << "read_fraction must be in [0, 1], got "
                         << num(read);
  // A site and its SmartNIC share agree: 0 is "host", 1 "smartnic", and
  // a share in between "split".
  auto isSite = [](DictionaryAttr server, StringRef name, StringRef share) {
    auto site = server.getAs<StringAttr>(name);
    auto x = server.getAs<FloatAttr>(share);
    if (!site || !x)
      return false;
    double v = x.getValueAsDouble();
    return (site.getValue() == "host" && v == 0) ||
           (site.getValue() == "smartnic" && v == 1) ||
           (site.getValue() == "split" && v > 0 && v < 1);
  };
  for (Attribute a : getServers()) {
    auto server = dyn_cast<DictionaryAttr>(a);
    if (!server || !server.getAs<StringAttr>("name") ||
        !isSite(server, "site", "compress_nic_share") ||
        !isSite(server, "decompress_site", "decompress_nic_share"))
      return emitOpError()
             << "every server needs a 'name', a 'site' with its "
                "'compress_nic_share' and a 'decompress_site' with its "
                "'decompress_nic_share' (\"host\" with 0, \"smartnic\" with 1, "
                "\"split\" with a share in between)";
  }
  return success();
}

LogicalResult PlacementOp::verify() {
  size_t n = getTiers().size();
  if (getTierItems().size() != n || getTierCapacity().size() != n)
    return emitOpError() << "needs one item count and one capacity per tier";
  double total = 0;
  for (size_t t = 0; t < n; ++t) {
    auto items = dyn_cast<FloatAttr>(getTierItems()[t]);
    auto cap = dyn_cast<FloatAttr>(getTierCapacity()[t]);
    if (!items || !cap)
      return emitOpError() << "tier counts and capacities are f64";
    double k = items.getValueAsDouble();
    if (!isFiniteNum(k) || k < 0 ||
        k * getItemBytes().convertToDouble() >
            cap.getValueAsDouble() * (1 + 1e-9))
      return emitOpError() << "tier '"
                           << cast<StringAttr>(getTiers()[t]).getValue()
                           << "' holds " << num(k)
                           << " items, more than its capacity";
    total += k;
  }
  if (std::abs(total - static_cast<double>(getItems())) >
      1e-6 * static_cast<double>(getItems()))
    return emitOpError() << "places " << num(total) << " of " << getItems()
                         << " items";
  return success();
}

//===----------------------------------------------------------------------===//
// plan.schedule / plan.transfer / plan.compute
//===----------------------------------------------------------------------===//

/// Relative slack for "ends by the makespan" and "rate times time is bytes".
static constexpr double kSlack = 1e-9;

static bool endsBy(double end, double makespan) {
  return end <= makespan * (1 + kSlack) + 1e-300;
}

LogicalResult ScheduleOp::verifyRegions() {
  double makespan = getMakespan().convertToDouble();
  if (!isFiniteNum(makespan) || makespan < 0)
    return emitOpError() << "makespan must be finite and non-negative, got "
                         << num(makespan);
  if (auto lb = getLowerBound()) {
    double v = lb->convertToDouble();
    if (!isFiniteNum(v) || v < 0 || v > makespan * (1 + 1e-6))
      return emitOpError() << "lower_bound " << num(v)
                           << " must lie in [0, makespan = " << num(makespan)
                           << "]";
  }
  for (std::optional<llvm::APFloat> b :
       {getDirectMakespan(), getMomentMakespan()})
    if (b && (!isFiniteNum(b->convertToDouble()) || b->convertToDouble() < 0))
      return emitOpError() << "baseline makespans must be finite and "
                              "non-negative";
  double chunk = getChunkBytes().convertToDouble();
  if (!isFiniteNum(chunk) || chunk < 0)
    return emitOpError() << "chunk_bytes must be finite and non-negative, got "
                         << num(chunk);
  if (auto t = getTflops())
    if (!isFiniteNum(t->convertToDouble()) || t->convertToDouble() < 0)
      return emitOpError() << "tflops must be finite and non-negative, got "
                           << num(t->convertToDouble());
  if (auto n = getDataParallel(); n && *n < 1)
    return emitOpError() << "data_parallel must be at least 1, got " << *n;
  for (auto [name, dict] : {std::pair<const char *, DictionaryAttr>{
                                "peak_bytes", getPeakBytesAttr()},
                            {"link_bytes", getLinkBytesAttr()}}) {
    if (!dict)
      continue;
    for (NamedAttribute a : dict) {
      auto f = dyn_cast<FloatAttr>(a.getValue());
      if (!f || !isFiniteNum(f.getValueAsDouble()) || f.getValueAsDouble() < 0)
        return emitOpError() << name << " entry '" << a.getName().getValue()
                             << "' must be a finite non-negative float";
    }
  }
  for (Operation &op : getBody().front()) {
    double end = 0;
    if (auto t = dyn_cast<TransferOp>(op))
      end = t.getEnd().convertToDouble();
    else if (auto c = dyn_cast<ComputeOp>(op))
      end = c.getEnd().convertToDouble();
    else if (auto c = dyn_cast<CollectiveOp>(op))
      end = c.getEnd().convertToDouble();
    else if (isa<PlacementOp>(op))
      end = 0;
    else
      return op.emitOpError() << "is not allowed in plan.schedule";
    if (!endsBy(end, makespan))
      return op.emitOpError()
             << "ends at " << num(end) << " s, after the schedule's makespan "
             << num(makespan) << " s";
  }
  return success();
}

static LogicalResult verifyWindow(Operation *op, double start, double end) {
  if (!isFiniteNum(start) || !isFiniteNum(end) || start < 0 || end < start)
    return op->emitOpError() << "window [" << num(start) << ", " << num(end)
                             << "] must satisfy 0 <= start <= end (finite)";
  return success();
}

LogicalResult TransferOp::verify() {
  double bytes = getBytes().convertToDouble();
  double rate = getRate().convertToDouble();
  double start = getStart().convertToDouble();
  double end = getEnd().convertToDouble();
  if (!isFiniteNum(bytes) || bytes <= 0)
    return emitOpError() << "bytes must be finite and positive, got "
                         << num(bytes);
  if (!isFiniteNum(rate) || rate <= 0)
    return emitOpError() << "rate must be finite and positive, got "
                         << num(rate);
  if (failed(verifyWindow(*this, start, end)))
    return failure();
  double moved = rate * (end - start);
  if (std::fabs(moved - bytes) > 1e-6 * bytes)
    return emitOpError() << "moves " << num(moved) << " bytes at rate "
                         << num(rate) << " during [" << num(start) << ", "
                         << num(end) << "], not its " << num(bytes) << " bytes";
  if (getChunksAttr().getInt() < 1)
    return emitOpError() << "needs at least one chunk, got "
                         << getChunksAttr().getInt();
  // The timeline builder's limit: exporters expand every chunk.
  if (getChunksAttr().getInt() > 1000000)
    return emitOpError() << "has " << getChunksAttr().getInt()
                         << " chunks; at most 1000000 are allowed";
  if (getDemandAttr().getInt() < 0)
    return emitOpError() << "demand index must be non-negative";
  ArrayAttr path = getPath();
  if (path.size() < 2)
    return emitOpError() << "path must name at least the source and the "
                            "destination";
  if (cast<StringAttr>(path[0]).getValue() != getSource() ||
      cast<StringAttr>(path[path.size() - 1]).getValue() != getDestination())
    return emitOpError() << "path must start at '" << getSource()
                         << "' and end at '" << getDestination() << "'";
  llvm::StringSet<> seen;
  for (Attribute a : path)
    if (!seen.insert(cast<StringAttr>(a).getValue()).second)
      return emitOpError() << "path visits '" << cast<StringAttr>(a).getValue()
                           << "' twice";
  return success();
}

LogicalResult ComputeOp::verify() {
  if (failed(verifyWindow(*this, getStart().convertToDouble(),
                          getEnd().convertToDouble())))
    return failure();
  for (auto [name, v] : {std::pair<const char *, std::optional<llvm::APFloat>>{
                             "flops", getFlops()},
                         {"bytes", getBytes()}})
    if (v && (!isFiniteNum(v->convertToDouble()) || v->convertToDouble() < 0))
      return emitOpError() << name << " must be finite and non-negative, got "
                           << num(v->convertToDouble());
  return success();
}

LogicalResult CollectiveOp::verify() {
  double bytes = getBytes().convertToDouble();
  if (!isFiniteNum(bytes) || bytes <= 0)
    return emitOpError() << "bytes must be finite and positive, got "
                         << num(bytes);
  if (getGroup().size() < 2)
    return emitOpError() << "group must hold at least two devices";
  double start = getStart().convertToDouble();
  double end = getEnd().convertToDouble();
  if (failed(verifyWindow(*this, start, end)))
    return failure();
  for (DictionaryAttr d : {getTimes(), getAlphaBeta().value_or(nullptr)}) {
    if (!d)
      continue;
    for (NamedAttribute a : d) {
      auto f = dyn_cast<FloatAttr>(a.getValue());
      if (!f || !isFiniteNum(f.getValueAsDouble()) || f.getValueAsDouble() < 0)
        return emitOpError() << "time of '" << a.getName().getValue()
                             << "' must be a finite non-negative float";
    }
  }
  auto chosen = dyn_cast_or_null<FloatAttr>(getTimes().get(getAlgorithm()));
  if (!chosen)
    return emitOpError() << "times has no entry for its algorithm '"
                         << getAlgorithm() << "'";
  double t = chosen.getValueAsDouble();
  if (std::fabs((end - start) - t) > 1e-6 * std::max(t, 1e-300))
    return emitOpError() << "window [" << num(start) << ", " << num(end)
                         << "] does not last the time of '" << getAlgorithm()
                         << "' (" << num(t) << " s)";
  if (auto b = getEndpointBound())
    if (!isFiniteNum(b->convertToDouble()) || b->convertToDouble() < 0)
      return emitOpError() << "endpoint_bound must be finite and non-negative";
  return success();
}

//===----------------------------------------------------------------------===//
// plan.parallel
//===----------------------------------------------------------------------===//

/// Optimus-CC: what is compressed, its rank and the time without it.
static LogicalResult verifyCompression(ParallelOp op) {
  IntegerAttr rank = op.getCompressRankAttr();
  IntegerAttr micro = op.getCompressedMicroBatchesAttr();
  DenseI64ArrayAttr stages = op.getCompressedDpStagesAttr();
  FloatAttr uncompressed = op.getUncompressedTimeAttr();
  if (!rank) {
    if (micro || stages || uncompressed)
      return op.emitOpError() << "compressed_micro_batches, "
                                 "compressed_dp_stages and uncompressed_time "
                                 "need compress_rank";
    return success();
  }
  if (rank.getInt() <= 0)
    return op.emitOpError()
           << "compress_rank must be positive, got " << rank.getInt();
  if (!micro && !stages)
    return op.emitOpError() << "compress_rank " << rank.getInt()
                            << " compresses nothing: expected "
                               "compressed_micro_batches or "
                               "compressed_dp_stages";
  if (!uncompressed)
    return op.emitOpError() << "compress_rank needs uncompressed_time";
  if (FloatAttr send = op.getCompressedP2pAttr()) {
    if (!micro)
      return op.emitOpError()
             << "compressed_p2p needs compressed_micro_batches";
    const double v = send.getValueAsDouble();
    if (!std::isfinite(v) || v < 0)
      return op.emitOpError()
             << "compressed_p2p must be finite and non-negative";
  }
  const int64_t pp = op.getPpAttr().getInt(), dp = op.getDpAttr().getInt(),
                m = op.getMicroBatchesAttr().getInt();
  if (micro) {
    const int64_t most = std::min(m, pp - 1);
    if (micro.getInt() < 1 || micro.getInt() > most)
      return op.emitOpError()
             << "compressed_micro_batches must be in [1, " << most
             << "] (min(micro_batches, pp - 1)), got " << micro.getInt();
  }
  if (stages) {
    if (dp <= 1)
      return op.emitOpError()
             << "compressed_dp_stages needs dp > 1, got dp " << dp;
    int64_t prev = -1;
    for (int64_t s : stages.asArrayRef()) {
      if (s <= prev || s >= pp)
        return op.emitOpError() << "compressed_dp_stages must be increasing "
                                   "stage indices in [0, "
                                << pp << "), got " << s << " after " << prev;
      prev = s;
    }
  }
  const double t = op.getTime().convertToDouble(),
               u = uncompressed.getValueAsDouble();
  if (!isFiniteNum(u) || u < t)
    return op.emitOpError() << "uncompressed_time " << num(u)
                            << " must be finite and at least time " << num(t)
                            << " (compression is kept only where it pays)";
  return success();
}

LogicalResult ParallelOp::verifyRegions() {
  const int64_t tp = getTpAttr().getInt(), pp = getPpAttr().getInt(),
                dp = getDpAttr().getInt(), zero = getZeroAttr().getInt(),
                virtualStages = getVirtualStagesAttr().getInt();
  if (tp <= 0 || pp <= 0 || dp <= 0)
    return emitOpError() << "tp, pp and dp must be positive, got " << tp << ", "
                         << pp << ", " << dp;
  if (getMicroBatchAttr().getInt() <= 0 ||
      getMicroBatchesAttr().getInt() <= 0 || virtualStages <= 0)
    return emitOpError() << "micro_batch, micro_batches and virtual must be "
                            "positive";
  if (zero < 0 || zero > 3)
    return emitOpError() << "zero must be 0, 1, 2 or 3, got " << zero;
  if (bool(getAdversarialEpochAttr()) != bool(getPlainEpochAttr()) ||
      ((getAttackTimeAttr() || getPeerTimeAttr()) &&
       !getAdversarialEpochAttr()))
    return emitOpError() << "adversarial_epoch and plain_epoch come together; "
                            "attack_time and peer_time need them";
  if (auto e = getAdversarialEpochAttr();
      e && !(e.getValueAsDouble() >= getPlainEpochAttr().getValueAsDouble()))
    return emitOpError() << "adversarial_epoch " << e.getValueAsDouble()
                         << " is below plain_epoch "
                         << getPlainEpochAttr().getValueAsDouble();
  if (zero >= 2 && pp > 1)
    return emitOpError() << "zero " << zero
                         << " needs pp 1 (DeepSpeed has no ZeRO-2/3 with "
                            "pipelining), got pp "
                         << pp;
  if (getSequenceParallel() && tp == 1)
    return emitOpError() << "sequence_parallel needs tp > 1";
  if (bool(getEpAttr()) != bool(getExpertCommAttr()))
    return emitOpError() << "ep and expert_comm go together";
  if (auto ep = getEpAttr()) {
    if (ep.getInt() <= 0 || dp % ep.getInt())
      return emitOpError() << "ep " << ep.getInt()
                           << " must be positive and divide dp " << dp;
    if (const double v = getExpertCommAttr().getValueAsDouble();
        !isFiniteNum(v) || v < 0)
      return emitOpError()
             << "expert_comm must be finite and non-negative, got " << num(v);
  }
  for (auto [name, v] :
       {std::pair<const char *, double>{"time", getTime().convertToDouble()},
        {"default_time", getDefaultTime().convertToDouble()},
        {"forward", getForward().convertToDouble()},
        {"backward", getBackward().convertToDouble()},
        {"p2p", getP2p().convertToDouble()},
        {"data_comm", getDataComm().convertToDouble()},
        {"tflops", getTflops().convertToDouble()},
        {"mfu", getMfu().convertToDouble()},
        {"memory", getMemory().convertToDouble()},
        {"memory_available", getMemoryAvailable().convertToDouble()}})
    if (!isFiniteNum(v) || v < 0)
      return emitOpError() << name << " must be finite and non-negative, got "
                           << num(v);
  if (failed(verifyCompression(*this)))
    return failure();
  if (bool(getOffloadTime()) != bool(getHostMemory()))
    return emitOpError() << "offload_time and host_memory go together";
  if (auto t = getOffloadTime()) {
    if (zero < 1)
      return emitOpError() << "optimizer offload needs zero >= 1, got zero "
                           << zero;
    for (auto [name, v] :
         {std::pair<const char *, double>{"offload_time", t->convertToDouble()},
          {"host_memory", getHostMemory()->convertToDouble()}})
      if (!isFiniteNum(v) || v < 0)
        return emitOpError()
               << name << " must be finite and non-negative, got " << num(v);
  }
  int64_t next = 0;
  llvm::StringSet<> seen;
  for (Operation &op : getBody().front()) {
    auto stage = dyn_cast<StageOp>(op);
    if (!stage)
      return op.emitOpError() << "is not allowed in a plan.parallel";
    if (stage.getIndexAttr().getInt() != next)
      return stage.emitOpError()
             << "has index " << stage.getIndexAttr().getInt() << ", expected "
             << next;
    ++next;
    if (static_cast<int64_t>(stage.getLayers().size()) != virtualStages)
      return stage.emitOpError()
             << "has " << stage.getLayers().size() << " layer chunks, expected "
             << virtualStages << " (virtual)";
    if (stage.getChunkLayersAttr().getInt() <= 0)
      return stage.emitOpError() << "chunk_layers must be positive";
    if (static_cast<int64_t>(stage.getGpus().size()) != tp * dp)
      return stage.emitOpError() << "has " << stage.getGpus().size()
                                 << " gpus, expected tp * dp = " << tp * dp;
    for (Attribute a : stage.getGpus()) {
      StringRef gpu = cast<StringAttr>(a).getValue();
      if (!seen.insert(gpu).second)
        return stage.emitOpError() << "uses gpu '" << gpu << "' twice";
    }
  }
  if (next != pp)
    return emitOpError() << "has " << next << " stages, expected pp = " << pp;
  return success();
}

//===----------------------------------------------------------------------===//
// plan.distill
//===----------------------------------------------------------------------===//

LogicalResult DistillOp::verifyRegions() {
  if (getBatchAttr().getInt() <= 0)
    return emitOpError() << "batch must be positive, got "
                         << getBatchAttr().getInt();
  for (auto [name, v] :
       {std::pair<const char *, double>{"time", getTime().convertToDouble()},
        {"baseline_time", getBaselineTime().convertToDouble()},
        {"memory_available", getMemoryAvailable().convertToDouble()},
        {"baseline_memory", getBaselineMemory().convertToDouble()}})
    if (!isFiniteNum(v) || v < 0)
      return emitOpError() << name << " must be finite and non-negative, got "
                           << num(v);
  int64_t next = 0, nextBlock = 0;
  llvm::StringSet<> seen;
  for (Operation &op : getBody().front()) {
    auto stage = dyn_cast<DistillStageOp>(op);
    if (!stage)
      return op.emitOpError() << "is not allowed in a plan.distill";
    const int64_t index = stage.getIndexAttr().getInt(),
                  first = stage.getFirstBlockAttr().getInt(),
                  blocks = stage.getBlocksAttr().getInt();
    if (index != next)
      return stage.emitOpError()
             << "has index " << index << ", expected " << next;
    ++next;
    if (first != nextBlock || blocks <= 0)
      return stage.emitOpError()
             << "has blocks " << first << " x " << blocks
             << ", expected at least one block from " << nextBlock;
    nextBlock += blocks;
    if (stage.getGpus().empty())
      return stage.emitOpError() << "has no gpu";
    for (Attribute a : stage.getGpus()) {
      StringRef gpu = cast<StringAttr>(a).getValue();
      if (!seen.insert(gpu).second)
        return stage.emitOpError() << "uses gpu '" << gpu << "' twice";
    }
    for (auto [name, v] :
         {std::pair<const char *, double>{"compute",
                                          stage.getCompute().convertToDouble()},
          {"all_reduce", stage.getAllReduce().convertToDouble()},
          {"p2p", stage.getP2p().convertToDouble()},
          {"memory", stage.getMemory().convertToDouble()}})
      if (!isFiniteNum(v) || v < 0)
        return stage.emitOpError()
               << name << " must be finite and non-negative, got " << num(v);
  }
  if (next == 0)
    return emitOpError() << "has no stage";
  return success();
}

//===----------------------------------------------------------------------===//
// plan.disdp
//===----------------------------------------------------------------------===//

LogicalResult DisdpOp::verify() {
  for (auto [name, v] : {std::pair<const char *, int64_t>{"gpus", getGpus()},
                         {"micro_batch", getMicroBatch()},
                         {"micro_batches", getMicroBatches()},
                         {"layers", getLayers()}})
    if (v < 1)
      return emitOpError() << name << " must be positive, got " << v;
  if (getGpus() < 2)
    return emitOpError() << "needs at least 2 gpus to shard over, got "
                         << getGpus();
  if (getParameterServer().empty())
    return emitOpError() << "parameter_server must name a device";
  if (getReducers().empty())
    return emitOpError() << "needs at least one reducing switch";
  const double values[] = {getTime().convertToDouble(),
                           getBaselineTime().convertToDouble(),
                           getParameters().convertToDouble(),
                           getForward().convertToDouble(),
                           getBackward().convertToDouble(),
                           getRingAllGather().convertToDouble(),
                           getRingReduceScatter().convertToDouble(),
                           getParamFetch().convertToDouble(),
                           getBaselineOptimizer().convertToDouble(),
                           getNetAllGather().convertToDouble(),
                           getNetReduceScatter().convertToDouble(),
                           getPsUpdate().convertToDouble(),
                           getMemory().convertToDouble(),
                           getBaselineMemory().convertToDouble(),
                           getMemoryAvailable().convertToDouble(),
                           getPsMemory().convertToDouble(),
                           getPsMemoryAvailable().convertToDouble()};
  const char *names[] = {"time",
                         "baseline_time",
                         "parameters",
                         "forward",
                         "backward",
                         "ring_all_gather",
                         "ring_reduce_scatter",
                         "param_fetch",
                         "baseline_optimizer",
                         "net_all_gather",
                         "net_reduce_scatter",
                         "ps_update",
                         "memory",
                         "baseline_memory",
                         "memory_available",
                         "ps_memory",
                         "ps_memory_available"};
  for (size_t i = 0; i < std::size(values); ++i)
    if (!isFiniteNum(values[i]) || values[i] < 0)
      return emitOpError() << names[i]
                           << " must be finite and non-negative, got "
                           << num(values[i]);
  if (getParamFetch().convertToDouble() > 0 && !getBaselineOffloadParams())
    return emitOpError() << "param_fetch needs baseline_offload_params";
  return success();
}
