//===- TopoOps.td - Operations of the topo dialect ---------*- tablegen -*-===//
//
// topo.topology holds devices, instances of other topologies, links and
// overrides. None of the ops has operands or results: a topology is a
// declaration, and its ops refer to each other by name.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_TOPO_OPS
#define SLUICE_TOPO_OPS

include "dialects/Topo/IR/TopoAttrs.td"
include "dialects/Topo/IR/TopoDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// topo.topology
//===----------------------------------------------------------------------===//

def Topo_TopologyOp : Topo_Op<"topology", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let hasRegionVerifier = 1;
  let summary = "A named hardware topology";
  let description = [{
    A topology is a symbol table of devices, instances and links. Its body is
    a single block without terminator holding `topo.device`,
    `topo.instance`, `topo.link` and `topo.override` ops. Other topologies
    nest it with `topo.instance`.

    With the `flat` flag (set by `topo-flatten`), every device is a single
    physical device named by its full path (`"server[3].gpu[2]"`), there are
    no arrays and no instances, and endpoints name devices by that path.

    Example:

    ```mlir
    topo.topology @dgx_a100 {
      topo.device @gpu kind(gpu) count 8 props {memory = #topo.q<80 GiB>}
      topo.device @nvswitch kind(switch) count 6
      topo.link gpu[0] <-> nvswitch[0] {bandwidth = #topo.q<25 GB/s>}
    }
    topo.topology @cluster flat {
      topo.device @"server[0].gpu[0]" kind(gpu)
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$flat);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat =
      "$sym_name (`flat` $flat^)? attr-dict-with-keyword $bodyRegion";
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the topology with its (empty) body block.
    OpBuilder<(ins "::llvm::StringRef":$name, CArg<"bool", "false">:$flat)>
  ];
}

//===----------------------------------------------------------------------===//
// topo.device
//===----------------------------------------------------------------------===//

def Topo_DeviceOp : Topo_Op<"device", [Symbol, HasParent<"TopologyOp">]> {
  let summary = "A device, or an array of identical devices";
  let description = [{
    Declares a device of a kind (`gpu`, `cpu`, `nvme`, `nic`, `smartnic`,
    `switch`, `csd`), optionally an array of `count` (at least 1) identical
    devices addressed as `name[0]` .. `name[count-1]`. The properties are a
    dictionary whose values are `#topo.q` quantities, integers, strings or
    booleans; the verifier checks each against the schema of the kind
    (`deviceProperties` in `TopoSchema.h`): the name must be known, the value
    of the right kind and dimension, and positive where the schema says so.

    Outside a flat topology the name may only contain letters, digits and
    `_`.

    Example:

    ```mlir
    topo.device @gpu kind(gpu) count 8 props {memory = #topo.q<80 GiB>, model = "A100", sms = 108}
    topo.device @cpu kind(cpu) props {cores = 64}
    topo.device @nvswitch kind(switch)
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Topo_DeviceKindAttr:$kind,
                       OptionalAttr<I64Attr>:$count,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$props);
  let assemblyFormat = [{
    $sym_name `kind` `(` custom<DeviceKind>($kind) `)` (`count` $count^)?
    (`props` $props^)?
    attr-dict
  }];
  let builders = [
    // Convenience form for MLIRGen: a plain count (std::nullopt for a
    // scalar device).
    OpBuilder<(ins "::llvm::StringRef":$name, "DeviceKind":$kind,
                   "::std::optional<int64_t>":$count,
                   "::mlir::DictionaryAttr":$props)>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of devices declared: `count`, or 1 for a scalar device.
    int64_t getNumDevices() { return getCount().value_or(1); }
    /// Whether this declares an array (an index is needed to address it).
    bool isArray() { return getCount().has_value(); }
  }];
}

//===----------------------------------------------------------------------===//
// topo.instance
//===----------------------------------------------------------------------===//

def Topo_InstanceOp : Topo_Op<"instance", [
    Symbol, HasParent<"TopologyOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A nested node: an instance of another topology";
  let description = [{
    Nests the topology `@target` (a `topo.topology` of the enclosing module)
    under the name `@name`, or an array of `count` (at least 1) copies
    addressed as `name[0]` .. `name[count-1]`. Endpoints reach the devices of
    the nested topology through it (`server[3]::gpu[2]`). A topology may not
    instance itself, directly or through other topologies.

    Example:

    ```mlir
    topo.instance @server of @dgx_a100 count 16
    topo.instance @storage of @jbod
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$target,
                       OptionalAttr<I64Attr>:$count);
  let assemblyFormat = "$sym_name `of` $target (`count` $count^)? attr-dict";
  let builders = [
    // Convenience form for MLIRGen: a plain count (std::nullopt for a
    // scalar instance).
    OpBuilder<(ins "::llvm::StringRef":$name, "::llvm::StringRef":$target,
                   "::std::optional<int64_t>":$count)>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of copies: `count`, or 1 for a scalar instance.
    int64_t getNumInstances() { return getCount().value_or(1); }
    /// Whether this declares an array (an index is needed to address it).
    bool isArray() { return getCount().has_value(); }
  }];
}

//===----------------------------------------------------------------------===//
// topo.link
//===----------------------------------------------------------------------===//

def Topo_LinkOp : Topo_Op<"link", [
    HasParent<"TopologyOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A link between two devices";
  let description = [{
    Connects two devices, `->` in one direction or `<->` in both (each
    direction then has the given bandwidth). Each endpoint names a device of
    this topology or, through instances, of a nested one; an index is given
    exactly for arrays and must be in range. The properties are checked
    against `linkProperties()`: `bandwidth` (attained, per direction) is
    required and positive, `latency` is non-negative, `type` is a string.
    A link may not connect a device to itself.

    With `measured`, the link is an observed end-to-end bandwidth between the
    two devices (an entry of a measured bandwidth matrix) rather than a
    physical link; analyses report it as the attained bandwidth of the pair
    and leave it out of the structural ones.

    Example:

    ```mlir
    topo.link gpu[0] <-> nvswitch[0] {bandwidth = #topo.q<25 GB/s>, type = "nvlink3"}
    topo.link server[0]::nic -> spine {bandwidth = #topo.q<25 GB/s>, latency = #topo.q<2 us>}
    topo.link gpu[0] -> gpu[1] measured {bandwidth = #topo.q<231.5 GB/s>}
    ```
  }];
  let arguments = (ins Topo_EndpointAttr:$from,
                       Topo_LinkDirectionAttr:$direction,
                       Topo_EndpointAttr:$to,
                       DictionaryAttr:$props,
                       UnitAttr:$measured);
  let assemblyFormat = [{
    custom<Endpoint>($from) custom<LinkDirection>($direction)
    custom<Endpoint>($to) (`measured` $measured^)? $props attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// topo.override
//===----------------------------------------------------------------------===//

def Topo_OverrideOp : Topo_Op<"override", [
    HasParent<"TopologyOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Changes the properties of existing links";
  let description = [{
    Sets properties of the physical links between two devices when the
    topology is flattened; the endpoints are checked like those of
    `topo.link` and the properties against `linkProperties()` (none is
    required, at least one must be given). `<->` changes every link between
    the two devices; `->` changes the links from the first to the second: a
    forward link, or that direction of a `<->` link, which flattening then
    splits into two forward links. Overrides apply in declaration order,
    after all links of the topology (including those of nested instances)
    are known, so they can change one link of one nested node. Measured
    links are not changed by overrides. An override that matches no link is
    an error of `topo-flatten`.

    Example:

    ```mlir
    topo.override server[3]::gpu[0] <-> server[3]::nvswitch[0] {bandwidth = #topo.q<12.5 GB/s>}
    ```
  }];
  let arguments = (ins Topo_EndpointAttr:$from,
                       Topo_LinkDirectionAttr:$direction,
                       Topo_EndpointAttr:$to,
                       DictionaryAttr:$props);
  let assemblyFormat = [{
    custom<Endpoint>($from) custom<LinkDirection>($direction)
    custom<Endpoint>($to) $props attr-dict
  }];
  let hasVerifier = 1;
}

#endif // SLUICE_TOPO_OPS
