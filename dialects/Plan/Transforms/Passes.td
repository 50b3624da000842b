//===- Passes.td - Passes of the plan dialect --------------*- tablegen -*-===//

#ifndef SLUICE_PLAN_PASSES
#define SLUICE_PLAN_PASSES

include "mlir/Pass/PassBase.td"

def PlanScheduleFlows : Pass<"plan-schedule-flows", "::mlir::ModuleOp"> {
  let summary = "Plan minimum-makespan transfer schedules for plan.demands";
  let description = [{
    Needs the flat topology of the module (`topo-flatten`). Each
    `plan.demands @d on @t` becomes a `plan.schedule @d on @t`:

    1. the capacity network is the flat topology's links (one arc per
       direction; parallel arcs between the same two devices are merged,
       their bandwidths summed, which is exact for the fluid model);
    2. every `transfer`, `gather` and `alltoall` `plan.demand` turns into
       point-to-point demands between the devices its patterns match (see
       the op's documentation); a pattern that matches no device, a group
       too small to move anything, and a destination no source can reach
       are errors at the demand;
    3. the point-to-point demands are merged and solved for the minimum
       makespan: max flow (Newton on the parametric max flow) when they
       share one source or one destination, else the path LP by column
       generation (`multi-commodity-path-lp`, its certified bound as
       `lower_bound`), or the multi-commodity arc LP (GLPK) when the
       topology has at most `path-lp-devices` devices (default 0: never)
       and the arc LP would have at most `path-lp-size` (2e6) flow
       variables (commodities x arcs); the direct-path baseline (widest path per demand,
       fair sharing) and, when no device both sends and receives, Moment's
       greedy are solved too and recorded as `direct_makespan` /
       `moment_makespan`;
    4. each path of each demand becomes a `plan.transfer` (constant rate
       over its window, chunk count from `chunk_bytes`);
    5. each `allreduce`, `allgather` and `reducescatter` is planned by every
       algorithm that applies (flow::planCollectives: ring, double binary
       tree, in-network through the devices with `reduce: true` that the
       group reaches, hierarchical for groups that split into equal
       servers), routed over the topology; the fastest becomes a
       `plan.collective` (all algorithms' times as attributes) and its
       phases `plan.transfer`s on streams `<label>/<phase>`. Collectives
       run after the point-to-point demands, one after the other in
       declaration order; `lower_bound` and the baselines cover the
       point-to-point part only, and a schedule of collectives alone has
       method `collective`. With `remarks`, a remark per collective lists
       every algorithm's time, one per path-LP solve its bound, and one per
       `gather` item the recommended vs the current slot assignment.

    The topology named by a demand must be the flat one.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Print a remark per collective comparing the algorithms' times, "
           "per path-LP solve with its bound, and per gather item with a "
           "slot recommendation (GatherSlots.h)">,
    Option<"pathLPDevices", "path-lp-devices", "unsigned", /*default=*/"0",
           "Use the arc LP instead of the path LP (column generation) on "
           "topologies of at most this many devices (0, the default: never; "
           "the path LP is faster at every size measured)">,
    Option<"pathLPSize", "path-lp-size", "unsigned", /*default=*/"2000000",
           "With path-lp-devices: use the arc LP only when it has at most "
           "this many flow variables (commodities x arcs)">,
  ];
  let dependentDialects = ["::sluice::plan::PlanDialect"];
}

def PlanMiddleTier : Pass<"plan-middle-tier", "::mlir::ModuleOp"> {
  let summary = "Plan the storage middle tiers of blockio demands (SmartDS)";
  let description = [{
    Every `plan.demand blockio` (block I/O from compute to storage devices
    through middle-tier servers) becomes a `plan.middle_tier` op after its
    `plan.demands`, and the demand is removed (a `plan.demands` left empty
    is erased, so `plan-schedule-flows` after it sees only flows).

    A middle-tier server is the instance around each device its
    `middle_tier` patterns match (the path up to the device's last `.`):
    that device must be a `cpu` with `cores`; the server's `nic` and
    `smartnic` devices (same instance) give the line rate (`bandwidth`,
    summed) and its SmartNICs' compression engines (`compress`, summed;
    `compress_ratio`, the best) and decompression engines (`decompress`,
    summed). flow::planMiddleTier (compiler/Analysis/Flow/MiddleTier.h)
    picks per server the share of its writes compressed on the SmartNIC
    (the header stays on the host: SmartDS's message split; the rest on
    the host CPU) and, for the job's `read_fraction` of reads, the share
    decompressed there, maximising the server's throughput exactly (all on
    one site or split), and sizes the tier for the demand's rate against a
    CPU-only tier.

    The host codec's rates per core: the job's `cpu_rate` /
    `cpu_decompress_rate` / `cpu_ratio` when the driver measured them
    (sluicec --measure-compression), else the options `compress-rate` /
    `decompress-rate` / `compress-ratio`, else the fallbacks
    (`kFallbackCompressRate`, 250 MB/s per core; `kFallbackDecompressRate`,
    3 GB/s per core; the ideal ratio 1 / (1 - compressibility)); the op
    records which (`cpu_source`).

    Before:

    ```mlir
    plan.demands @io on @dc {
      plan.demand blockio 4.096e+03 from ["compute[*].cpu"] to
          ["storage[*].ssd"] {job = {compressibility = 5.0e-01 : f64,
          header_cost = 1.0e-06 : f64, middle_tier = ["mid[*].cpu"],
          rate = 4.0e+06 : f64}}
    }
    ```

    After: `plan.middle_tier "io.0" block_bytes(4.096e+03) rate(4.0e+06)
    {servers = [...], planned = {...}, cpu_only = {...}, speedup = ...}`.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Print a remark per middle-tier server (sites, throughput, "
           "bottleneck) and per blockio item (servers needed, speedup)">,
    Option<"compressRate", "compress-rate", "double", /*default=*/"0",
           "Host codec rate, input bytes per second per core (0: not "
           "given)">,
    Option<"compressRatio", "compress-ratio", "double", /*default=*/"0",
           "Host codec ratio with compress-rate (0: the ideal "
           "1 / (1 - compressibility))">,
    Option<"decompressRate", "decompress-rate", "double", /*default=*/"0",
           "Host codec decompression rate with compress-rate, output bytes "
           "per second per core (0: the fallback)">,
  ];
  let dependentDialects = ["::sluice::plan::PlanDialect"];
}

#endif // SLUICE_PLAN_PASSES
