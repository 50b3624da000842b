//===- AlgoOutput.cpp - Vertex properties as text and .npy ----------------===//
//
// Text: one line per vertex in CSR order, "id v1 v2 ...": its original
// id and each column's value (doubles "%.17g", so they read back
// exactly). .npy (version 1.0): a 1-D array of one column, its header
// padded to 64 bytes. Both go through AtomicFile.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/Error.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace sluice::rt;

namespace {

bool validType(int32_t type) {
  return type >= SLUICE_ALGO_F64 && type <= SLUICE_ALGO_F32;
}

/// Appends column `c`'s value at vertex `v` to `out`.
void appendValue(const sluice_graph_t *graph, const sluice_algo_column_t &c,
                 uint64_t v, std::string &out) {
  char text[40];
  switch (c.type) {
  case SLUICE_ALGO_F64:
    std::snprintf(text, sizeof(text), "%.17g",
                  static_cast<const double *>(c.data)[v]);
    break;
  case SLUICE_ALGO_F32: // 9 significant digits read back to the same float
    std::snprintf(text, sizeof(text), "%.9g",
                  static_cast<double>(static_cast<const float *>(c.data)[v]));
    break;
  case SLUICE_ALGO_I64:
    std::snprintf(text, sizeof(text), "%" PRId64,
                  static_cast<const int64_t *>(c.data)[v]);
    break;
  case SLUICE_ALGO_BOOL:
    std::snprintf(text, sizeof(text), "%d",
                  static_cast<const uint8_t *>(c.data)[v] ? 1 : 0);
    break;
  default: {
    uint32_t u = static_cast<const uint32_t *>(c.data)[v];
    if (u == SLUICE_VERTEX_NONE)
      std::snprintf(text, sizeof(text), "-1");
    else
      std::snprintf(text, sizeof(text), "%" PRIu64,
                    sluice_graph_original_id(graph, u));
  }
  }
  out += text;
}

} // namespace

sluice_status_t sluice_algo_write_text(const char *path,
                                       const sluice_graph_t *graph,
                                       const sluice_algo_column_t *columns,
                                       uint32_t count, sluice_error_t *error) {
  if (!path || !graph || (count && !columns))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_algo_write_text needs a path, a graph and columns");
  for (uint32_t c = 0; c < count; ++c)
    if (!validType(columns[c].type) || !columns[c].data)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                  "column " + std::to_string(c) + " has no data or type " +
                      std::to_string(columns[c].type));
  AtomicFile file;
  if (sluice_status_t s = file.open(path, error))
    return s;
  std::string line;
  const uint64_t n = sluice_graph_num_vertices(graph);
  for (uint64_t v = 0; v < n; ++v) {
    char id[24];
    std::snprintf(id, sizeof(id), "%" PRIu64,
                  sluice_graph_original_id(graph, static_cast<uint32_t>(v)));
    line += id;
    for (uint32_t c = 0; c < count; ++c) {
      line += ' ';
      appendValue(graph, columns[c], v, line);
    }
    line += '\n';
    if (line.size() > (1u << 16) || v + 1 == n) {
      if (sluice_status_t s = file.write(line.data(), line.size(), error))
        return s;
      line.clear();
    }
  }
  if (!line.empty())
    if (sluice_status_t s = file.write(line.data(), line.size(), error))
      return s;
  return file.commit(error);
}

sluice_status_t sluice_algo_write_npy(const char *path,
                                      const sluice_graph_t *graph,
                                      const sluice_algo_column_t *column,
                                      sluice_error_t *error) {
  if (!path || !graph || !column || !column->data || !validType(column->type))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_algo_write_npy needs a path, a graph and a column");
  const uint64_t n = sluice_graph_num_vertices(graph);
  const char *descr = column->type == SLUICE_ALGO_F64    ? "<f8"
                      : column->type == SLUICE_ALGO_F32  ? "<f4"
                      : column->type == SLUICE_ALGO_BOOL ? "|u1"
                                                         : "<i8";
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': (" +
                     std::to_string(n) + ",), }";
  // magic (6) + version (2) + length (2) + dict + '\n', a multiple of 64.
  size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;
  dict.resize(total - 10 - 1, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>((total - 10) & 0xff);
  header += static_cast<char>((total - 10) >> 8);
  header += dict;
  AtomicFile file;
  if (sluice_status_t s = file.open(path, error))
    return s;
  if (sluice_status_t s = file.write(header.data(), header.size(), error))
    return s;
  if (column->type == SLUICE_ALGO_VERTEX) {
    const auto *data = static_cast<const uint32_t *>(column->data);
    for (uint64_t v = 0; v < n; ++v) {
      int64_t id = data[v] == SLUICE_VERTEX_NONE
                       ? -1
                       : static_cast<int64_t>(
                             sluice_graph_original_id(graph, data[v]));
      if (sluice_status_t s = file.write(&id, sizeof(id), error))
        return s;
    }
  } else {
    size_t bytes = column->type == SLUICE_ALGO_BOOL  ? 1
                   : column->type == SLUICE_ALGO_F32 ? 4
                                                     : 8;
    if (sluice_status_t s = file.write(column->data, n * bytes, error))
      return s;
  }
  return file.commit(error);
}
