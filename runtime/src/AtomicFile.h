//===- AtomicFile.h - Write to a temporary, then rename --------*- C++ -*-===//
//
// Every file the runtime writes goes through AtomicFile: the bytes go to a
// hidden temporary in the destination directory (".<name>.tmp-<pid>-<n>"),
// and commit() flushes, fsyncs, closes and renames it over the destination,
// then fsyncs the directory; every one of these steps is checked. The
// write-back of every 8 MiB written starts at once (sync_file_range), so
// that the fsync of a large file waits for little. A failure
// before the rename leaves the destination untouched and deletes the
// temporary (so does destroying an uncommitted AtomicFile); a failure of the
// directory's fsync after it fails the commit too, with the new content in
// place but perhaps not durable (renamed() tells). Errors latch: after the
// first one every call fails. open() first deletes the temporaries of the
// same file that dead processes left (StaleTemporaries.h).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ATOMICFILE_H
#define SLUICE_RUNTIME_SRC_ATOMICFILE_H

#include "sluice/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::rt {

/// The step of syncDirectory that failed.
enum class DirectorySyncStep { None, Open, Fsync, Close };

/// Makes the renames and creations in directory `dir` durable: opens it,
/// fsyncs it and closes it, checking each (a file system that cannot fsync
/// a directory, EINVAL, has nothing to flush). Returns 0, or the errno of
/// the step it names in `failed`.
int syncDirectory(const std::string &dir, DirectorySyncStep &failed);

class AtomicFile {
public:
  AtomicFile() = default;
  ~AtomicFile() { discard(); }
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  /// Creates the temporary next to `path`.
  sluice_status_t open(const std::string &path, sluice_error_t *error);
  /// Appends bytes (buffered).
  sluice_status_t write(const void *data, size_t bytes, sluice_error_t *error);
  /// Appends `bytes` zero bytes.
  sluice_status_t writeZeros(size_t bytes, sluice_error_t *error);
  /// Overwrites already written bytes at `offset` (e.g. a header).
  sluice_status_t writeAt(uint64_t offset, const void *data, size_t bytes,
                          sluice_error_t *error);
  /// Makes the file appear under its name; see the file comment.
  sluice_status_t commit(sluice_error_t *error);
  /// Deletes the temporary (no-op after commit).
  void discard();

  /// Bytes written so far.
  uint64_t size() const { return written + used; }
  /// True once commit() renamed the file over the destination (even if the
  /// directory's fsync then failed).
  bool renamed() const { return renamedIntoPlace; }

private:
  sluice_status_t flush(sluice_error_t *error);
  sluice_status_t writeFully(const void *data, size_t bytes,
                             sluice_error_t *error);
  sluice_status_t failWith(sluice_error_t *error, int err,
                           const std::string &what);

  int fd = -1;
  bool failed = false;
  bool renamedIntoPlace = false;
  std::string target, temp;
  std::vector<char> buffer;
  size_t used = 0;
  uint64_t written = 0;
  /// Start of the bytes whose write-back writeFully has not started yet.
  uint64_t writebackFrom = 0;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_ATOMICFILE_H
