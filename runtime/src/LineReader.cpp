//===- LineReader.cpp - Lines of a text file, gzip'd or not ---------------===//
//
// Plain files are read straight into the line buffer. Gzip files go through
// zlib's inflate (not its gz* layer, which silently ignores whatever follows
// the last member): each member is inflated to its end, its CRC-32 and
// length trailer checked by zlib, and then the next bytes must be either the
// end of the file or the magic of another member.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/LineReader.h"

#include "runtime/src/Error.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

using namespace sluice::rt;

namespace {
constexpr size_t kChunkBytes = size_t(1) << 20;
constexpr size_t kInputBytes = size_t(1) << 18;
constexpr unsigned char kGzipMagic[2] = {0x1f, 0x8b};
/// inflateInit2's window bits: a 32 KiB window, gzip wrapper only.
constexpr int kGzipWindowBits = 15 + 16;

unsigned clampToUInt(size_t n) {
  return n > UINT_MAX ? UINT_MAX : static_cast<unsigned>(n);
}
} // namespace

LineReader::~LineReader() {
  if (stream) {
    inflateEnd(stream);
    delete stream;
  }
  if (fd >= 0)
    ::close(fd);
}

sluice_status_t LineReader::open(const std::string &path,
                                 sluice_error_t *error) {
  filePath = path;
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failErrno(error, errno, path, "cannot open");
  struct stat st;
  if (fstat(fd, &st) != 0)
    return failErrno(error, errno, path, "cannot stat");
  if (S_ISDIR(st.st_mode))
    return failErrno(error, EISDIR, path, "cannot read");
  size = static_cast<uint64_t>(st.st_size);
  regular = S_ISREG(st.st_mode);
  fileDevice = st.st_dev;
  fileInode = st.st_ino;

  // The first bytes decide between gzip and plain text.
  stream = new z_stream_s();
  input.resize(kInputBytes);
  stream->next_in = reinterpret_cast<Bytef *>(input.data());
  stream->avail_in = 0;
  sluice_status_t status = SLUICE_STATUS_OK;
  while (stream->avail_in < sizeof(kGzipMagic) && !inputEnd)
    if (!readInput(status, error))
      return status;
  const bool gzip =
      stream->avail_in >= sizeof(kGzipMagic) &&
      std::memcmp(stream->next_in, kGzipMagic, sizeof(kGzipMagic)) == 0;
  buffer.resize(kChunkBytes);
  if (!gzip) {
    std::memcpy(buffer.data(), stream->next_in, stream->avail_in);
    end = stream->avail_in;
    delete stream;
    stream = nullptr;
    input.clear();
    input.shrink_to_fit();
    return SLUICE_STATUS_OK;
  }
  int rc = inflateInit2(stream, kGzipWindowBits);
  if (rc != Z_OK) {
    delete stream;
    stream = nullptr;
    return rc == Z_MEM_ERROR
               ? failOutOfMemory(error, path)
               : fail(error, SLUICE_STATUS_INTERNAL, {path},
                      "cannot set up the gzip decompressor (zlib error " +
                          std::to_string(rc) + ")");
  }
  return SLUICE_STATUS_OK;
}

uint64_t LineReader::bytesRead() const {
  return stream ? rawOffset - stream->avail_in : rawOffset;
}

bool LineReader::readError(int err, sluice_status_t &status,
                           sluice_error_t *error) {
  status = fail(error, statusFromErrno(err), {filePath, line + 1},
                std::string("cannot read: ") + std::strerror(err));
  return false;
}

bool LineReader::corrupt(const std::string &message, sluice_status_t &status,
                         sluice_error_t *error) {
  status =
      fail(error, SLUICE_STATUS_DATA_CORRUPT, {filePath, line + 1}, message);
  return false;
}

/// read(2), retried when a signal interrupts it before any byte arrives.
static ssize_t readRetrying(int fd, void *into, size_t bytes) {
  ssize_t n;
  do
    n = ::read(fd, into, bytes);
  while (n < 0 && errno == EINTR);
  return n;
}

bool LineReader::readInput(sluice_status_t &status, sluice_error_t *error) {
  // Keep the unread bytes, then append after them.
  size_t kept = stream->avail_in;
  if (kept)
    std::memmove(input.data(), stream->next_in, kept);
  stream->next_in = reinterpret_cast<Bytef *>(input.data());
  ssize_t n = readRetrying(fd, input.data() + kept, input.size() - kept);
  if (n < 0)
    return readError(errno, status, error);
  if (n == 0)
    inputEnd = true;
  rawOffset += static_cast<uint64_t>(n);
  stream->avail_in = static_cast<unsigned>(kept + static_cast<size_t>(n));
  return true;
}

bool LineReader::readPlain(size_t room, sluice_status_t &status,
                           sluice_error_t *error) {
  ssize_t n = readRetrying(fd, buffer.data() + end, room);
  if (n < 0)
    return readError(errno, status, error);
  if (n == 0)
    atEnd = true;
  end += static_cast<size_t>(n);
  rawOffset += static_cast<uint64_t>(n);
  return true;
}

bool LineReader::inflateSome(size_t room, sluice_status_t &status,
                             sluice_error_t *error) {
  for (;;) {
    if (memberEnd) {
      // Another member, or the end of the file; nothing else.
      while (stream->avail_in < sizeof(kGzipMagic) && !inputEnd)
        if (!readInput(status, error))
          return false;
      if (stream->avail_in == 0) {
        atEnd = true;
        return true;
      }
      if (stream->avail_in < sizeof(kGzipMagic) ||
          std::memcmp(stream->next_in, kGzipMagic, sizeof(kGzipMagic)) != 0) {
        const uint64_t at = bytesRead();
        const uint64_t trailing = size > at ? size - at : stream->avail_in;
        return corrupt("corrupt gzip data: " + std::to_string(trailing) +
                           " trailing bytes at byte " + std::to_string(at) +
                           " after the end of the gzip stream are not another "
                           "gzip member",
                       status, error);
      }
      if (inflateReset(stream) != Z_OK)
        return corrupt("corrupt gzip data: cannot start the next member",
                       status, error);
      memberEnd = false;
    }
    if (stream->avail_in == 0 && !inputEnd && !readInput(status, error))
      return false;
    stream->next_out = reinterpret_cast<Bytef *>(buffer.data() + end);
    stream->avail_out = clampToUInt(room);
    const unsigned before = stream->avail_out;
    int rc = inflate(stream, Z_NO_FLUSH);
    const size_t produced = before - stream->avail_out;
    end += produced;
    room -= produced;
    switch (rc) {
    case Z_STREAM_END:
      memberEnd = true;
      break;
    case Z_OK:
      break;
    case Z_BUF_ERROR:
      // No progress possible: more input is needed.
      if (stream->avail_in == 0 && inputEnd)
        return corrupt("corrupt gzip data: unexpected end of file", status,
                       error);
      break;
    case Z_MEM_ERROR:
      status = failOutOfMemory(error, filePath);
      return false;
    default: // Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR
      return corrupt(std::string("corrupt gzip data: ") +
                         (stream->msg ? stream->msg : "invalid data"),
                     status, error);
    }
    if (produced)
      return true;
  }
}

sluice_status_t LineReader::lineTooLong(sluice_error_t *error,
                                        const std::string &path,
                                        uint64_t lineNumber) {
  return fail(error, SLUICE_STATUS_PARSE_ERROR, {path, lineNumber, 1},
              "line longer than " + std::to_string(kMaxLineBytes >> 20) +
                  " MiB (is this a text file?)");
}

bool LineReader::fill(sluice_status_t &status, sluice_error_t *error) {
  if (begin > 0) {
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
    begin = 0;
  }
  if (end == buffer.size()) {
    if (buffer.size() >= kMaxLineBytes) {
      status = lineTooLong(error, filePath, line + 1);
      return false;
    }
    buffer.resize(buffer.size() * 2);
  }
  const size_t room = buffer.size() - end;
  return stream ? inflateSome(room, status, error)
                : readPlain(room, status, error);
}

bool LineReader::readRaw(char *into, size_t room, uint64_t nextLine,
                         size_t &got, sluice_status_t &status,
                         sluice_error_t *error) {
  status = SLUICE_STATUS_OK;
  got = std::min(room, end - begin);
  if (got) {
    std::memcpy(into, buffer.data() + begin, got);
    begin += got;
    return true;
  }
  if (atEnd)
    return true;
  ssize_t n = readRetrying(fd, into, room);
  if (n < 0) {
    line = nextLine - 1;
    return readError(errno, status, error);
  }
  if (n == 0)
    atEnd = true;
  got = static_cast<size_t>(n);
  rawOffset += got;
  return true;
}

bool LineReader::next(std::string_view &out, sluice_status_t &status,
                      sluice_error_t *error) {
  status = SLUICE_STATUS_OK;
  for (;;) {
    const char *base = buffer.data();
    if (atEnd && begin == end)
      return false;
    size_t stop, resume;
    if (!lineEnd(base, begin, end, atEnd, stop, resume)) {
      if (!fill(status, error))
        return false;
      continue;
    }
    out = std::string_view(base + begin, stop - begin);
    begin = resume;
    ++line;
    return true;
  }
}
