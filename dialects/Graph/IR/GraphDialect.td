//===- GraphDialect.td - The graph dialect -----------------*- tablegen -*-===//
//
// The `graph` dialect describes graph algorithms (docs/language.md, section
// 11): a `graph.algorithm` holds vertex properties, frontiers and loops over
// vertices and edges, with the structured control flow of scf and the
// arithmetic of arith and math around them, and the schedule of each loop
// (section 12.1) as a typed `#graph.schedule` attribute.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_GRAPH_DIALECT
#define SLUICE_GRAPH_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::sluice::graph";
  let summary = "Graph algorithms: vertex properties, frontiers, loops over "
                "vertices and edges, and their schedules";
  let description = [{
    `graph.algorithm` is an algorithm over a graph (a `walk.graph`, the
    `graph g = load(...)` declaration that walks and algorithms share). Its
    body declares vertex properties (`graph.property`), computes with
    `arith`, `math` and `scf`, builds frontiers (`!graph.frontier`) and runs
    loops over every vertex (`graph.vertices`) or edge (`graph.edges`) whose
    iterations read and write vertex properties (`graph.prop.get`,
    `graph.prop.set`, `graph.prop.reduce`). What the algorithm computes is
    its ops; how each loop runs is its `#graph.schedule`, which
    `graph-attach-schedule` derives from the `schedule` declaration.
    `graph.job` is a run of an algorithm with its options.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerTypes();
    void registerAttributes();
  }];
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

class Graph_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Graph_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Graph_FrontierType : Graph_Type<"Frontier", "frontier"> {
  let summary = "A set of vertices (a `frontier` of the language)";
  let description = [{
    The value of a `frontier` variable: a set of vertices of the
    algorithm's graph. Frontiers are values: an edges loop that tracks the
    destinations it changed returns a new one (`graph.edges ... ->
    !graph.frontier`), and a loop that updates a frontier carries it as an
    `scf` loop-carried value. How a frontier is stored (a sparse list of
    ids, a dense array, a bitmap) is not part of the type but of the
    schedule of the loops that read and write it (`frontier = ...` in
    `#graph.schedule`).
  }];
}

#endif // SLUICE_GRAPH_DIALECT
