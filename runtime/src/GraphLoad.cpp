//===- GraphLoad.cpp - sluice_graph_load and sluice_graph_write_binary ----===//
//
// Dispatches on the format (detected from the content for AUTO), runs the
// text parser into the CSR builder or maps a binary file, attaches vertex
// labels, and reports progress for loads that take longer than the delay.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/BinaryCsr.h"
#include "runtime/src/Error.h"
#include "runtime/src/GraphBuilder.h"
#include "runtime/src/GraphImpl.h"
#include "runtime/src/LineReader.h"
#include "runtime/src/NpyGraph.h"
#include "runtime/src/Progress.h"
#include "runtime/src/TextFormats.h"

#include <cstring>

using namespace sluice::rt;

namespace {

struct FormatName {
  sluice_graph_format_t format;
  const char *name;
};
constexpr FormatName kFormatNames[] = {
    {SLUICE_GRAPH_FORMAT_AUTO, "auto"},
    {SLUICE_GRAPH_FORMAT_SNAP, "snap"},
    {SLUICE_GRAPH_FORMAT_MTX, "mtx"},
    {SLUICE_GRAPH_FORMAT_MTX_BODY, "mtx-body"},
    {SLUICE_GRAPH_FORMAT_BINARY, "binary"},
    {SLUICE_GRAPH_FORMAT_CSV, "csv"},
    {SLUICE_GRAPH_FORMAT_NPY, "npy"},
    {SLUICE_GRAPH_FORMAT_NPZ, "npz"},
};

constexpr uint32_t kKnownLoadFlags =
    SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
    SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS |
    SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN | SLUICE_GRAPH_LOAD_QUIET |
    SLUICE_GRAPH_LOAD_SUM_DUPLICATES | SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES;

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// AUTO: binary, .npy or zip (.npz) magic, else a "%%MatrixMarket" first
/// line, else CSV or SNAP.
sluice_status_t detectFormat(const std::string &path,
                             sluice_graph_format_t &format,
                             sluice_error_t *error) {
  if (hasBinaryMagic(path)) {
    format = SLUICE_GRAPH_FORMAT_BINARY;
    return SLUICE_STATUS_OK;
  }
  for (bool npz : {false, true})
    if (hasArrayMagic(path, npz)) {
      format = npz ? SLUICE_GRAPH_FORMAT_NPZ : SLUICE_GRAPH_FORMAT_NPY;
      return SLUICE_STATUS_OK;
    }
  LineReader reader;
  sluice_status_t status = reader.open(path, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  std::string_view line;
  format = SLUICE_GRAPH_FORMAT_SNAP;
  bool have = reader.next(line, status, error);
  if (have && line.size() >= 14 &&
      strncasecmp(line.data(), "%%MatrixMarket", 14) == 0) {
    format = SLUICE_GRAPH_FORMAT_MTX;
    return status;
  }
  // Else an edge list: CSV when its first entry line has a comma.
  while (have && isBlankOrComment(line))
    have = reader.next(line, status, error);
  if (have && line.find(',') != std::string_view::npos)
    format = SLUICE_GRAPH_FORMAT_CSV;
  return status;
}

/// For a binary file the transforming options are requirements.
sluice_status_t checkBinaryRequirements(const sluice_graph_t &graph,
                                        const sluice_graph_load_options_t &o,
                                        const std::string &path,
                                        sluice_error_t *error) {
  auto refuse = [&](const std::string &message) {
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                message + " (options that transform edges apply when a "
                          "binary file is written, not when it is loaded)");
  };
  const uint32_t p = graph.properties;
  if ((o.flags & SLUICE_GRAPH_LOAD_UNDIRECTED) && (p & SLUICE_GRAPH_DIRECTED))
    return refuse("undirected was requested but the binary file holds a "
                  "directed graph");
  if ((o.flags & SLUICE_GRAPH_LOAD_DEDUPLICATE) &&
      !(p & SLUICE_GRAPH_NO_DUPLICATES))
    return refuse("deduplication was requested but the binary file has "
                  "duplicate edges");
  if ((o.flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES) &&
      !(p & SLUICE_GRAPH_NO_DUPLICATES))
    return refuse("summing duplicate edges was requested but the binary file "
                  "has duplicate edges");
  if ((o.flags & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS) &&
      !(p & SLUICE_GRAPH_NO_SELF_LOOPS))
    return refuse("dropping self loops was requested but the binary file has "
                  "self loops");
  if (o.weights != SLUICE_WEIGHTS_NONE && !(p & SLUICE_GRAPH_WEIGHTED))
    return refuse("weights were requested but the binary file has none");
  if ((o.flags & SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN) &&
      !(p & SLUICE_GRAPH_EDGE_LABELS))
    return refuse("edge labels were requested but the binary file has none");
  if (o.edge_labels_path && (p & SLUICE_GRAPH_EDGE_LABELS))
    return refuse("an edge label file was given but the binary file already "
                  "has edge labels");
  if (o.vertex_labels_path && (p & SLUICE_GRAPH_VERTEX_LABELS))
    return refuse("a vertex label file was given but the binary file already "
                  "has vertex labels");
  return SLUICE_STATUS_OK;
}

sluice_status_t loadGraph(const std::string &path,
                          const sluice_graph_load_options_t &o,
                          sluice_graph_t **outGraph, sluice_error_t *error) {
  Progress progress(!(o.flags & SLUICE_GRAPH_LOAD_QUIET), o.progress,
                    o.progress_user_data, o.progress_delay_ms,
                    o.progress_interval_ms, baseName(path));
  sluice_graph_format_t format = o.format;
  sluice_status_t status = SLUICE_STATUS_OK;
  if (format == SLUICE_GRAPH_FORMAT_AUTO) {
    status = detectFormat(path, format, error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }

  std::unique_ptr<sluice_graph_t> graph;
  if (format == SLUICE_GRAPH_FORMAT_BINARY) {
    status = loadBinaryCsr(path, progress, graph, error);
    if (status == SLUICE_STATUS_OK)
      status = checkBinaryRequirements(*graph, o, path, error);
  } else {
    const bool arrays =
        format == SLUICE_GRAPH_FORMAT_NPY || format == SLUICE_GRAPH_FORMAT_NPZ;
    LineReader reader;
    if (!arrays) {
      status = reader.open(path, error);
      if (status != SLUICE_STATUS_OK)
        return status;
    }
    TextLoadOptions text;
    text.format = format;
    text.weights = o.weights;
    text.dropSelfLoops = o.flags & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
    text.compactIds = o.flags & SLUICE_GRAPH_LOAD_COMPACT_IDS;
    text.edgeLabels = o.flags & SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN;
    text.sumDuplicates = o.flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
    text.keepDeclared = o.flags & SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES;
    text.keepIds = o.keep_vertex_ids;
    text.numKeepIds = o.num_keep_vertex_ids;
    text.threads = o.threads;
    EdgeStaging staging;
    bool symmetric = false;
    InputFile input{path, reader.device(), reader.inode()};
    if (arrays)
      status = loadArrayEdges(path, format == SLUICE_GRAPH_FORMAT_NPZ, text,
                              progress, staging, input, error);
    else if (format == SLUICE_GRAPH_FORMAT_MTX)
      status =
          parseMatrixMarket(reader, text, progress, staging, symmetric, error);
    else
      status = parseEdgeList(reader, text, progress, staging, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    BuildOptions build;
    build.undirected = symmetric || (o.flags & SLUICE_GRAPH_LOAD_UNDIRECTED);
    build.duplicates = duplicatesOf(o.flags);
    graph = std::make_unique<sluice_graph_t>();
    buildCsr(staging, build, &progress, *graph);
    graph->inputs.push_back(input);
  }
  if (status == SLUICE_STATUS_OK && o.vertex_labels_path)
    status = readVertexLabels(o.vertex_labels_path, progress, *graph, error);
  if (status == SLUICE_STATUS_OK && o.edge_labels_path)
    status = readEdgeLabels(o.edge_labels_path, progress,
                            o.flags & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS, *graph,
                            error);
  if (status != SLUICE_STATUS_OK)
    return status;
  progress.finish(std::to_string(graph->numVertices) + " vertices, " +
                  std::to_string(graph->numEdges) + " edges");
  *outGraph = graph.release();
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" sluice_status_t
sluice_graph_format_from_name(const char *name,
                              sluice_graph_format_t *outFormat) {
  if (!name || !outFormat)
    return SLUICE_STATUS_INVALID_ARGUMENT;
  for (const FormatName &f : kFormatNames)
    if (std::strcmp(name, f.name) == 0) {
      *outFormat = f.format;
      return SLUICE_STATUS_OK;
    }
  return SLUICE_STATUS_INVALID_ARGUMENT;
}

extern "C" const char *sluice_graph_format_name(sluice_graph_format_t format) {
  for (const FormatName &f : kFormatNames)
    if (f.format == enumValue(format))
      return f.name;
  return "unknown";
}

extern "C" void
sluice_graph_load_options_init(sluice_graph_load_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->format = SLUICE_GRAPH_FORMAT_AUTO;
  options->flags = 0;
  options->weights = SLUICE_WEIGHTS_NONE;
  options->vertex_labels_path = nullptr;
  options->edge_labels_path = nullptr;
  options->progress = nullptr;
  options->progress_user_data = nullptr;
  options->progress_delay_ms = 1000;
  options->progress_interval_ms = 1000;
  options->keep_vertex_ids = nullptr;
  options->num_keep_vertex_ids = 0;
  options->threads = 0;
}

extern "C" sluice_status_t
sluice_graph_load(const char *path, const sluice_graph_load_options_t *options,
                  sluice_graph_t **outGraph, sluice_error_t *error) {
  sluice_error_clear(error);
  auto invalid = [&](const std::string &message) {
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path ? path : ""},
                message);
  };
  if (!path)
    return invalid("path is NULL");
  if (!outGraph)
    return invalid("out_graph is NULL");
  sluice_graph_load_options_t defaults;
  sluice_graph_load_options_init(&defaults);
  const sluice_graph_load_options_t &o = options ? *options : defaults;
  // A C caller can put any int in an enum field; read them as integers.
  const int64_t format = enumValue(o.format), weights = enumValue(o.weights);
  if (format < SLUICE_GRAPH_FORMAT_AUTO || format > SLUICE_GRAPH_FORMAT_NPZ)
    return invalid("unknown format " + std::to_string(format));
  if (weights < SLUICE_WEIGHTS_NONE || weights > SLUICE_WEIGHTS_ONES)
    return invalid("unknown weights mode " + std::to_string(weights));
  if (o.flags & ~kKnownLoadFlags)
    return invalid("unknown load flags " + hex(o.flags & ~kKnownLoadFlags));
  if (o.edge_labels_path && (o.flags & SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN))
    return invalid("edge labels from both a column and a file "
                   "(edge_labels_path); choose one");
  if ((o.flags & SLUICE_GRAPH_LOAD_DEDUPLICATE) &&
      (o.flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES))
    return invalid("duplicate edges both merged (DEDUPLICATE) and summed "
                   "(SUM_DUPLICATES); choose one");
  if (o.num_keep_vertex_ids && !o.keep_vertex_ids)
    return invalid("keep_vertex_ids is NULL but num_keep_vertex_ids is " +
                   std::to_string(o.num_keep_vertex_ids));
  return guarded(error, path,
                 [&] { return loadGraph(path, o, outGraph, error); });
}

extern "C" sluice_status_t
sluice_graph_write_binary(const sluice_graph_t *graph, const char *path,
                          sluice_error_t *error) {
  sluice_error_clear(error);
  if (!graph || !path)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path ? path : ""},
                !graph ? "graph is NULL" : "path is NULL");
  return guarded(error, path, [&] {
    sluice_status_t status =
        checkNotAnInput(graph, path, "binary graph output", error);
    return status != SLUICE_STATUS_OK ? status
                                      : writeBinaryCsr(*graph, path, error);
  });
}
