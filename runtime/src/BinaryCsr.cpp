//===- BinaryCsr.cpp - Sluice's binary CSR file format --------------------===//
#include "runtime/src/BinaryCsr.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/Error.h"
#include "runtime/src/GraphBuilder.h"
#include "runtime/src/Progress.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

using namespace sluice::rt;
using namespace sluice::rt::binary;

namespace {

constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

struct SectionInfo {
  const char *name;
  uint64_t flag;  // 0: always present
  bool perVertex; // n (+ extra) elements, else m
  uint64_t extra; // offsets have n + 1
  uint64_t elemBytes;
};

constexpr SectionInfo kSections[NumSections] = {
    {"offsets", 0, true, 1, 8},
    {"targets", 0, false, 0, 4},
    {"weights", kFlagWeights, false, 0, 4},
    {"vertex labels", kFlagVertexLabels, true, 0, 4},
    {"edge labels", kFlagEdgeLabels, false, 0, 4},
    {"original ids", kFlagOriginalIds, true, 0, 8},
};

void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint32_t get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

uint32_t headerChecksum(const unsigned char *header) {
  unsigned char copy[kHeaderBytes];
  std::memcpy(copy, header, kHeaderBytes);
  put32(copy + kAtChecksum, 0);
  return static_cast<uint32_t>(crc32(0L, copy, kHeaderBytes));
}

uint64_t alignUp(uint64_t x) {
  return (x + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
}

/// Closes a file descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

bool sluice::rt::hasBinaryMagic(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  FdCloser closer{fd};
  char magic[sizeof(kMagic)];
  return pread(fd, magic, sizeof(magic), 0) == ssize_t(sizeof(magic)) &&
         std::memcmp(magic, kMagic, sizeof(magic)) == 0;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

sluice_status_t sluice::rt::writeBinaryCsr(const sluice_graph_t &g,
                                           const std::string &path,
                                           sluice_error_t *error) {
  if (!kLittleEndianHost)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                "binary CSR files are little-endian; this host is not");
  const uint64_t n = g.numVertices, m = g.numEdges;
  const void *data[NumSections] = {g.offsets,      g.targets,    g.weights,
                                   g.vertexLabels, g.edgeLabels, g.originalIds};
  uint64_t flags = 0;
  if (g.properties & SLUICE_GRAPH_DIRECTED)
    flags |= kFlagDirected;
  for (unsigned s = 0; s < NumSections; ++s)
    if (kSections[s].flag && data[s])
      flags |= kSections[s].flag;

  uint64_t at[NumSections] = {};
  uint64_t bytes[NumSections] = {};
  uint64_t cursor = kHeaderBytes;
  for (unsigned s = 0; s < NumSections; ++s) {
    if (!data[s])
      continue;
    const SectionInfo &info = kSections[s];
    bytes[s] = ((info.perVertex ? n : m) + info.extra) * info.elemBytes;
    at[s] = alignUp(cursor);
    cursor = at[s] + bytes[s];
  }
  const uint64_t fileBytes = cursor;

  unsigned char header[kHeaderBytes] = {};
  std::memcpy(header + kAtMagic, kMagic, sizeof(kMagic));
  put32(header + kAtVersion, kVersion);
  put32(header + kAtHeaderBytes, kHeaderBytes);
  put64(header + kAtFlags, flags);
  put64(header + kAtVertices, n);
  put64(header + kAtEdges, m);
  put64(header + kAtFileBytes, fileBytes);
  for (unsigned s = 0; s < NumSections; ++s)
    put64(header + kAtSections + 8 * s, at[s]);
  put32(header + kAtIdBase, g.idBase);
  put32(header + kAtChecksum, headerChecksum(header));

  AtomicFile file;
  sluice_status_t status = file.open(path, error);
  if (status == SLUICE_STATUS_OK)
    status = file.write(header, kHeaderBytes, error);
  for (unsigned s = 0; s < NumSections && status == SLUICE_STATUS_OK; ++s) {
    if (!data[s])
      continue;
    status = file.writeZeros(at[s] - file.size(), error);
    if (status == SLUICE_STATUS_OK)
      status = file.write(data[s], bytes[s], error);
  }
  if (status == SLUICE_STATUS_OK)
    status = file.commit(error);
  return status;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

/// Checks the arrays of a mapped graph and sets NO_DUPLICATES,
/// NO_SELF_LOOPS and the load statistics. Every check the queries and
/// walkers rely on is here.
sluice_status_t validate(sluice_graph_t &g, const uint64_t at[],
                         const std::string &path, Progress &progress,
                         sluice_error_t *error) {
  const uint64_t n = g.numVertices, m = g.numEdges;
  auto corrupt = [&](uint64_t byte, const std::string &message) {
    ErrorLocation where{path};
    where.byteOffset = byte;
    return fail(error, SLUICE_STATUS_DATA_CORRUPT, where, message);
  };
  const uint64_t *off = g.offsets;
  if (off[0] != 0)
    return corrupt(at[Offsets],
                   "offsets[0] is " + std::to_string(off[0]) + ", expected 0");
  for (uint64_t v = 0; v < n; ++v)
    if (off[v + 1] < off[v])
      return corrupt(at[Offsets] + 8 * (v + 1),
                     "offsets decrease at vertex " + std::to_string(v) + " (" +
                         std::to_string(off[v + 1]) + " after " +
                         std::to_string(off[v]) + ")");
  if (off[n] != m)
    return corrupt(at[Offsets] + 8 * n,
                   "offsets end at " + std::to_string(off[n]) +
                       ", the header declares " + std::to_string(m) + " edges");

  uint64_t duplicateArcs = 0, duplicateLoopArcs = 0, loopArcs = 0;
  const uint32_t *t = g.targets;
  for (uint64_t v = 0; v < n; ++v) {
    for (uint64_t i = off[v]; i < off[v + 1]; ++i) {
      if (t[i] >= n)
        return corrupt(at[Targets] + 4 * i,
                       "edge " + std::to_string(i) + " points to vertex " +
                           std::to_string(t[i]) + ", beyond the " +
                           std::to_string(n) + " vertices");
      if (i > off[v] && t[i] <= t[i - 1]) {
        if (t[i] < t[i - 1])
          return corrupt(at[Targets] + 4 * i,
                         "the adjacency of vertex " + std::to_string(v) +
                             " is not sorted (edge " + std::to_string(i) + ")");
        ++duplicateArcs;
        duplicateLoopArcs += t[i] == v;
      }
      loopArcs += t[i] == v;
    }
    if (v % (1u << 14) == 0)
      progress.update("validating", v, n, "vertices");
  }
  for (uint64_t i = 0; g.weights && i < m; ++i) {
    if (!std::isfinite(g.weights[i]))
      return corrupt(at[Weights] + 4 * i, "the weight of edge " +
                                              std::to_string(i) +
                                              " is not finite");
    if (g.weights[i] < 0)
      return corrupt(at[Weights] + 4 * i,
                     "the weight of edge " + std::to_string(i) +
                         " is negative (" + formatFloat(g.weights[i]) + ")");
  }
  for (uint64_t v = 0; g.vertexLabels && v < n; ++v)
    if (g.vertexLabels[v] < SLUICE_LABEL_NONE)
      return corrupt(at[VertexLabels] + 4 * v,
                     "vertex " + std::to_string(v) + " has the invalid label " +
                         std::to_string(g.vertexLabels[v]));
  for (uint64_t i = 0; g.edgeLabels && i < m; ++i)
    if (g.edgeLabels[i] < 0)
      return corrupt(at[EdgeLabels] + 4 * i,
                     "edge " + std::to_string(i) + " has the negative label " +
                         std::to_string(g.edgeLabels[i]));
  for (uint64_t v = 1; g.originalIds && v < n; ++v)
    if (g.originalIds[v] <= g.originalIds[v - 1])
      return corrupt(at[OriginalIds] + 8 * v,
                     "original ids do not increase at vertex " +
                         std::to_string(v));
  if (duplicateArcs == 0)
    g.properties |= SLUICE_GRAPH_NO_DUPLICATES;
  if (loopArcs == 0)
    g.properties |= SLUICE_GRAPH_NO_SELF_LOOPS;
  // The load read the file's arcs and changed none of them.
  const bool undirected = !(g.properties & SLUICE_GRAPH_DIRECTED);
  g.loadStats.input_edges = m;
  g.loadStats.self_loops = loopArcs;
  g.loadStats.duplicate_edges =
      duplicateEdges(duplicateArcs, duplicateLoopArcs, undirected);
  g.loadStats.isolated_vertices = countIsolatedVertices(g);
  return SLUICE_STATUS_OK;
}

} // namespace

sluice_status_t sluice::rt::loadBinaryCsr(const std::string &path,
                                          Progress &progress,
                                          std::unique_ptr<sluice_graph_t> &out,
                                          sluice_error_t *error) {
  auto corrupt = [&](uint64_t byte, const std::string &message) {
    ErrorLocation where{path};
    where.byteOffset = byte;
    return fail(error, SLUICE_STATUS_DATA_CORRUPT, where, message);
  };
  auto unsupported = [&](uint64_t byte, const std::string &message) {
    ErrorLocation where{path};
    where.byteOffset = byte;
    return fail(error, SLUICE_STATUS_UNSUPPORTED, where, message);
  };
  if (!kLittleEndianHost)
    return unsupported(0, "binary CSR files are little-endian; this host is "
                          "not");

  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failErrno(error, errno, path, "cannot open");
  FdCloser closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0)
    return failErrno(error, errno, path, "cannot stat");
  if (S_ISDIR(st.st_mode))
    return failErrno(error, EISDIR, path, "cannot read");
  const uint64_t size = static_cast<uint64_t>(st.st_size);

  // Header.
  if (size < kHeaderBytes)
    return corrupt(size, "truncated file: " + std::to_string(size) +
                             " bytes, shorter than the " +
                             std::to_string(kHeaderBytes) + "-byte header");
  unsigned char header[kHeaderBytes];
  if (pread(fd, header, kHeaderBytes, 0) != ssize_t(kHeaderBytes))
    return failErrno(error, errno ? errno : EIO, path, "cannot read");
  if (std::memcmp(header + kAtMagic, kMagic, sizeof(kMagic)) != 0)
    return corrupt(0, "bad magic: not a Sluice binary CSR file");
  const uint32_t version = get32(header + kAtVersion);
  if (version != kVersion)
    return unsupported(kAtVersion, "format version " + std::to_string(version) +
                                       " is not supported (this runtime "
                                       "reads version " +
                                       std::to_string(kVersion) + ")");
  const uint32_t headerBytes = get32(header + kAtHeaderBytes);
  if (headerBytes != kHeaderBytes)
    return corrupt(kAtHeaderBytes,
                   "header size " + std::to_string(headerBytes) +
                       ", expected " + std::to_string(kHeaderBytes));
  const uint32_t stored = get32(header + kAtChecksum);
  const uint32_t computed = headerChecksum(header);
  if (stored != computed)
    return corrupt(kAtChecksum, "header checksum mismatch (stored " +
                                    hex(stored) + ", computed " +
                                    hex(computed) + ")");
  const uint64_t flags = get64(header + kAtFlags);
  if (flags & ~kKnownFlags)
    return unsupported(kAtFlags,
                       "unknown flag bits " + hex(flags & ~kKnownFlags));
  for (size_t i = kAtReserved; i < kHeaderBytes; ++i)
    if (header[i])
      return corrupt(i, "reserved header bytes are not zero");
  const uint64_t n = get64(header + kAtVertices);
  const uint64_t m = get64(header + kAtEdges);
  const uint32_t idBase = get32(header + kAtIdBase);
  if (n > kMaxVertices)
    return corrupt(kAtVertices, "the header declares " + std::to_string(n) +
                                    " vertices, more than the " +
                                    std::to_string(kMaxVertices) +
                                    " supported");
  if (idBase > 1)
    return corrupt(kAtIdBase,
                   "id base " + std::to_string(idBase) + ", expected 0 or 1");
  const uint64_t fileBytes = get64(header + kAtFileBytes);
  if (size < fileBytes)
    return corrupt(size, "truncated file: the header declares " +
                             std::to_string(fileBytes) +
                             " bytes, the file has " + std::to_string(size));
  if (size > fileBytes)
    return corrupt(fileBytes, "the file has " + std::to_string(size) +
                                  " bytes, more than the " +
                                  std::to_string(fileBytes) +
                                  " the header declares");

  // Sections.
  uint64_t at[NumSections];
  for (unsigned s = 0; s < NumSections; ++s) {
    const SectionInfo &info = kSections[s];
    at[s] = get64(header + kAtSections + 8 * s);
    const bool wanted = !info.flag || (flags & info.flag);
    const std::string name = std::string("the ") + info.name + " section";
    if (!wanted) {
      if (at[s])
        return corrupt(kAtSections + 8 * s,
                       name + " is present but its flag is not set");
      continue;
    }
    if (!at[s])
      return corrupt(kAtSections + 8 * s,
                     name + " is missing but its flag is set");
    if (at[s] < kHeaderBytes || at[s] % kSectionAlignment)
      return corrupt(kAtSections + 8 * s,
                     name + " starts at byte " + std::to_string(at[s]) +
                         ", not a multiple of 64 after the header");
    const uint64_t count = (info.perVertex ? n : m) + info.extra;
    if (at[s] > fileBytes || count > (fileBytes - at[s]) / info.elemBytes)
      return corrupt(at[s], name + " (" + std::to_string(count) + " x " +
                                std::to_string(info.elemBytes) +
                                " bytes at byte " + std::to_string(at[s]) +
                                ") extends past the end of the file");
  }

  void *map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED)
    return failErrno(error, errno, path, "cannot map");
  auto graph = std::make_unique<sluice_graph_t>();
  graph->mapping = std::make_unique<MappedFile>(map, size);
  graph->inputs.push_back({path, st.st_dev, st.st_ino});
  const unsigned char *base = graph->mapping->bytes();
  auto view = [&](Section s) -> const void * {
    return at[s] ? base + at[s] : nullptr;
  };
  graph->numVertices = n;
  graph->numEdges = m;
  graph->idBase = idBase;
  graph->offsets = static_cast<const uint64_t *>(view(Offsets));
  graph->targets = static_cast<const uint32_t *>(view(Targets));
  graph->weights = static_cast<const float *>(view(Weights));
  graph->vertexLabels = static_cast<const int32_t *>(view(VertexLabels));
  graph->edgeLabels = static_cast<const int32_t *>(view(EdgeLabels));
  graph->originalIds = static_cast<const uint64_t *>(view(OriginalIds));
  graph->properties = SLUICE_GRAPH_MAPPED;
  if (flags & kFlagDirected)
    graph->properties |= SLUICE_GRAPH_DIRECTED;
  if (flags & kFlagWeights)
    graph->properties |= SLUICE_GRAPH_WEIGHTED;
  if (flags & kFlagVertexLabels)
    graph->properties |= SLUICE_GRAPH_VERTEX_LABELS;
  if (flags & kFlagEdgeLabels)
    graph->properties |= SLUICE_GRAPH_EDGE_LABELS;
  if (flags & kFlagOriginalIds)
    graph->properties |= SLUICE_GRAPH_COMPACTED;

  sluice_status_t status = validate(*graph, at, path, progress, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  computeAggregates(*graph, &progress);
  out = std::move(graph);
  return SLUICE_STATUS_OK;
}
