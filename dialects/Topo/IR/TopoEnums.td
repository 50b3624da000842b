//===- TopoEnums.td - Enums of the topo dialect ------------*- tablegen -*-===//
//
// The C++ enums of the topo dialect. This file has no dialect dependency so
// that TopoSchema (and through it Sema) can use the generated enum without
// linking the dialect; TopoAttrs.td wraps these enums in attributes.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_TOPO_ENUMS
#define SLUICE_TOPO_ENUMS

include "mlir/IR/EnumAttr.td"

def Topo_DeviceKind : I32EnumAttr<"DeviceKind", "kind of a hardware device", [
    I32EnumAttrCase<"Gpu", 0, "gpu">,
    I32EnumAttrCase<"Cpu", 1, "cpu">,
    I32EnumAttrCase<"Nvme", 2, "nvme">,
    I32EnumAttrCase<"Nic", 3, "nic">,
    I32EnumAttrCase<"SmartNic", 4, "smartnic">,
    I32EnumAttrCase<"Switch", 5, "switch">,
    I32EnumAttrCase<"Csd", 6, "csd">
  ]> {
  let cppNamespace = "::sluice::topo";
  let genSpecializedAttr = 0;
}

def Topo_LinkDirection : I32EnumAttr<"LinkDirection",
    "direction of a link: `->` (forward) or `<->` (both)", [
    I32EnumAttrCase<"Forward", 0, "forward">,
    I32EnumAttrCase<"Both", 1, "both">
  ]> {
  let cppNamespace = "::sluice::topo";
  let genSpecializedAttr = 0;
}

#endif // SLUICE_TOPO_ENUMS
