//===- TopoAttrs.td - Attributes of the topo dialect -------*- tablegen -*-===//
//
// Device kinds and link directions as attributes, quantities with units
// (`#topo.q<80 GiB>`) and endpoint paths (`#topo.ep<server[3]::gpu[2]>`).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_TOPO_ATTRS
#define SLUICE_TOPO_ATTRS

include "dialects/Topo/IR/TopoDialect.td"
include "dialects/Topo/IR/TopoEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Topo_Attr<string name, list<Trait> traits = []>
    : AttrDef<Topo_Dialect, name, traits>;

// The descriptions add what a kind or a direction means to the list of
// cases that EnumAttrInfo generates for the docs.
def Topo_DeviceKindAttr : EnumAttr<Topo_Dialect, Topo_DeviceKind, "kind"> {
  let description = !strconcat(
      "The kind of a `topo.device` (written `kind(gpu)` in its format). The "
      "kind selects the property schema the verifier checks the device's "
      "properties against (`deviceProperties` in `TopoSchema.h`); Sema uses "
      "the same generated enum, through TopoSchema, for the language's "
      "device kinds.\n\n", Topo_DeviceKind.description);
}
def Topo_LinkDirectionAttr
    : EnumAttr<Topo_Dialect, Topo_LinkDirection, "direction"> {
  let description = !strconcat(
      "The direction of a `topo.link`: `->` carries traffic from the first "
      "endpoint to the second only, `<->` both ways, with the link's "
      "bandwidth available in each direction (the flow network gets one arc "
      "per direction).\n\n", Topo_LinkDirection.description);
}

//===----------------------------------------------------------------------===//
// QuantityAttr
//===----------------------------------------------------------------------===//

// No mnemonic: TopoDialect::parseAttribute/printAttribute handle `q<...>`
// from the raw symbol text, because unit spellings such as `GB/s` are not
// MLIR tokens.
def Topo_QuantityAttr : Topo_Attr<"Quantity"> {
  let attrName = "topo.q";
  let summary = "A number with a unit, e.g. `#topo.q<80 GiB>`";
  let description = [{
    A quantity keeps the number and the unit exactly as written (`2.5 GB/s`
    stays `2.5 GB/s`; the double round-trips bit for bit through the textual
    form). The unit is one of the spellings known to `sluice::lookupUnit`
    (`support/Units.h`), which also gives its dimension and its
    factor to base units.

    Example:

    ```mlir
    #topo.q<80 GiB>
    #topo.q<2.5 GB/s>
    #topo.q<1.5 us>
    ```
  }];
  let parameters = (ins APFloatParameter<"the number as written">:$number,
                        StringRefParameter<"the unit spelling">:$unit);
  let builders = [
    AttrBuilder<(ins "double":$value, "::llvm::StringRef":$unit), [{
      return $_get($_ctxt, ::llvm::APFloat(value), unit);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number as written, e.g. 80 for `80 GiB`.
    double getValue() const { return getNumber().convertToDouble(); }
    /// The value in base units (bytes, seconds, B/s, ...).
    double getBaseValue() const;
    /// The dimension of the unit.
    ::sluice::Dim getDim() const;
    /// "80 GiB": the number in its shortest round-tripping form and the unit.
    std::string str() const;
  }];
}

//===----------------------------------------------------------------------===//
// EndpointAttr
//===----------------------------------------------------------------------===//

def Topo_EndpointAttr : Topo_Attr<"Endpoint"> {
  let mnemonic = "ep";
  let summary = "A path to a device, e.g. `#topo.ep<server[3]::gpu[2]>`";
  let description = [{
    An endpoint names a device from inside a topology: a path of segments,
    each a name with an optional index. All but the last segment name
    instances (nested topologies); the last names a device. Segments are
    separated by `::`. A name that is not an identifier (letters, digits and
    `_`, not starting with a digit) is written as a string; this is how a
    flattened topology refers to its devices, whose names are full paths.

    Example:

    ```mlir
    #topo.ep<server[3]::gpu[2]>
    #topo.ep<nvswitch>
    #topo.ep<"server[3].gpu[2]">
    ```
  }];
  let parameters = (ins
      ArrayRefParameter<"EndpointSegment", "path segments">:$segments);
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<EndpointSegment>":$segments), [{
      return $_get($_ctxt, segments);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// A one-segment endpoint naming a device by its full path, as in a
    /// flattened topology: `"server[3].gpu[2]"`.
    static EndpointAttr getFlat(::mlir::MLIRContext *context,
                                ::llvm::StringRef path);
    /// The dotted path of the device, as in the language and in flattened
    /// device names: "server[3].gpu[2]".
    std::string getPath() const;
    /// Parses the path without the surrounding `<>` (used by op formats).
    static ::mlir::FailureOr<EndpointAttr> parsePath(::mlir::AsmParser &parser);
    /// Prints the path without the surrounding `<>`.
    void printPath(::mlir::AsmPrinter &printer) const;
  }];
}

#endif // SLUICE_TOPO_ATTRS
