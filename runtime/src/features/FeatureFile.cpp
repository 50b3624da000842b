//===- FeatureFile.cpp - Feature file checks (.npy, raw float32) ----------===//
//
// The .npy header is parsed by the runtime's one reader (runtime/src/Npy.h);
// this file checks what a feature file needs of it: dtype '<f4', C order,
// two dimensions, and as many bytes as the shape says.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/features/FeatureFile.h"

#include "runtime/src/Npy.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sluice::rt::features;
namespace npy = sluice::rt::npy;
using npy::kMaxHeader;
using npy::shapeText;

namespace {

/// The shape against the caller's rows x dim and the bytes the file has.
bool checkShape(const std::string &path, uint64_t fileRows, uint64_t fileDim,
                const std::string &shapeDesc, uint64_t dataOffset,
                uint64_t fileSize, uint64_t rows, uint64_t dim,
                FeatureLayout &out, std::string &error) {
  if ((rows && rows != fileRows) || (dim && dim != fileDim)) {
    error = path + ": expected " + (rows ? std::to_string(rows) : "any") +
            " rows of " + (dim ? std::to_string(dim) : "any number of") +
            " float32, the file has " + shapeDesc;
    return false;
  }
  if (fileRows > UINT32_MAX + uint64_t(1)) {
    error = path + ": " + std::to_string(fileRows) +
            " rows; row ids are 32-bit, at most 4294967296 rows";
    return false;
  }
  if (fileDim == 0 || fileRows == 0) {
    error = path + ": the array is empty (" + shapeDesc + ")";
    return false;
  }
  // rows * dim * 4 without overflow (fileRows <= 2^32).
  if (fileDim > (UINT64_MAX / 4) / fileRows) {
    error = path + ": " + shapeDesc + " float32 is more than 2^64 bytes";
    return false;
  }
  uint64_t need = fileRows * fileDim * 4;
  uint64_t have = fileSize > dataOffset ? fileSize - dataOffset : 0;
  if (need != have) {
    error = path + ": " + std::to_string(fileRows) + " x " +
            std::to_string(fileDim) + " float32 need " + std::to_string(need) +
            " bytes after byte " + std::to_string(dataOffset) +
            ", the file has " + std::to_string(have) +
            (have < need ? " (truncated)" : " (trailing bytes)");
    return false;
  }
  out.rows = fileRows;
  out.dim = fileDim;
  out.dataOffset = dataOffset;
  out.fileSize = fileSize;
  return true;
}

} // namespace

bool sluice::rt::features::parseNpyHeader(const std::string &path,
                                          const char *bytes, size_t size,
                                          uint64_t fileSize, uint64_t rows,
                                          uint64_t dim, FeatureLayout &out,
                                          std::string &error) {
  npy::Header header;
  if (!npy::parseHeader(path, bytes, size, header, error))
    return false;
  if (header.descr != "<f4") {
    error = path + ": dtype '" + header.descr +
            "' is not little-endian float32 ('<f4')";
    return false;
  }
  if (header.fortranOrder) {
    error = path + ": the array is in Fortran order (fortran_order: True); "
                   "C order is needed (numpy.ascontiguousarray)";
    return false;
  }
  if (header.shape.size() != 2) {
    error = path + ": expected a 2-D array (rows, dim), the file has shape " +
            shapeText(header.shape);
    return false;
  }
  return checkShape(path, header.shape[0], header.shape[1],
                    "shape " + shapeText(header.shape), header.dataOffset,
                    fileSize, rows, dim, out, error);
}

bool sluice::rt::features::readFeatureLayout(const std::string &path,
                                             FeatureFormat format,
                                             uint64_t rows, uint64_t dim,
                                             FeatureLayout &out,
                                             std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    ::close(fd);
    return false;
  }
  const uint64_t fileSize = static_cast<uint64_t>(st.st_size);
  // Enough for the preamble and any header up to kMaxHeader.
  std::vector<char> head(
      static_cast<size_t>(std::min<uint64_t>(fileSize, kMaxHeader + 12)));
  size_t got = 0;
  while (got < head.size()) {
    ssize_t n = ::pread(fd, head.data() + got, head.size() - got,
                        static_cast<off_t>(got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = path + ": cannot read the header: " +
              (n < 0 ? std::strerror(errno) : "unexpected end of file");
      ::close(fd);
      return false;
    }
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (format == FeatureFormat::Auto) {
    bool npyName =
        path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
    bool magic = npy::hasMagic(head.data(), head.size());
    format = npyName || magic ? FeatureFormat::Npy : FeatureFormat::RawF32;
  }
  if (format == FeatureFormat::Npy)
    return parseNpyHeader(path, head.data(), head.size(), fileSize, rows, dim,
                          out, error);
  if (!rows || !dim) {
    error = path + ": a raw float32 file needs its rows and dim (got " +
            std::to_string(rows) + " x " + std::to_string(dim) + ")";
    return false;
  }
  if (rows > UINT32_MAX + uint64_t(1) || dim > (UINT64_MAX / 4) / rows) {
    error = path + ": " + std::to_string(rows) + " x " + std::to_string(dim) +
            " float32 is too large (row ids are 32-bit)";
    return false;
  }
  if (fileSize != rows * dim * 4) {
    uint64_t rowBytes = dim * 4;
    error =
        path + ": expected " + std::to_string(rows) + " rows of " +
        std::to_string(dim) + " float32 (" + std::to_string(rows * dim * 4) +
        " bytes), the file has " + std::to_string(fileSize) + " bytes (" +
        (fileSize % rowBytes ? "not a whole number of rows"
                             : std::to_string(fileSize / rowBytes) + " rows") +
        ")";
    return false;
  }
  out.rows = rows;
  out.dim = dim;
  out.dataOffset = 0;
  out.fileSize = fileSize;
  return true;
}
