//===- TopoDialect.td - The topo dialect -------------------*- tablegen -*-===//
//
// The `topo` dialect describes hardware topologies: devices with typed
// properties, arrays of devices, nested nodes (instances of other
// topologies), links with attained bandwidth and latency, per-link overrides
// and measured end-to-end bandwidths.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_TOPO_DIALECT
#define SLUICE_TOPO_DIALECT

include "mlir/IR/OpBase.td"

def Topo_Dialect : Dialect {
  let name = "topo";
  let cppNamespace = "::sluice::topo";
  let summary = "Hardware topologies: devices, links and their properties";
  let description = [{
    A `topo.topology` is a symbol table of devices (`topo.device`), nested
    nodes (`topo.instance` of another topology) and the links between them
    (`topo.link`, `topo.override`). Device and link properties are typed
    attributes checked against the schema in `TopoSchema.h`; quantities carry
    their unit (`#topo.q<80 GiB>`). `topo-flatten` expands arrays and
    instances into one device op per physical device.
  }];
  let useDefaultAttributePrinterParser = 0;
  let extraClassDeclaration = [{
    /// Parses `#topo.q<...>` from its raw text (units such as `GB/s` are not
    /// MLIR tokens) and every other topo attribute through ODS.
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;

  private:
    /// Adds the attributes (in TopoAttrs.cpp, next to their storage).
    void registerAttributes();
  }];
}

class Topo_Op<string mnemonic, list<Trait> traits = []>
    : Op<Topo_Dialect, mnemonic, traits>;

#endif // SLUICE_TOPO_DIALECT
