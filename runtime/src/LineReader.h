//===- LineReader.h - Lines of a text file, gzip'd or not ------*- C++ -*-===//
//
// Reads a text file through zlib's gz* interface, which decompresses gzip
// input and passes anything else through unchanged, so ".gz" is detected
// from the content. Lines end at '\n'; a trailing '\r' is dropped (CRLF
// files); the last line needs no newline. Lines are views into an internal
// buffer, valid until the next call.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_LINEREADER_H
#define SLUICE_RUNTIME_SRC_LINEREADER_H

#include "sluice/runtime.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::rt {

class LineReader {
public:
  LineReader() = default;
  ~LineReader();
  LineReader(const LineReader &) = delete;
  LineReader &operator=(const LineReader &) = delete;

  /// Opens `path`; NOT_FOUND, PERMISSION_DENIED or IO_ERROR on failure.
  sluice_status_t open(const std::string &path, sluice_error_t *error);

  /// The next line: true with `line` set; false at the end of the file
  /// (status OK) or on a read or decompression error (status set, error
  /// filled with the line number reached).
  bool next(std::string_view &line, sluice_status_t &status,
            sluice_error_t *error);

  /// 1-based number of the line last returned.
  uint64_t lineNumber() const { return line; }
  /// Bytes of the file (compressed, if gzip'd) consumed so far.
  uint64_t bytesRead() const;
  /// Size of the file on disk.
  uint64_t fileBytes() const { return size; }
  const std::string &path() const { return filePath; }

  /// Lines longer than this are an error (a binary file read as text).
  static constexpr size_t kMaxLineBytes = size_t(64) << 20;

private:
  bool fill(sluice_status_t &status, sluice_error_t *error);

  void *file = nullptr; // gzFile
  std::string filePath;
  std::vector<char> buffer;
  size_t begin = 0, end = 0;
  bool atEnd = false;
  uint64_t line = 0;
  uint64_t size = 0;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_LINEREADER_H
