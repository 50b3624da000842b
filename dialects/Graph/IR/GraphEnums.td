//===- GraphEnums.td - Enums of the graph dialect ----------*- tablegen -*-===//
//
// The words of graph algorithms and their schedules, as C++ enums. This file
// has no dialect dependency so that GraphSchema (and through it Sema) uses
// the generated enums without linking the dialect; GraphAttrs.td wraps them
// in attributes. The spellings are those of the language (docs/language.md,
// sections 11 and 12.1).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_GRAPH_ENUMS
#define SLUICE_GRAPH_ENUMS

include "mlir/IR/EnumAttr.td"

def Graph_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a reduction combines a value into a vertex property "
    "(`+=`, `-=`, `*=`, `min=`, `max=`)", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Min", 3, "min">,
    I32EnumAttrCase<"Max", 4, "max">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_Direction : I32EnumAttr<"Direction",
    "how an edges loop traverses the edges (`direction: ...`)", [
    I32EnumAttrCase<"Push", 0, "push">,
    I32EnumAttrCase<"Pull", 1, "pull">,
    I32EnumAttrCase<"Hybrid", 2, "hybrid">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_Parallel : I32EnumAttr<"Parallel",
    "how a loop's iterations are shared between threads "
    "(`parallel: serial | static | dynamic(n)`)", [
    I32EnumAttrCase<"Serial", 0, "serial">,
    I32EnumAttrCase<"Static", 1, "static">,
    I32EnumAttrCase<"Dynamic", 2, "dynamic">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_FrontierKind : I32EnumAttr<"FrontierKind",
    "how the frontiers of an edges loop are represented (`frontier: ...`)", [
    I32EnumAttrCase<"Sparse", 0, "sparse">,
    I32EnumAttrCase<"Dense", 1, "dense">,
    I32EnumAttrCase<"Bitmap", 2, "bitmap">,
    I32EnumAttrCase<"Auto", 3, "auto">,
    I32EnumAttrCase<"Buckets", 4, "buckets">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_EdgeFormat : I32EnumAttr<"EdgeFormat",
    "the edge format an edges loop iterates over (`format: ...`)", [
    I32EnumAttrCase<"Csr", 0, "csr">,
    I32EnumAttrCase<"Coo", 1, "coo">,
    I32EnumAttrCase<"Auto", 2, "auto">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_Fusion : I32EnumAttr<"Fusion",
    "whether a `frontier: buckets` loop's rounds may be fused (`fusion: ...`)", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Off", 1, "off">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_VertexOrder : I32EnumAttr<"VertexOrder",
    "the order an edges loop compares its vertices in (`order: ...`)", [
    I32EnumAttrCase<"Natural", 0, "natural">,
    I32EnumAttrCase<"Degree", 1, "degree">,
    I32EnumAttrCase<"Auto", 2, "auto">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

def Graph_Target : I32EnumAttr<"Target",
    "where an algorithm's kernels run (`target: ...`)", [
    I32EnumAttrCase<"Cpu", 0, "cpu">,
    I32EnumAttrCase<"Gpu", 1, "gpu">
  ]> {
  let cppNamespace = "::sluice::graph";
  let genSpecializedAttr = 0;
}

#endif // SLUICE_GRAPH_ENUMS
