//===- AtomicFile.cpp - Write to a temporary, then rename -----------------===//
#include "runtime/src/AtomicFile.h"

#include "runtime/src/Error.h"
#include "runtime/src/StaleTemporaries.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sluice::rt;

namespace {

constexpr size_t kBufferBytes = size_t(1) << 20;
/// Written bytes after which their write-back to disk is started.
constexpr uint64_t kWritebackBytes = uint64_t(8) << 20;
std::atomic<uint64_t> temporaryCounter{0};

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string baseNameOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

sluice_status_t AtomicFile::failWith(sluice_error_t *error, int err,
                                     const std::string &what) {
  failed = true;
  discard();
  return failErrno(error, err, target, what);
}

sluice_status_t AtomicFile::open(const std::string &path,
                                 sluice_error_t *error) {
  target = path;
  if (path.empty() || path.back() == '/')
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                "the output path names no file");
  const std::string dir = directoryOf(path);
  const std::string base = baseNameOf(path);
  // Temporaries of this file that killed processes left behind.
  removeStaleTemporaries(dir, [&](std::string_view name) {
    return atomicTemporaryOwner(name, base);
  });
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp = dir + "/." + base + ".tmp-" + std::to_string(getpid()) + "-" +
           std::to_string(temporaryCounter.fetch_add(1));
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0)
      break;
    if (errno != EEXIST) {
      int err = errno;
      temp.clear();
      failed = true;
      return failErrno(error, err, path,
                       "cannot create a file in directory '" + dir + "'");
    }
  }
  if (fd < 0) {
    temp.clear();
    failed = true;
    return failErrno(error, EEXIST, path, "cannot create a temporary file");
  }
  buffer.resize(kBufferBytes);
  return SLUICE_STATUS_OK;
}

sluice_status_t AtomicFile::writeFully(const void *data, size_t bytes,
                                       sluice_error_t *error) {
  const char *p = static_cast<const char *>(data);
  while (bytes) {
    ssize_t n = ::write(fd, p, bytes);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return failWith(error, errno, "cannot write");
    }
    if (n == 0)
      return failWith(error, EIO, "cannot write");
    p += n;
    bytes -= static_cast<size_t>(n);
    written += static_cast<uint64_t>(n);
  }
#ifdef __linux__
  // Start writing the finished part to disk now, while the caller computes
  // the rest, so that commit's fsync waits only for the tail (a 36 MB walk
  // file's fsync took 30 ms on ext4 without this). Advisory: errors are
  // the fsync's to report.
  if (written - writebackFrom >= kWritebackBytes) {
    ::sync_file_range(fd, static_cast<off_t>(writebackFrom),
                      static_cast<off_t>(written - writebackFrom),
                      SYNC_FILE_RANGE_WRITE);
    writebackFrom = written;
  }
#endif
  return SLUICE_STATUS_OK;
}

sluice_status_t AtomicFile::flush(sluice_error_t *error) {
  if (!used)
    return SLUICE_STATUS_OK;
  size_t n = used;
  used = 0;
  return writeFully(buffer.data(), n, error);
}

sluice_status_t AtomicFile::write(const void *data, size_t bytes,
                                  sluice_error_t *error) {
  if (failed || fd < 0)
    return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {target},
                "the output file is not open for writing");
  if (used + bytes <= buffer.size()) {
    std::memcpy(buffer.data() + used, data, bytes);
    used += bytes;
    return SLUICE_STATUS_OK;
  }
  sluice_status_t status = flush(error);
  if (status != SLUICE_STATUS_OK)
    return status;
  if (bytes >= buffer.size())
    return writeFully(data, bytes, error);
  std::memcpy(buffer.data(), data, bytes);
  used = bytes;
  return SLUICE_STATUS_OK;
}

sluice_status_t AtomicFile::writeZeros(size_t bytes, sluice_error_t *error) {
  static const char zeros[256] = {};
  while (bytes) {
    size_t n = bytes < sizeof(zeros) ? bytes : sizeof(zeros);
    sluice_status_t status = write(zeros, n, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    bytes -= n;
  }
  return SLUICE_STATUS_OK;
}

sluice_status_t AtomicFile::writeAt(uint64_t offset, const void *data,
                                    size_t bytes, sluice_error_t *error) {
  if (failed || fd < 0)
    return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {target},
                "the output file is not open for writing");
  sluice_status_t status = flush(error);
  if (status != SLUICE_STATUS_OK)
    return status;
  const char *p = static_cast<const char *>(data);
  while (bytes) {
    ssize_t n = ::pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return failWith(error, errno, "cannot write");
    }
    if (n == 0)
      return failWith(error, EIO, "cannot write");
    p += n;
    bytes -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return SLUICE_STATUS_OK;
}

sluice_status_t AtomicFile::commit(sluice_error_t *error) {
  if (failed || fd < 0)
    return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {target},
                "the output file is not open for writing");
  sluice_status_t status = flush(error);
  if (status != SLUICE_STATUS_OK)
    return status;
  if (::fsync(fd) != 0)
    return failWith(error, errno, "cannot flush to disk (fsync)");
  int closing = fd;
  fd = -1;
  if (::close(closing) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    temp.clear();
    failed = true;
    return failErrno(error, err, target, "cannot close");
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    temp.clear();
    failed = true;
    return failErrno(error, err, target, "cannot rename the finished file");
  }
  temp.clear();
  renamedIntoPlace = true;
  buffer.clear();
  buffer.shrink_to_fit();
  // Make the rename durable. Until this succeeds a crash may bring back the
  // previous content, so a failure here fails the commit; file systems that
  // cannot fsync a directory (EINVAL) have nothing to flush.
  const std::string dir = directoryOf(target);
  auto notDurable = [&](int err, const char *what) {
    failed = true;
    return failErrno(error, err, target,
                     std::string("the file is in place but ") + what + " '" +
                         dir +
                         "' failed, so it may not survive a "
                         "crash");
  };
  DirectorySyncStep step;
  if (int err = syncDirectory(dir, step))
    return notDurable(err, step == DirectorySyncStep::Open
                               ? "opening its directory"
                           : step == DirectorySyncStep::Fsync
                               ? "flushing (fsync) its directory"
                               : "closing its directory");
  return SLUICE_STATUS_OK;
}

int sluice::rt::syncDirectory(const std::string &dir,
                              DirectorySyncStep &failed) {
  failed = DirectorySyncStep::Open;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return errno;
  if (::fsync(fd) != 0 && errno != EINVAL) {
    int err = errno;
    ::close(fd);
    failed = DirectorySyncStep::Fsync;
    return err;
  }
  if (::close(fd) != 0) {
    failed = DirectorySyncStep::Close;
    return errno;
  }
  failed = DirectorySyncStep::None;
  return 0;
}

void AtomicFile::discard() {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
  if (!temp.empty()) {
    ::unlink(temp.c_str());
    temp.clear();
  }
}
