//===- GraphQueryOps.td - Graph expression ops ------------*- tablegen -*-===//
//
// What an algorithm's expressions read from its graph (the built-ins of
// docs/language.md, section 6.4: degree, has_edge, weight, label,
// edge_label, num_vertices, num_edges, common_neighbors), ids as vertices, random numbers,
// and integer division that faults instead of trapping. Included by
// GraphOps.td; each op is allowed anywhere in the body of a graph.algorithm
// and nowhere else.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_GRAPH_QUERY_OPS
#define SLUICE_GRAPH_QUERY_OPS

// A pure read of the algorithm's graph.
class Graph_QueryOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure], traits)> {
  let hasVerifier = 1;
}

def Graph_NumVerticesOp : Graph_QueryOp<"num_vertices"> {
  let summary = "Vertices of the graph";
  let description = [{ `num_vertices`. `%n = graph.num_vertices : i64`. }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Graph_NumEdgesOp : Graph_QueryOp<"num_edges"> {
  let summary = "Stored edges of the graph";
  let description = [{ `num_edges`. `%m = graph.num_edges : i64`. }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Graph_DegreeOp : Graph_QueryOp<"degree"> {
  let summary = "Out-degree of a vertex";
  let description = [{
    `degree(v)` (the degree in an undirected graph).
    Example: `%d = graph.degree %src : i64`.
  }];
  let arguments = (ins Graph_Vertex:$vertex);
  let results = (outs I64:$result);
  let assemblyFormat = "$vertex attr-dict `:` type($result)";
}

def Graph_HasEdgeOp : Graph_QueryOp<"has_edge"> {
  let summary = "Whether the edge u -> v exists";
  let description = [{ `has_edge(u, v)`. `%e = graph.has_edge %u, %v`. }];
  let arguments = (ins Graph_Vertex:$from, Graph_Vertex:$to);
  let results = (outs I1:$result);
  let assemblyFormat = "$from `,` $to attr-dict";
}

def Graph_EdgeWeightOp : Graph_QueryOp<"edge_weight"> {
  let summary = "Weight of the edge u -> v";
  let description = [{
    `weight(u, v)`: the weight of the first u -> v edge (1.0 on an
    unweighted graph), 0.0 when there is none.
    Example: `%w = graph.edge_weight %u, %v : f64`.
  }];
  let arguments = (ins Graph_Vertex:$from, Graph_Vertex:$to);
  let results = (outs F64:$result);
  let assemblyFormat = "$from `,` $to attr-dict `:` type($result)";
}

def Graph_LabelOp : Graph_QueryOp<"label"> {
  let summary = "Label of a vertex";
  let description = [{
    `label(v)` (the graph is loaded with `labels:`).
    Example: `%l = graph.label %v : i64`.
  }];
  let arguments = (ins Graph_Vertex:$vertex);
  let results = (outs I64:$result);
  let assemblyFormat = "$vertex attr-dict `:` type($result)";
}

def Graph_EdgeLabelOp : Graph_QueryOp<"edge_label"> {
  let summary = "Label of the edge u -> v";
  let description = [{
    `edge_label(u, v)` (the graph is loaded with `edge_labels:`), -1 when
    there is no such edge. Example: `%l = graph.edge_label %u, %v : i64`.
  }];
  let arguments = (ins Graph_Vertex:$from, Graph_Vertex:$to);
  let results = (outs I64:$result);
  let assemblyFormat = "$from `,` $to attr-dict `:` type($result)";
}

def Graph_CommonNeighborsOp : Graph_QueryOp<"common_neighbors"> {
  let summary = "Common out-neighbours of two vertices";
  let description = [{
    `common_neighbors(u, v)`: the number of vertices w with edges u -> w
    and v -> w, by a merge of the two sorted adjacencies. With `below`
    (`common_neighbors_below(u, v)`), only the w < min(u, v) in CSR order:
    summed over the edges u -> v with v < u of an undirected graph, it
    counts each triangle once. Example:
    `%n = graph.common_neighbors below %u, %v : i64`.
  }];
  let arguments = (ins Graph_Vertex:$u, Graph_Vertex:$v, UnitAttr:$below);
  let results = (outs I64:$result);
  let assemblyFormat =
      "(`below` $below^)? $u `,` $v attr-dict `:` type($result)";
}

def Graph_VertexOfOp : Graph_QueryOp<"vertex_of"> {
  let summary = "The vertex with an original id";
  let description = [{
    Maps an id as written in the graph file (what `i64` values used as
    vertices mean: `depth[source]`, `[source]`) to the CSR id; 0xFFFFFFFF
    when the graph has no such vertex. Example: `%v = graph.vertex_of %id`.
  }];
  let arguments = (ins I64:$id);
  let results = (outs Graph_Vertex:$result);
  let assemblyFormat = "$id attr-dict";
}

def Graph_OriginalIdOp : Graph_QueryOp<"original_id"> {
  let summary = "The original id of a vertex";
  let description = [{
    `id(v)`: the id of vertex `v` as written in the graph file (the inverse
    of `graph.vertex_of`). Example: `%i = graph.original_id %v : i64`.
  }];
  let arguments = (ins Graph_Vertex:$vertex);
  let results = (outs I64:$result);
  let assemblyFormat = "$vertex attr-dict `:` type($result)";
}

def Graph_RandomOp : Graph_Op<"random", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A uniform random number in [0, 1)";
  let description = [{
    `random()`: each call draws the next number of the algorithm's random
    stream (of its iteration, in a loop). Example: `%r = graph.random : f64`.
  }];
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

// Not Pure: a fault must not be speculated out of the branch that guards
// it (`if k != 0 then n / k else 0`).
class Graph_IntDivisionOp<string mnemonic, string what, string example>
    : Graph_Op<mnemonic, [NoMemoryEffect]> {
  let summary = "Integer " # what # " that faults instead of trapping";
  let description = !strconcat([{
    The integer }], what, [{ of an algorithm, truncated toward zero as in C.
    A zero divisor (and -2^63 / -1) is a run-time error of the algorithm
    rather than undefined behaviour; -2^63 % -1 is 0. Example: }], example,
    [{.
  }]);
  let arguments = (ins I64:$lhs, I64:$rhs);
  let results = (outs I64:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Graph_IntDivOp : Graph_IntDivisionOp<"idiv", "quotient `a / b`",
                                          "`%q = graph.idiv %n, %k : i64`">;
def Graph_IntRemOp : Graph_IntDivisionOp<"irem", "remainder `a % b`",
                                          "`%r = graph.irem %n, %k : i64`">;

#endif // SLUICE_GRAPH_QUERY_OPS
