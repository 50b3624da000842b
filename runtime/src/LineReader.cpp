//===- LineReader.cpp - Lines of a text file, gzip'd or not ---------------===//
#include "runtime/src/LineReader.h"

#include "runtime/src/Error.h"

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
gzFile gz(void *file) { return static_cast<gzFile>(file); }
} // namespace

LineReader::~LineReader() {
  if (file)
    gzclose(gz(file));
}

sluice_status_t LineReader::open(const std::string &path,
                                 sluice_error_t *error) {
  filePath = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failErrno(error, errno, path, "cannot open");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return failErrno(error, err, path, "cannot stat");
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return failErrno(error, EISDIR, path, "cannot read");
  }
  size = static_cast<uint64_t>(st.st_size);
  gzFile f = gzdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {path},
                "cannot allocate the decompression state");
  }
  gzbuffer(f, 1u << 18);
  file = f;
  buffer.resize(kChunkBytes);
  return SLUICE_STATUS_OK;
}

uint64_t LineReader::bytesRead() const {
  if (!file)
    return 0;
  z_off_t offset = gzoffset(gz(file));
  return offset > 0 ? static_cast<uint64_t>(offset) : 0;
}

bool LineReader::fill(sluice_status_t &status, sluice_error_t *error) {
  if (begin > 0) {
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
    begin = 0;
  }
  if (end == buffer.size()) {
    if (buffer.size() >= kMaxLineBytes) {
      status = fail(error, SLUICE_STATUS_PARSE_ERROR, {filePath, line + 1, 1},
                    "line longer than " + std::to_string(kMaxLineBytes >> 20) +
                        " MiB (is this a text file?)");
      return false;
    }
    buffer.resize(buffer.size() * 2);
  }
  size_t room = buffer.size() - end;
  unsigned want = room > INT_MAX ? INT_MAX : static_cast<unsigned>(room);
  int got = gzread(gz(file), buffer.data() + end, want);
  if (got <= 0) {
    int code = Z_OK;
    const char *message = gzerror(gz(file), &code);
    if (code == Z_ERRNO) {
      int err = errno;
      status = fail(error, statusFromErrno(err), {filePath, line + 1},
                    std::string("cannot read: ") + std::strerror(err));
      return false;
    }
    if (code != Z_OK) {
      // zlib prefixes its message with the name it knows, "<fd:N>: ".
      std::string_view text = message ? message : "unknown error";
      if (text.rfind("<fd:", 0) == 0 && text.find(">: ") != text.npos)
        text.remove_prefix(text.find(">: ") + 3);
      status = fail(error, SLUICE_STATUS_DATA_CORRUPT, {filePath, line + 1},
                    "corrupt gzip data: " + std::string(text));
      return false;
    }
    atEnd = true;
    return true;
  }
  end += static_cast<size_t>(got);
  return true;
}

bool LineReader::next(std::string_view &out, sluice_status_t &status,
                      sluice_error_t *error) {
  status = SLUICE_STATUS_OK;
  for (;;) {
    const char *base = buffer.data();
    const void *newline = std::memchr(base + begin, '\n', end - begin);
    size_t stop;
    if (newline) {
      stop = static_cast<size_t>(static_cast<const char *>(newline) - base);
    } else if (atEnd) {
      if (begin == end)
        return false;
      stop = end;
    } else {
      if (!fill(status, error))
        return false;
      continue;
    }
    out = std::string_view(base + begin, stop - begin);
    begin = stop < end ? stop + 1 : end;
    ++line;
    if (!out.empty() && out.back() == '\r')
      out.remove_suffix(1);
    return true;
  }
}
