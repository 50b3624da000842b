//===- FeatureFile.cpp - .npy header parser and feature file checks -------===//
//
// The .npy format (numpy.lib.format): the magic string "\x93NUMPY", a
// major and a minor version byte, the header length (2 bytes little-endian
// for version 1, 4 bytes for versions 2 and 3), then the header: a Python
// dict literal with the keys 'descr', 'fortran_order' and 'shape', padded
// with spaces to a multiple of 64 bytes and ended by '\n'. The array
// follows in the order the header states.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/features/FeatureFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sluice::rt::features;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// Largest header read (numpy writes at most a few hundred bytes; the
/// format allows 4 GiB for v2/v3, which nothing sane uses).
constexpr uint64_t kMaxHeader = uint64_t(1) << 20;

std::string shapeText(const std::vector<uint64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// The header dict: `key: value` pairs, parsed by hand (a tiny subset of
/// Python literals: strings, True/False, tuples of integers).
class DictParser {
public:
  DictParser(const std::string &path, const char *text, size_t size,
             uint64_t base)
      : path(path), text(text), size(size), base(base) {}

  std::string error;
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;

  /// dict := '{' (entry (',' entry)* ','?)? '}' trailing-space
  bool parse() {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!expect('{', "'{' opening the header dict"))
      return false;
    for (;;) {
      skipSpace();
      if (peek() == '}') {
        closeAt = at++;
        break;
      }
      std::string key;
      size_t keyAt = at;
      if (!parseString(key, "a quoted key"))
        return false;
      skipSpace();
      if (!expect(':', "':' after '" + key + "'"))
        return false;
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr, "a quoted dtype after 'descr'"))
          return false;
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortran))
          return false;
        haveFortran = true;
      } else if (key == "shape") {
        if (!parseShape())
          return false;
        haveShape = true;
      } else {
        return failAt(keyAt, "unexpected key '" + key +
                                 "' (expected 'descr', 'fortran_order' and "
                                 "'shape')");
      }
      skipSpace();
      if (peek() == ',') {
        ++at;
        continue;
      }
      skipSpace();
      closeAt = at;
      if (!expect('}', "',' or '}' after the value of '" + key + "'"))
        return false;
      break;
    }
    skipSpace();
    if (at != size)
      return failAt(at, "unexpected text after the header dict");
    const char *missing = !haveDescr     ? "descr"
                          : !haveFortran ? "fortran_order"
                          : !haveShape   ? "shape"
                                         : nullptr;
    if (missing)
      return failAt(closeAt, std::string("the header dict has no '") + missing +
                                 "' key");
    return true;
  }

private:
  char peek() const { return at < size ? text[at] : '\0'; }

  void skipSpace() {
    while (at < size && (text[at] == ' ' || text[at] == '\n' ||
                         text[at] == '\t' || text[at] == '\r'))
      ++at;
  }

  bool failAt(size_t where, const std::string &message) {
    error = path + ": .npy header, byte " + std::to_string(base + where) +
            ": " + message;
    return false;
  }

  bool expect(char c, const std::string &what) {
    if (peek() != c)
      return failAt(at, "expected " + what);
    ++at;
    return true;
  }

  /// string := '\'' chars '\'' | '"' chars '"'   (no escapes)
  bool parseString(std::string &out, const std::string &what) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return failAt(at, "expected " + what);
    size_t start = ++at;
    while (at < size && text[at] != quote)
      ++at;
    if (at == size)
      return failAt(start - 1, "unterminated string");
    out.assign(text + start, at - start);
    ++at;
    return true;
  }

  /// bool := 'True' | 'False'
  bool parseBool(bool &out) {
    if (size - at >= 4 && !std::strncmp(text + at, "True", 4)) {
      at += 4;
      out = true;
      return true;
    }
    if (size - at >= 5 && !std::strncmp(text + at, "False", 5)) {
      at += 5;
      out = false;
      return true;
    }
    return failAt(at, "expected True or False after 'fortran_order'");
  }

  /// shape := '(' (int (',' int)* ','?)? ')'
  bool parseShape() {
    if (!expect('(', "a tuple after 'shape'"))
      return false;
    for (;;) {
      skipSpace();
      if (peek() == ')') {
        ++at;
        return true;
      }
      if (peek() < '0' || peek() > '9')
        return failAt(at, "expected a dimension (a whole number) in 'shape'");
      uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        uint64_t d = static_cast<uint64_t>(peek() - '0');
        if (v > (UINT64_MAX - d) / 10)
          return failAt(at, "dimension too large in 'shape'");
        v = v * 10 + d;
        ++at;
      }
      // Tuples have 0..32 dimensions in NumPy; more is a broken file.
      if (shape.size() == 32)
        return failAt(at, "more than 32 dimensions in 'shape'");
      shape.push_back(v);
      skipSpace();
      if (peek() == ',')
        ++at;
      else if (peek() != ')')
        return failAt(at, "expected ',' or ')' in 'shape'");
    }
  }

  const std::string &path;
  const char *text;
  size_t size;
  uint64_t base;
  size_t at = 0;
  size_t closeAt = 0; ///< the closing '}'
};

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
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0) {
    error = path + ": not a NumPy .npy file (no \\x93NUMPY magic string at "
                   "byte 0)";
    return false;
  }
  unsigned major = static_cast<unsigned char>(bytes[6]);
  unsigned minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3) {
    error = path + ": .npy format version " + std::to_string(major) + "." +
            std::to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)";
    return false;
  }
  const size_t lengthBytes = major == 1 ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + lengthBytes;
  if (size < preamble) {
    error = path + ": truncated .npy header: the file ends at byte " +
            std::to_string(size) + ", inside the header length";
    return false;
  }
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= uint64_t(static_cast<unsigned char>(bytes[8 + i]))
                    << (8 * i);
  if (headerLength > kMaxHeader) {
    error = path + ": the .npy header length " + std::to_string(headerLength) +
            " is more than the 1 MiB read";
    return false;
  }
  if (size - preamble < headerLength) {
    error = path + ": truncated .npy header: it says " +
            std::to_string(headerLength) + " bytes after byte " +
            std::to_string(preamble) + ", the file has " +
            std::to_string(size - preamble);
    return false;
  }
  DictParser dict(path, bytes + preamble, headerLength, preamble);
  if (!dict.parse()) {
    error = dict.error;
    return false;
  }
  if (dict.descr != "<f4") {
    error = path + ": dtype '" + dict.descr +
            "' is not little-endian float32 ('<f4')";
    return false;
  }
  if (dict.fortran) {
    error = path + ": the array is in Fortran order (fortran_order: True); "
                   "C order is needed (numpy.ascontiguousarray)";
    return false;
  }
  if (dict.shape.size() != 2) {
    error = path + ": expected a 2-D array (rows, dim), the file has shape " +
            shapeText(dict.shape);
    return false;
  }
  return checkShape(path, dict.shape[0], dict.shape[1],
                    "shape " + shapeText(dict.shape), preamble + headerLength,
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
    bool magic = head.size() >= kMagicSize &&
                 std::memcmp(head.data(), kMagic, kMagicSize) == 0;
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
