//===- LineReader.h - Lines of a text file, gzip'd or not ------*- C++ -*-===//
//
// Reads a text file that may be gzip-compressed, detected from the content
// (the gzip magic 1f 8b at byte 0; the name does not matter). A gzip file is
// one or more gzip members back to back (as `cat a.gz b.gz` makes); bytes
// after the last member that do not start another member are an error, as
// are a truncated member and a bad CRC or length trailer. Anything else is
// read as it is.
//
// Lines end at "\n", "\r\n" or a lone "\r" (Unix, Windows and classic Mac
// files); the last line needs no line end. Lines are views into an internal
// buffer, valid until the next call.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_LINEREADER_H
#define SLUICE_RUNTIME_SRC_LINEREADER_H

#include "sluice/runtime.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

struct z_stream_s;

namespace sluice::rt {

/// Where the line that starts at text[p] ends, by the line ends every
/// reader accepts ("\n", "\r\n", a lone "\r"): `stop` ends its text,
/// `resume` starts the next line. `final`: text[p, end) runs to the end of
/// the file (the rest is then its last line). False when that is not
/// decided within text[p, end) and it is not final: no line end yet, or a
/// '\r' as the last byte (the next byte decides).
inline bool lineEnd(const char *text, size_t p, size_t end, bool final,
                    size_t &stop, size_t &resume) {
  const void *nl = std::memchr(text + p, '\n', end - p);
  const size_t limit =
      nl ? static_cast<size_t>(static_cast<const char *>(nl) - text) : end;
  if (const void *cr = std::memchr(text + p, '\r', limit - p)) {
    stop = static_cast<size_t>(static_cast<const char *>(cr) - text);
    if (stop + 1 < end)
      resume = stop + 1 + (text[stop + 1] == '\n' ? 1 : 0);
    else if (final)
      resume = end;
    else
      return false;
    return true;
  }
  if (nl) {
    stop = limit;
    resume = stop + 1;
    return true;
  }
  if (!final)
    return false;
  stop = resume = end;
  return true;
}

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

  /// Plain files only, instead of next(): moves the file's next bytes (the
  /// buffered ones first) to `into`, at most `room`; `got` 0 at the end. A
  /// read error is reported at line `nextLine`.
  bool readRaw(char *into, size_t room, uint64_t nextLine, size_t &got,
               sluice_status_t &status, sluice_error_t *error);

  /// 1-based number of the line last returned.
  uint64_t lineNumber() const { return line; }
  /// Bytes of the file (compressed, if gzip'd) consumed so far.
  uint64_t bytesRead() const;
  /// Size of the file on disk.
  uint64_t fileBytes() const { return size; }
  /// Whether the file is gzip'd (fileBytes() is then not the text's size).
  bool compressed() const { return stream != nullptr; }
  /// Whether the file is a regular file (not a pipe or a terminal).
  bool regularFile() const { return regular; }
  const std::string &path() const { return filePath; }
  /// The identity of the open file (st_dev, st_ino).
  dev_t device() const { return fileDevice; }
  ino_t inode() const { return fileInode; }

  /// Lines longer than this are an error (a binary file read as text).
  static constexpr size_t kMaxLineBytes = size_t(64) << 20;
  /// That error, at line `lineNumber` of `path`.
  static sluice_status_t lineTooLong(sluice_error_t *error,
                                     const std::string &path,
                                     uint64_t lineNumber);

private:
  bool fill(sluice_status_t &status, sluice_error_t *error);
  /// Reads raw bytes into `buffer` at `end` (plain files).
  bool readPlain(size_t room, sluice_status_t &status, sluice_error_t *error);
  /// Decompresses into `buffer` at `end` until at least one byte is out or
  /// the last member ended (gzip files).
  bool inflateSome(size_t room, sluice_status_t &status, sluice_error_t *error);
  /// Refills the compressed input; false on a read error.
  bool readInput(sluice_status_t &status, sluice_error_t *error);
  bool readError(int err, sluice_status_t &status, sluice_error_t *error);
  bool corrupt(const std::string &message, sluice_status_t &status,
               sluice_error_t *error);

  int fd = -1;
  z_stream_s *stream = nullptr; // gzip files only
  std::string filePath;
  std::vector<char> buffer; // decompressed text
  std::vector<char> input;  // compressed bytes (gzip files)
  size_t begin = 0, end = 0;
  bool atEnd = false;     // no more text after buffer[begin, end)
  bool inputEnd = false;  // the file is read to its end
  bool memberEnd = false; // between gzip members
  uint64_t rawOffset = 0; // bytes of the file read so far
  uint64_t line = 0;
  uint64_t size = 0;
  bool regular = false;
  dev_t fileDevice = 0;
  ino_t fileInode = 0;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_LINEREADER_H
