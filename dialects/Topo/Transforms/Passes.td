//===- Passes.td - Passes of the topo dialect --------------*- tablegen -*-===//

#ifndef SLUICE_TOPO_PASSES
#define SLUICE_TOPO_PASSES

include "mlir/Pass/PassBase.td"

def TopoFlatten : Pass<"topo-flatten", "::mlir::ModuleOp"> {
  let summary = "Expand a topology into one op per physical device and link";
  let description = [{
    Flattens the topology named by `top` (by default the last topology of
    the module that no other topology instances) into a topology of the same
    name with the `flat` flag, and removes every other topology of the
    module.

    Before: topologies with device arrays, instances of other topologies
    (possibly arrays of them), links whose endpoints go through instances,
    overrides and measured links.

    After: one `topo.topology @<top> flat` holding one scalar `topo.device`
    per physical device, named by its full path (`server[3].gpu[2]`,
    `nvswitch[0]`, `cpu`), with the properties of its declaration; one
    `topo.link` per link between those devices, the links of each nested
    topology copied once per instance with the instance's path as prefix;
    overrides applied; measured links kept with `measured`. No arrays,
    instances or overrides remain. Devices come first, in declaration order
    with instances expanded in place (index order), then links in the same
    order.

    Overrides of a topology apply, in declaration order, after all its links
    (including those of its instances) are known. `<->` changes every
    non-measured link between the two devices; `->` changes the links from
    the first device to the second, and splits a `<->` link between them
    into two `->` links so that only that direction changes. An override
    that matches no link is an error.

    Example: given

    ```mlir
    topo.topology @node {
      topo.device @gpu kind(gpu) count 2
      topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<300 GB/s>}
    }
    topo.topology @pod {
      topo.instance @server of @node count 2
      topo.override server[1]::gpu[0] -> server[1]::gpu[1] {bandwidth = #topo.q<150 GB/s>}
    }
    ```

    `--topo-flatten` produces

    ```mlir
    topo.topology @pod flat {
      topo.device @"server[0].gpu[0]" kind(gpu)
      topo.device @"server[0].gpu[1]" kind(gpu)
      topo.device @"server[1].gpu[0]" kind(gpu)
      topo.device @"server[1].gpu[1]" kind(gpu)
      topo.link "server[0].gpu[0]" <-> "server[0].gpu[1]" {bandwidth = #topo.q<300 GB/s>}
      topo.link "server[1].gpu[0]" -> "server[1].gpu[1]" {bandwidth = #topo.q<150 GB/s>}
      topo.link "server[1].gpu[1]" -> "server[1].gpu[0]" {bandwidth = #topo.q<300 GB/s>}
    }
    ```
  }];
  let options = [
    Option<"top", "top", "std::string", /*default=*/"",
           "Name of the topology to flatten (default: the last topology "
           "that no other topology instances)">
  ];
  let dependentDialects = ["::sluice::topo::TopoDialect"];
}

#endif // SLUICE_TOPO_PASSES
