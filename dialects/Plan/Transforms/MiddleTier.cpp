//===- MiddleTier.cpp - plan-middle-tier ----------------------------------===//
//
// Turns every `plan.demand blockio` into a `plan.middle_tier` by reading the
// middle-tier servers off the flat topology and calling
// flow::planMiddleTier (compiler/Analysis/Flow/MiddleTier.h). See Passes.td
// for the contract and docs/flows.md ("Storage middle tier (SmartDS)").
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/MiddleTier.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include <map>

namespace sluice::plan {
#define GEN_PASS_DEF_PLANMIDDLETIER
#include "dialects/Plan/Transforms/Passes.h.inc"
} // namespace sluice::plan

using namespace mlir;
using namespace sluice;
using namespace sluice::plan;

namespace {

/// The host codec's rates per core when they were neither measured nor
/// given: conservative figures near the lower end of what the development
/// machine measured under load (bench/RESULTS.md, "SmartDS"): zstd level 1
/// compressed 185-575 MB/s and decompressed 1.8-16 GB/s per core (output
/// bytes) on 4-64 KiB blocks; lz4 level 1 compressed 368-1876 MB/s and
/// decompressed 2.3-16.6 GB/s.
struct FallbackCodec {
  double compressRate, decompressRate;
};
constexpr FallbackCodec kFallbackZstd = {250e6, 3e9};
constexpr FallbackCodec kFallbackLz4 = {400e6, 3e9};

struct MiddleTierPass : public plan::impl::PlanMiddleTierBase<MiddleTierPass> {
  using PlanMiddleTierBase::PlanMiddleTierBase;
  void runOnOperation() override;

private:
  LogicalResult planItem(DemandOp op, unsigned index,
                         const analysis::TopoGraph &graph,
                         const PlanNetwork &pn, OpBuilder &builder);
};

std::string sig(double v) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%.4g", v);
  return out;
}

const analysis::QuantityProp *quantity(const analysis::TopoDevice &d,
                                       llvm::StringRef name) {
  return d.findQuantity(name);
}

} // namespace

/// The servers around the devices `patterns` match: the instance path up
/// to each device's last '.', its cpu's cores, its NICs' line rate and its
/// SmartNICs' compression and decompression engines. Fails after reporting
/// at `op`.
static FailureOr<std::vector<flow::MiddleTierServer>>
findServers(DemandOp op, ArrayAttr patterns, const analysis::TopoGraph &graph,
            const PlanNetwork &pn) {
  llvm::SetVector<unsigned> cpus;
  for (Attribute a : patterns) {
    StringRef pattern = cast<StringAttr>(a).getValue();
    auto matched = matchDevices(pn.net, pattern);
    if (!matched)
      return op.emitError() << llvm::toString(matched.takeError());
    if (matched->empty())
      return op.emitError()
             << "no device matches the middle tier '" << pattern << "'";
    cpus.insert(matched->begin(), matched->end());
  }
  std::vector<flow::MiddleTierServer> servers;
  for (unsigned v : cpus) {
    const analysis::TopoDevice &cpu = graph.devices[v];
    size_t dot = cpu.name.rfind('.');
    if (cpu.kind != "cpu" || dot == std::string::npos)
      return op.emitError()
             << "the middle tier names '" << cpu.name << "', a " << cpu.kind
             << (dot == std::string::npos ? " outside any server" : "")
             << "; expected the host cpu of each middle-tier server "
                "(SERVER[*].cpu)";
    flow::MiddleTierServer s;
    s.name = cpu.name.substr(0, dot);
    for (const analysis::IntProp &p : cpu.ints)
      if (p.name == "cores")
        s.cores = static_cast<double>(p.value);
    if (s.cores <= 0)
      return op.emitError()
             << "middle-tier cpu '" << cpu.name << "' needs 'cores'";
    for (const analysis::TopoDevice &d : graph.devices) {
      if (d.name.size() <= dot || d.name.compare(0, dot + 1, s.name + ".") ||
          d.name.find('.', dot + 1) != std::string::npos)
        continue;
      if (d.kind != "nic" && d.kind != "smartnic")
        continue;
      if (const auto *bw = quantity(d, "bandwidth"))
        s.lineRate += bw->value;
      if (const auto *decoder = quantity(d, "decompress"))
        s.decompressRate += decoder->value;
      const auto *engine = quantity(d, "compress");
      if (!engine)
        continue;
      const auto *ratio = quantity(d, "compress_ratio");
      double r = ratio ? ratio->value : 0;
      for (const analysis::IntProp &p : d.ints)
        if (p.name == "compress_ratio")
          r = static_cast<double>(p.value);
      if (r <= 0)
        return op.emitError() << "smartnic '" << d.name
                              << "' has 'compress' but no 'compress_ratio'";
      s.engineRate += engine->value;
      s.engineRatio = std::max(s.engineRatio, r);
    }
    if (s.lineRate <= 0)
      return op.emitError() << "middle-tier server '" << s.name
                            << "' has no nic or smartnic with a 'bandwidth'";
    servers.push_back(std::move(s));
  }
  return servers;
}

static DictionaryAttr tierAttr(OpBuilder &b, const flow::TierTotals &t) {
  return b.getDictionaryAttr({
      b.getNamedAttr("requests", b.getF64FloatAttr(t.requests)),
      b.getNamedAttr("bytes_in", b.getF64FloatAttr(t.bytesIn)),
      b.getNamedAttr("bytes_out", b.getF64FloatAttr(t.bytesOut)),
      b.getNamedAttr("servers_needed", b.getI64IntegerAttr(t.serversNeeded)),
      b.getNamedAttr("extrapolated", b.getBoolAttr(t.extrapolated)),
  });
}

LogicalResult MiddleTierPass::planItem(DemandOp op, unsigned index,
                                       const analysis::TopoGraph &graph,
                                       const PlanNetwork &pn,
                                       OpBuilder &builder) {
  DictionaryAttr job = op.getJobAttr();
  auto servers =
      findServers(op, job.getAs<ArrayAttr>("middle_tier"), graph, pn);
  if (failed(servers))
    return failure();
  // The compute and storage ends must exist, too.
  for (ArrayAttr list : {op.getSources(), op.getDestinations()})
    for (Attribute a : list) {
      auto matched = matchDevices(pn.net, cast<StringAttr>(a).getValue());
      if (!matched)
        return op.emitError() << llvm::toString(matched.takeError());
      if (matched->empty())
        return op.emitError() << "no device matches '"
                              << cast<StringAttr>(a).getValue() << "'";
    }
  auto f64 = [&](StringRef name) {
    return job.getAs<FloatAttr>(name).getValueAsDouble();
  };
  flow::BlockIOLoad load;
  load.blockBytes = op.getBytes().convertToDouble();
  load.requestRate = f64("rate");
  load.headerSeconds = f64("header_cost");
  if (auto read = job.getAs<FloatAttr>("read_fraction"))
    load.readFraction = read.getValueAsDouble();
  double c = f64("compressibility");
  plan::Codec codec = plan::Codec::Zstd;
  if (auto a = job.getAs<CodecAttr>("codec"))
    codec = a.getValue();
  const FallbackCodec &fallback =
      codec == plan::Codec::Lz4 ? kFallbackLz4 : kFallbackZstd;
  StringRef source = "fallback";
  load.hostCompressRate = fallback.compressRate;
  load.hostDecompressRate = fallback.decompressRate;
  load.hostRatio = 1 / (1 - c);
  if (auto measured = job.getAs<FloatAttr>("cpu_rate")) {
    source = "measured";
    load.hostCompressRate = measured.getValueAsDouble();
    if (auto r = job.getAs<FloatAttr>("cpu_ratio"))
      load.hostRatio = r.getValueAsDouble();
    if (auto d = job.getAs<FloatAttr>("cpu_decompress_rate"))
      load.hostDecompressRate = d.getValueAsDouble();
  } else if (compressRate > 0) {
    source = "given";
    load.hostCompressRate = compressRate;
    if (compressRatio > 0)
      load.hostRatio = compressRatio;
    if (decompressRate > 0)
      load.hostDecompressRate = decompressRate;
  }
  auto plan = flow::planMiddleTier(*servers, load);
  if (!plan)
    return op.emitError() << llvm::toString(plan.takeError());

  SmallVector<Attribute> serverAttrs;
  for (const flow::ServerPlan &s : plan->servers) {
    serverAttrs.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("name", builder.getStringAttr(s.name)),
        builder.getNamedAttr(
            "site", builder.getStringAttr(flow::stringifySite(s.chosen.site))),
        builder.getNamedAttr("decompress_site",
                             builder.getStringAttr(
                                 flow::stringifySite(s.chosen.decompressSite))),
        builder.getNamedAttr("compress_nic_share",
                             builder.getF64FloatAttr(s.chosen.nicShare)),
        builder.getNamedAttr("decompress_nic_share",
                             builder.getF64FloatAttr(s.chosen.nicReadShare)),
        builder.getNamedAttr("requests",
                             builder.getF64FloatAttr(s.chosen.requests)),
        builder.getNamedAttr("ratio", builder.getF64FloatAttr(s.chosen.ratio)),
        builder.getNamedAttr("bottleneck",
                             builder.getStringAttr(s.chosen.bottleneck)),
        builder.getNamedAttr("cores_busy",
                             builder.getF64FloatAttr(s.chosen.coresBusy)),
        builder.getNamedAttr("host_requests",
                             builder.getF64FloatAttr(s.host.requests)),
    }));
    if (!remarks)
      continue;
    InFlightDiagnostic diag = op.emitRemark();
    // "split compression (80% on the smartnic)".
    auto site = [&](flow::CompressionSite where, double share, StringRef what) {
      diag << flow::stringifySite(where) << " " << what;
      if (where == flow::CompressionSite::Split)
        diag << " (" << sig(100 * share) << "% on the smartnic)";
    };
    diag << "middle-tier server " << s.name << ": ";
    site(s.chosen.site, s.chosen.nicShare, "compression");
    if (load.readFraction > 0) {
      diag << ", ";
      site(s.chosen.decompressSite, s.chosen.nicReadShare, "decompression");
    }
    diag << ", " << sig(s.chosen.requests) << " requests/s ("
         << sig(s.chosen.requests * load.blockBytes / 1e9)
         << " GB/s), bound by " << s.chosen.bottleneck << ", ratio "
         << sig(s.chosen.ratio) << ", " << sig(s.chosen.coresBusy)
         << " host cores busy; host "
         << (load.readFraction > 0 ? "only " : "compression ")
         << sig(s.host.requests) << " requests/s (bound by "
         << s.host.bottleneck << ")";
  }
  if (remarks) {
    size_t declared = plan->servers.size();
    auto needed = [&](const flow::TierTotals &t) {
      return std::to_string(t.serversNeeded) + " servers" +
             (t.extrapolated
                  ? " (more than the " + std::to_string(declared) + " declared)"
                  : "");
    };
    op.emitRemark() << "middle tier of " << declared
                    << " servers: " << sig(plan->planned.requests)
                    << " requests/s planned vs " << sig(plan->cpuOnly.requests)
                    << " CPU-only (" << sig(plan->speedup) << "x); "
                    << sig(load.requestRate) << " requests/s need "
                    << needed(plan->planned) << " vs " << needed(plan->cpuOnly)
                    << " CPU-only; host codec " << stringifyCodec(codec) << " "
                    << sig(load.hostCompressRate / 1e6) << " MB/s per core"
                    << (load.readFraction > 0
                            ? ", decompression " +
                                  sig(load.hostDecompressRate / 1e6) +
                                  " MB/s per core"
                            : std::string())
                    << ", ratio " << sig(load.hostRatio) << " (" << source
                    << ")";
  }
  std::string label =
      (op->getParentOfType<DemandsOp>().getSymName() + "." + Twine(index))
          .str();
  builder.create<MiddleTierOp>(
      op.getLoc(), builder.getStringAttr(label),
      builder.getF64FloatAttr(load.blockBytes),
      builder.getF64FloatAttr(load.requestRate), builder.getF64FloatAttr(c),
      builder.getF64FloatAttr(load.headerSeconds),
      builder.getF64FloatAttr(load.readFraction),
      CodecAttr::get(builder.getContext(), codec),
      builder.getF64FloatAttr(load.hostCompressRate),
      builder.getF64FloatAttr(load.hostDecompressRate),
      builder.getF64FloatAttr(load.hostRatio), builder.getStringAttr(source),
      builder.getArrayAttr(serverAttrs), tierAttr(builder, plan->planned),
      tierAttr(builder, plan->cpuOnly), builder.getF64FloatAttr(plan->speedup));
  return success();
}

void MiddleTierPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<DemandsOp> withBlockIO;
  for (DemandsOp d : module.getOps<DemandsOp>())
    if (llvm::any_of(d.getBody().front().getOps<DemandOp>(), [](DemandOp op) {
          return op.getKind() == DemandKind::BlockIO;
        }))
      withBlockIO.push_back(d);
  if (withBlockIO.empty())
    return;
  topo::TopologyOp flat;
  auto graph = demandsTopoGraph(module, withBlockIO.front(), flat);
  if (failed(graph))
    return signalPassFailure();
  PlanNetwork pn = buildPlanNetwork(*graph);
  bool ok = true;
  for (DemandsOp demands : withBlockIO) {
    if (demands.getTopology() != flat.getSymName()) {
      demands.emitError() << "demand '" << demands.getSymName()
                          << "' is on topology '" << demands.getTopology()
                          << "', but the program was flattened around '"
                          << flat.getSymName()
                          << "' (choose it with --top=" << demands.getTopology()
                          << ")";
      ok = false;
      continue;
    }
    OpBuilder builder(demands.getContext());
    builder.setInsertionPointAfter(demands);
    SmallVector<DemandOp> planned;
    unsigned index = 0;
    for (DemandOp op : demands.getBody().front().getOps<DemandOp>()) {
      if (op.getKind() == DemandKind::BlockIO) {
        ok &= succeeded(planItem(op, index, *graph, pn, builder));
        planned.push_back(op);
      }
      ++index;
    }
    for (DemandOp op : planned)
      op.erase();
    if (demands.getBody().front().empty())
      demands.erase();
  }
  if (!ok)
    signalPassFailure();
}
