//===- EdgeLabels.cpp - "u v label" edge label files ----------------------===//
//
// labels ::= { blank | comment | u v label }
//
// Vertex ids are written as in the graph file (0-based for SNAP, 1-based for
// Matrix Market, original ids for compacted graphs); labels are int32 >= 0.
// A line labels every u -> v arc of the graph (parallel arcs alike) and, in
// a graph built undirected, the v -> u arcs too. An edge that is not in the
// graph, or that gets two labels, is an error at its line, except a self
// loop u u when the load dropped self loops (the line is skipped); arcs
// without a line get SLUICE_LABEL_NONE (edge_label() returns -1 for them,
// as for a missing edge).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Error.h"
#include "runtime/src/GraphImpl.h"
#include "runtime/src/LineReader.h"
#include "runtime/src/Progress.h"
#include "runtime/src/TextFormats.h"

using namespace sluice::rt;

sluice_status_t sluice::rt::readEdgeLabels(const std::string &path,
                                           Progress &progress,
                                           bool selfLoopsDropped,
                                           sluice_graph_t &graph,
                                           sluice_error_t *error) {
  LineReader reader;
  sluice_status_t status = reader.open(path, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  graph.inputs.push_back({path, reader.device(), reader.inode()});
  const uint64_t *offsets = sluice_graph_offsets(&graph);
  const uint32_t *targets = sluice_graph_targets(&graph);
  const bool undirected = !(graph.properties & SLUICE_GRAPH_DIRECTED);
  std::vector<int32_t> labels(graph.numEdges, SLUICE_LABEL_NONE);
  std::string_view line;
  while (reader.next(line, status, error)) {
    if ((reader.lineNumber() & 0xfff) == 0)
      progress.update("reading edge labels", reader.bytesRead(),
                      reader.fileBytes(), "bytes");
    if (isBlankOrComment(line))
      continue;
    auto failAt = [&](sluice_status_t code, uint64_t column,
                      const std::string &message) {
      return fail(error, code, {path, reader.lineNumber(), column}, message);
    };
    Field fields[4];
    size_t count = splitFields(line, fields, 4);
    uint64_t ids[2] = {0, 0};
    uint32_t vertex[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      if (count <= size_t(i))
        return failAt(SLUICE_STATUS_PARSE_ERROR, line.size() + 1,
                      std::string("missing ") + (i ? "target" : "source") +
                          " vertex id (column " + std::to_string(i + 1) +
                          "; expected 3 columns: u v label)");
      sluice_status_t idStatus;
      std::string idError;
      if (!parseVertexIdField(fields[i].text, ids[i], idStatus, idError))
        return failAt(idStatus, fields[i].column, idError);
      if (graph.idBase == 1 && ids[i] == 0)
        return failAt(SLUICE_STATUS_PARSE_ERROR, fields[i].column,
                      "vertex id 0 is not valid in a 1-based file");
      vertex[i] = sluice_graph_vertex_of(&graph, ids[i]);
    }
    if (count < 3)
      return failAt(SLUICE_STATUS_PARSE_ERROR, line.size() + 1,
                    "missing label (column 3; expected 3 columns: u v "
                    "label)");
    int32_t label = 0;
    sluice_status_t labelStatus;
    std::string labelError;
    if (!parseLabelField(fields[2].text, label, labelStatus, labelError))
      return failAt(labelStatus, fields[2].column, labelError);
    if (count > 3)
      return failAt(SLUICE_STATUS_PARSE_ERROR, fields[3].column,
                    "unexpected column 4 " + quote(fields[3].text) +
                        " (expected 3 columns: u v label)");
    // A self loop the load dropped keeps no label.
    if (selfLoopsDropped && ids[0] == ids[1])
      continue;
    // Every u -> v arc (and v -> u in an undirected graph).
    uint64_t found = 0;
    for (int dir = 0; dir < (undirected ? 2 : 1); ++dir) {
      uint32_t u = vertex[dir], v = vertex[1 - dir];
      if (u == SLUICE_VERTEX_NONE || v == SLUICE_VERTEX_NONE)
        break;
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
        if (targets[e] != v)
          continue;
        if (labels[e] != SLUICE_LABEL_NONE && (dir == 0 || u != v))
          return failAt(SLUICE_STATUS_PARSE_ERROR, fields[0].column,
                        "edge " + std::to_string(ids[0]) + " " +
                            std::to_string(ids[1]) + " is labelled twice");
        labels[e] = label;
        ++found;
      }
    }
    if (found == 0)
      return failAt(SLUICE_STATUS_NOT_FOUND, fields[0].column,
                    "edge " + std::to_string(ids[0]) + " " +
                        std::to_string(ids[1]) + " is not in the graph");
  }
  if (status != SLUICE_STATUS_OK)
    return status;
  graph.storage.edgeLabels = std::move(labels);
  graph.properties |= SLUICE_GRAPH_EDGE_LABELS;
  graph.edgeLabels = viewOf(graph.storage.edgeLabels);
  return SLUICE_STATUS_OK;
}
