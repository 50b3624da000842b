//===- VertexLabels.cpp - "vertex label" files ----------------------------===//
//
// labels ::= { blank | comment | vertex label }
//
// Vertex ids are written as in the graph file (0-based for SNAP, 1-based for
// Matrix Market, original ids for compacted graphs); labels are int32 >= 0.
// Each vertex gets at most one label; unlisted vertices get
// SLUICE_LABEL_NONE. For compacted graphs, lines naming ids that are not in
// the graph (vertices compaction dropped) are skipped.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Error.h"
#include "runtime/src/LineReader.h"
#include "runtime/src/Progress.h"
#include "runtime/src/TextFormats.h"


using namespace sluice::rt;

sluice_status_t sluice::rt::readVertexLabels(const std::string &path,
                                             Progress &progress,
                                             sluice_graph_t &graph,
                                             sluice_error_t *error) {
  LineReader reader;
  sluice_status_t status = reader.open(path, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  graph.inputs.push_back({path, reader.device(), reader.inode()});
  std::vector<int32_t> labels(graph.numVertices, SLUICE_LABEL_NONE);
  std::string_view line;
  while (reader.next(line, status, error)) {
    if ((reader.lineNumber() & 0xfff) == 0)
      progress.update("reading labels", reader.bytesRead(), reader.fileBytes(),
                      "bytes");
    if (isBlankOrComment(line))
      continue;
    auto failAt = [&](sluice_status_t code, uint64_t column,
                      const std::string &message) {
      return fail(error, code, {path, reader.lineNumber(), column}, message);
    };
    Field fields[3];
    size_t count = splitFields(line, fields, 3);
    uint64_t raw = 0;
    sluice_status_t idStatus;
    std::string idError;
    if (!parseVertexIdField(fields[0].text, raw, idStatus, idError))
      return failAt(idStatus, fields[0].column, idError);
    if (count < 2)
      return failAt(SLUICE_STATUS_PARSE_ERROR, line.size() + 1,
                    "missing label (column 2)");
    int32_t label = 0;
    sluice_status_t labelStatus;
    std::string labelError;
    if (!parseLabelField(fields[1].text, label, labelStatus, labelError))
      return failAt(labelStatus, fields[1].column, labelError);
    if (count > 2)
      return failAt(SLUICE_STATUS_PARSE_ERROR, fields[2].column,
                    "unexpected column 3 " + quote(fields[2].text) +
                        " (expected 2 columns: vertex label)");
    if (graph.idBase == 1 && raw == 0)
      return failAt(SLUICE_STATUS_PARSE_ERROR, fields[0].column,
                    "vertex id 0 is not valid in a 1-based file");
    uint32_t vertex = sluice_graph_vertex_of(&graph, raw);
    if (vertex == SLUICE_VERTEX_NONE) {
      if (graph.originalIds)
        continue;
      return failAt(
          SLUICE_STATUS_OUT_OF_RANGE, fields[0].column,
          "vertex id " + std::to_string(raw) + " is not in the graph " +
              (graph.numVertices
                   ? "(ids " + std::to_string(graph.idBase) + ".." +
                         std::to_string(graph.numVertices - 1 + graph.idBase) +
                         ")"
                   : std::string("(the graph has no vertices)")));
    }
    if (labels[vertex] != SLUICE_LABEL_NONE)
      return failAt(SLUICE_STATUS_PARSE_ERROR, fields[0].column,
                    "vertex id " + std::to_string(raw) + " is labelled twice");
    labels[vertex] = label;
  }
  if (status != SLUICE_STATUS_OK)
    return status;
  graph.storage.vertexLabels = std::move(labels);
  graph.properties |= SLUICE_GRAPH_VERTEX_LABELS;
  graph.vertexLabels = viewOf(graph.storage.vertexLabels);
  return SLUICE_STATUS_OK;
}
