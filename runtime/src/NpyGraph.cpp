//===- NpyGraph.cpp - Edge arrays from .npy files and .npz archives -------===//
//
// npy: the header (Npy.h), then E x 2 integers. npz: a zip archive
// (PKWARE APPNOTE 6.3: end of central directory, its zip64 form, central
// directory entries with zip64 extra fields, local headers) whose entries
// `src.npy`, `dst.npy` and `weight.npy` are .npy files, stored or raw
// deflate; their CRC-32 is checked. Nothing is allocated from a size before
// the size has been checked against the file.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/NpyGraph.h"

#include "runtime/src/Error.h"
#include "runtime/src/GraphBuilder.h"
#include "runtime/src/Npy.h"
#include "runtime/src/Progress.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

using namespace sluice::rt;

namespace {

/// A 1-D (or one column of a 2-D) array of numbers in a mapped file.
struct Column {
  const char *data = nullptr; ///< element 0
  uint64_t count = 0;
  uint64_t stride = 1; ///< in elements
  npy::DType dtype = npy::DType::Unknown;
  uint64_t fileOffset = 0; ///< of element 0 in the file; 0: not in the file

  int64_t integer(uint64_t i) const {
    const char *p = data + i * stride * (dtype == npy::DType::I4 ? 4 : 8);
    if (dtype == npy::DType::I4) {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  double real(uint64_t i) const {
    const char *p = data + i * stride * (dtype == npy::DType::F4 ? 4 : 8);
    if (dtype == npy::DType::F4) {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  uint64_t offsetOf(uint64_t i) const {
    uint64_t size = dtype == npy::DType::I4 || dtype == npy::DType::F4 ? 4 : 8;
    return fileOffset ? fileOffset + i * stride * size : 0;
  }
};

/// Parses the header of the .npy bytes and checks that the data after it is
/// exactly as long as the shape says. `name` is what messages call the
/// file ("g.npy", "g.npz: src.npy").
bool readArray(const std::string &name, const char *bytes, uint64_t size,
               npy::Header &header, std::string &message) {
  if (!npy::parseHeader(name, bytes, size, header, message))
    return false;
  uint64_t count = 0;
  if (!header.elementCount(count)) {
    message = name + ": shape " + npy::shapeText(header.shape) +
              " has more than 2^64 elements";
    return false;
  }
  const uint64_t elementSize = header.elementSize();
  if (elementSize == 0)
    return true; // the caller names the dtypes it wants
  const uint64_t have = size - header.dataOffset;
  if (count > UINT64_MAX / elementSize || count * elementSize != have) {
    bool over = count > UINT64_MAX / elementSize;
    message = name + ": shape " + npy::shapeText(header.shape) + " of '" +
              header.descr + "' needs " +
              (over ? std::string("more than 2^64")
                    : std::to_string(count * elementSize)) +
              " bytes after byte " + std::to_string(header.dataOffset) +
              ", the file has " + std::to_string(have) +
              (over || have < count * elementSize ? " (truncated)"
                                                  : " (trailing bytes)");
    return false;
  }
  return true;
}

/// A message from the .npy reader ("g.npz: src.npy: ...") as a located
/// error about `path` (the prefix goes into the error's path).
sluice_status_t failArray(sluice_error_t *error, const std::string &path,
                          const std::string &message) {
  std::string prefix = path + ": ";
  bool prefixed = message.compare(0, prefix.size(), prefix) == 0;
  return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
              prefixed ? message.substr(prefix.size()) : message);
}

bool integerDtype(npy::DType t) {
  return t == npy::DType::I4 || t == npy::DType::I8;
}

/// Adds the edges src[i] -> dst[i] (and weight[i]) to a collector.
sluice_status_t collectEdges(const std::string &path, const std::string &what,
                             const Column &src, const Column &dst,
                             const Column *weight,
                             const TextLoadOptions &options, Progress &progress,
                             EdgeStaging &staging, sluice_error_t *error) {
  if (options.edgeLabels)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                "NumPy edge arrays have no edge label column; give the labels "
                "in a file (edge_labels_path)");
  if (options.weights == SLUICE_WEIGHTS_COLUMN && !weight)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                what == "npy"
                    ? std::string("a .npy edge array has no weights; write "
                                  "src, dst and weight arrays to a .npz "
                                  "file (numpy.savez) for a weighted graph")
                    : std::string("weights were requested but the archive "
                                  "has no 'weight' array"));
  if (options.weights != SLUICE_WEIGHTS_COLUMN)
    weight = nullptr;
  EdgeCollector collector(options.compactIds, options.dropSelfLoops,
                          options.storesWeights(), false);
  const Column *ends[2] = {&src, &dst};
  const char *endName[2] = {"source", "target"};
  for (uint64_t i = 0; i < src.count; ++i) {
    if ((i & 0xfffff) == 0)
      progress.update("reading", i, src.count, "edges");
    uint64_t ids[2];
    for (int k = 0; k < 2; ++k) {
      int64_t v = ends[k]->integer(i);
      if (v < 0 || (!options.compactIds && uint64_t(v) >= kMaxVertices)) {
        ErrorLocation where{path};
        where.byteOffset = ends[k]->offsetOf(i);
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, where,
                    "edge " + std::to_string(i) + ": " +
                        (v < 0 ? "negative " : "") + endName[k] +
                        " vertex id " + std::to_string(v) +
                        (v < 0 ? std::string()
                               : " is beyond the largest vertex id " +
                                     std::to_string(kMaxVertices - 1)));
      }
      ids[k] = uint64_t(v);
    }
    float w = 1.0f;
    if (weight) {
      double x = weight->real(i);
      if (!std::isfinite(x) || x < 0 || x > double(FLT_MAX)) {
        ErrorLocation where{path};
        where.byteOffset = weight->offsetOf(i);
        return fail(error, SLUICE_STATUS_PARSE_ERROR, where,
                    "edge " + std::to_string(i) + ": edge weight " +
                        formatFloat(float(x)) +
                        (x < 0 ? " is negative" : " is not a finite float32"));
      }
      w = float(x);
    }
    if (!collector.add(ids[0], ids[1], w, 0))
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {path},
                  "more than " + std::to_string(kMaxVertices) +
                      " distinct vertex ids");
  }
  if (!keepVertexIds(options, 0, 0, collector))
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {path},
                "more than " + std::to_string(kMaxVertices) +
                    " distinct vertex ids (with the ids to keep)");
  staging = collector.finish(0, 0);
  return SLUICE_STATUS_OK;
}

//===----------------------------------------------------------------------===//
// Zip archives
//===----------------------------------------------------------------------===//

uint64_t le(const char *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;
/// Deflate cannot expand data more than about 1032 : 1 (RFC 1951 blocks
/// of 258-byte matches in ~2 bits); anything claiming more is broken.
constexpr uint64_t kMaxDeflateRatio = 1032;

struct ZipEntry {
  std::string name;
  uint16_t method = 0;
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0, uncompressed = 0, localOffset = 0;
};

class ZipReader {
public:
  ZipReader(const std::string &path, const char *bytes, uint64_t size)
      : path(path), bytes(bytes), size(size) {}

  sluice_status_t readDirectory(sluice_error_t *error) {
    // The end record: 22 bytes and a comment of up to 65535.
    if (size < 22)
      return bad(error, 0,
                 "not a zip archive (" + std::to_string(size) +
                     " bytes, less than an end record)");
    uint64_t end = UINT64_MAX;
    const uint64_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
    for (uint64_t at = size - 22 + 1; at-- > lowest;)
      if (le(bytes + at, 4) == kEndSig &&
          at + 22 + le(bytes + at + 20, 2) == size) {
        end = at;
        break;
      }
    if (end == UINT64_MAX)
      return bad(error, 0,
                 "not a zip archive (no end of central directory "
                 "record)");
    if (le(bytes + end + 4, 2) != 0 || le(bytes + end + 6, 2) != 0)
      return bad(error, end,
                 "archives split over several disks are not "
                 "supported");
    uint64_t count = le(bytes + end + 10, 2);
    uint64_t dirSize = le(bytes + end + 12, 4);
    uint64_t dirOffset = le(bytes + end + 16, 4);
    if (count == 0xffff || dirSize == 0xffffffff || dirOffset == 0xffffffff) {
      // zip64: a locator just before the end record names the zip64 end.
      if (end < 20 || le(bytes + end - 20, 4) != kEnd64LocatorSig)
        return bad(error, end,
                   "zip64 end of central directory locator "
                   "missing");
      uint64_t end64 = le(bytes + end - 20 + 8, 8);
      if (end64 > size || size - end64 < 56 ||
          le(bytes + end64, 4) != kEnd64Sig)
        return bad(error, end - 20,
                   "zip64 end of central directory record "
                   "missing at byte " +
                       std::to_string(end64));
      count = le(bytes + end64 + 32, 8);
      dirSize = le(bytes + end64 + 40, 8);
      dirOffset = le(bytes + end64 + 48, 8);
    }
    if (dirOffset > size || dirSize > size - dirOffset)
      return bad(error, end,
                 "the central directory (" + std::to_string(dirSize) +
                     " bytes at byte " + std::to_string(dirOffset) +
                     ") is outside the file of " + std::to_string(size) +
                     " bytes");
    // Each entry takes at least 46 bytes: count is bounded by the size.
    if (count > dirSize / 46)
      return bad(error, end,
                 std::to_string(count) +
                     " entries do not fit in "
                     "a central directory of " +
                     std::to_string(dirSize) + " bytes");
    uint64_t at = dirOffset;
    const uint64_t dirEnd = dirOffset + dirSize;
    for (uint64_t k = 0; k < count; ++k) {
      if (dirEnd - at < 46 || le(bytes + at, 4) != kCentralSig)
        return bad(error, at,
                   "expected central directory entry " + std::to_string(k + 1) +
                       " of " + std::to_string(count));
      ZipEntry e;
      e.flags = uint16_t(le(bytes + at + 8, 2));
      e.method = uint16_t(le(bytes + at + 10, 2));
      e.crc = uint32_t(le(bytes + at + 16, 4));
      e.compressed = le(bytes + at + 20, 4);
      e.uncompressed = le(bytes + at + 24, 4);
      uint64_t nameLen = le(bytes + at + 28, 2);
      uint64_t extraLen = le(bytes + at + 30, 2);
      uint64_t commentLen = le(bytes + at + 32, 2);
      e.localOffset = le(bytes + at + 42, 4);
      if (dirEnd - at - 46 < nameLen + extraLen + commentLen)
        return bad(error, at,
                   "central directory entry " + std::to_string(k + 1) +
                       " runs past the directory");
      e.name.assign(bytes + at + 46, nameLen);
      // zip64 extra field (id 1): the 64-bit values of the fields that
      // read 0xffffffff, in this order.
      const char *x = bytes + at + 46 + nameLen;
      for (uint64_t off = 0; off + 4 <= extraLen;) {
        uint64_t id = le(x + off, 2), len = le(x + off + 2, 2);
        if (off + 4 + len > extraLen)
          break;
        if (id == 1) {
          uint64_t p = off + 4;
          uint64_t *fields[3] = {&e.uncompressed, &e.compressed,
                                 &e.localOffset};
          for (uint64_t *f : fields)
            if (*f == 0xffffffff) {
              if (p + 8 > off + 4 + len)
                return bad(error, at,
                           "zip64 extra field of '" + e.name +
                               "' is too short");
              *f = le(x + p, 8);
              p += 8;
            }
        }
        off += 4 + len;
      }
      entries.push_back(std::move(e));
      at += 46 + nameLen + extraLen + commentLen;
    }
    return SLUICE_STATUS_OK;
  }

  const ZipEntry *find(const std::string &name) const {
    for (const ZipEntry &e : entries)
      if (e.name == name)
        return &e;
    return nullptr;
  }

  std::string names() const {
    std::string s;
    for (const ZipEntry &e : entries)
      s += (s.empty() ? "'" : ", '") + e.name + "'";
    return s.empty() ? "no entries" : s;
  }

  /// The bytes of `e`: in the file when stored, else inflated into
  /// `buffer`. `fileOffset` is where they start in the file (0 inflated).
  sluice_status_t contents(const ZipEntry &e, std::vector<char> &buffer,
                           const char *&data, uint64_t &fileOffset,
                           sluice_error_t *error) {
    if (e.flags & 1)
      return bad(error, e.localOffset, "'" + e.name + "' is encrypted");
    const uint64_t at = e.localOffset;
    if (at > size || size - at < 30 || le(bytes + at, 4) != kLocalSig)
      return bad(error, at, "no local header for '" + e.name + "'");
    const uint64_t start =
        at + 30 + le(bytes + at + 26, 2) + le(bytes + at + 28, 2);
    if (start > size || e.compressed > size - start)
      return bad(error, at,
                 "'" + e.name + "' (" + std::to_string(e.compressed) +
                     " bytes at byte " + std::to_string(start) +
                     ") runs past the end of the file");
    const char *raw = bytes + start;
    if (e.method == 0) {
      if (e.compressed != e.uncompressed)
        return bad(error, at,
                   "stored entry '" + e.name + "' has " +
                       std::to_string(e.compressed) + " bytes but says " +
                       std::to_string(e.uncompressed));
      data = raw;
      fileOffset = start;
    } else if (e.method == 8) {
      if (e.uncompressed / kMaxDeflateRatio > e.compressed + 1)
        return bad(error, at,
                   "deflated entry '" + e.name + "' claims " +
                       std::to_string(e.uncompressed) + " bytes from " +
                       std::to_string(e.compressed) +
                       ", more than deflate can expand");
      if (e.uncompressed > SIZE_MAX / 2)
        return bad(error, at,
                   "deflated entry '" + e.name +
                       "' is too large for this machine");
      buffer.resize(size_t(e.uncompressed));
      z_stream z{};
      if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
        return fail(error, SLUICE_STATUS_INTERNAL, {path},
                    "cannot set up the deflate decompressor");
      uint64_t inDone = 0, outDone = 0;
      int rc = Z_OK;
      while (rc == Z_OK) {
        uInt inChunk =
            uInt(std::min<uint64_t>(e.compressed - inDone, 1u << 30));
        uInt outChunk =
            uInt(std::min<uint64_t>(e.uncompressed - outDone, 1u << 30));
        z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(raw + inDone));
        z.avail_in = inChunk;
        z.next_out = reinterpret_cast<Bytef *>(buffer.data() + outDone);
        z.avail_out = outChunk;
        rc = inflate(&z, Z_NO_FLUSH);
        inDone += inChunk - z.avail_in;
        outDone += outChunk - z.avail_out;
        // Z_OK: progress, go on; Z_BUF_ERROR (no progress possible: out of
        // input or of room), Z_DATA_ERROR: a broken entry.
      }
      inflateEnd(&z);
      if (rc != Z_STREAM_END || outDone != e.uncompressed)
        return bad(error, start,
                   "deflated entry '" + e.name + "' is corrupt or truncated (" +
                       std::to_string(outDone) + " of " +
                       std::to_string(e.uncompressed) + " bytes inflated)");
      data = buffer.data();
      fileOffset = 0;
    } else {
      return bad(error, at,
                 "'" + e.name + "' uses zip method " +
                     std::to_string(e.method) +
                     "; stored (0) and deflate (8) are supported");
    }
    uint64_t crc = crc32(0L, Z_NULL, 0);
    for (uint64_t done = 0; done < e.uncompressed;) {
      uInt chunk = uInt(std::min<uint64_t>(e.uncompressed - done, 1u << 30));
      crc = crc32(crc, reinterpret_cast<const Bytef *>(data + done), chunk);
      done += chunk;
    }
    if (crc != e.crc)
      return bad(error, start,
                 "CRC-32 of '" + e.name + "' does not match " +
                     "(the archive is corrupt)");
    return SLUICE_STATUS_OK;
  }

private:
  sluice_status_t bad(sluice_error_t *error, uint64_t at,
                      const std::string &message) {
    ErrorLocation where{path};
    where.byteOffset = at;
    return fail(error, SLUICE_STATUS_PARSE_ERROR, where, message);
  }

  const std::string &path;
  const char *bytes;
  uint64_t size;
  std::vector<ZipEntry> entries;
};

/// A mapped file.
struct Mapping {
  void *base = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (base != MAP_FAILED)
      ::munmap(base, size);
  }
};

} // namespace

sluice_status_t sluice::rt::parseNpyEdges(const std::string &path,
                                          const char *bytes, size_t size,
                                          const TextLoadOptions &options,
                                          Progress &progress,
                                          EdgeStaging &staging,
                                          sluice_error_t *error) {
  npy::Header h;
  std::string message;
  if (!readArray(path, bytes, size, h, message))
    return failArray(error, path, message);
  if (!integerDtype(h.dtype))
    return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
                "edge array dtype '" + h.descr +
                    "' is not a little-endian integer ('<i4' or '<i8')");
  if (h.shape.size() != 2 || h.shape[1] != 2)
    return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
                "expected an edge array of shape (E, 2), the file has shape " +
                    npy::shapeText(h.shape));
  const uint64_t edges = h.shape[0];
  const uint64_t elementSize = h.elementSize();
  Column src, dst;
  src.dtype = dst.dtype = h.dtype;
  src.count = dst.count = edges;
  src.data = bytes + h.dataOffset;
  src.fileOffset = h.dataOffset;
  if (h.fortranOrder) {
    // Column-major: all sources, then all targets.
    dst.data = src.data + edges * elementSize;
    dst.fileOffset = h.dataOffset + edges * elementSize;
  } else {
    src.stride = dst.stride = 2;
    dst.data = src.data + elementSize;
    dst.fileOffset = h.dataOffset + elementSize;
  }
  return collectEdges(path, "npy", src, dst, nullptr, options, progress,
                      staging, error);
}

sluice_status_t sluice::rt::parseNpzEdges(const std::string &path,
                                          const char *bytes, size_t size,
                                          const TextLoadOptions &options,
                                          Progress &progress,
                                          EdgeStaging &staging,
                                          sluice_error_t *error) {
  ZipReader zip(path, bytes, size);
  sluice_status_t status = zip.readDirectory(error);
  if (status != SLUICE_STATUS_OK)
    return status;
  const char *names[3] = {"src", "dst", "weight"};
  Column columns[3];
  std::vector<char> buffers[3];
  bool present[3] = {false, false, false};
  for (int k = 0; k < 3; ++k) {
    const ZipEntry *e = zip.find(std::string(names[k]) + ".npy");
    if (!e) {
      if (k == 2)
        break;
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
                  std::string("the archive has no '") + names[k] +
                      "' array (expected 'src', 'dst' and optionally "
                      "'weight'; it has " +
                      zip.names() + ")");
    }
    if (k == 2 && options.weights != SLUICE_WEIGHTS_COLUMN)
      break; // not read
    const char *data = nullptr;
    uint64_t fileOffset = 0;
    status = zip.contents(*e, buffers[k], data, fileOffset, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    const std::string name = path + ": " + e->name;
    npy::Header h;
    std::string message;
    if (!readArray(name, data, e->uncompressed, h, message))
      return failArray(error, path, message);
    bool ok = k < 2 ? integerDtype(h.dtype)
                    : h.dtype == npy::DType::F4 || h.dtype == npy::DType::F8;
    if (!ok)
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
                  std::string("'") + names[k] + "' has dtype '" + h.descr +
                      (k < 2 ? "'; expected '<i4' or '<i8'"
                             : "'; expected '<f4' or '<f8'"));
    if (h.shape.size() != 1)
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
                  std::string("'") + names[k] +
                      "' should be 1-D, it has shape " +
                      npy::shapeText(h.shape));
    Column &c = columns[k];
    c.dtype = h.dtype;
    c.count = h.shape[0];
    c.data = data + h.dataOffset;
    c.fileOffset = fileOffset ? fileOffset + h.dataOffset : 0;
    if (k > 0 && c.count != columns[0].count)
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {path},
                  std::string("'") + names[k] + "' has " +
                      std::to_string(c.count) + " entries, 'src' has " +
                      std::to_string(columns[0].count));
    present[k] = true;
  }
  return collectEdges(path, "npz", columns[0], columns[1],
                      present[2] ? &columns[2] : nullptr, options, progress,
                      staging, error);
}

sluice_status_t sluice::rt::loadArrayEdges(const std::string &path, bool npz,
                                           const TextLoadOptions &options,
                                           Progress &progress,
                                           EdgeStaging &staging,
                                           InputFile &input,
                                           sluice_error_t *error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failErrno(error, errno, path, "cannot open");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                "not a regular file");
  }
  input = {path, st.st_dev, st.st_ino};
  Mapping map;
  map.size = size_t(st.st_size);
  if (map.size)
    map.base = ::mmap(nullptr, map.size, PROT_READ, MAP_PRIVATE, fd, 0);
  int mapErrno = errno;
  ::close(fd);
  if (map.size && map.base == MAP_FAILED)
    return failErrno(error, mapErrno, path, "cannot map");
  const char *bytes = map.size ? static_cast<const char *>(map.base) : "";
  return npz ? parseNpzEdges(path, bytes, map.size, options, progress, staging,
                             error)
             : parseNpyEdges(path, bytes, map.size, options, progress, staging,
                             error);
}

bool sluice::rt::hasArrayMagic(const std::string &path, bool npz) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char head[npy::kMagicSize];
  bool got = ::pread(fd, head, sizeof(head), 0) == ssize_t(sizeof(head));
  ::close(fd);
  if (!got)
    return false;
  return npz ? std::memcmp(head, "PK\x03\x04", 4) == 0
             : npy::hasMagic(head, sizeof(head));
}
