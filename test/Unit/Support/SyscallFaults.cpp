//===- SyscallFaults.cpp - The ld --wrap functions behind SyscallFaults.h -===//
#include "test/Unit/Support/SyscallFaults.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <mutex>
#include <unistd.h>

// The real functions (ld --wrap=NAME turns NAME into __wrap_NAME and makes
// __real_NAME the original).
extern "C" int __real_fsync(int fd);
extern "C" int __real_fdatasync(int fd);
extern "C" int __real_close(int fd);
extern "C" int __real_rename(const char *from, const char *to);

namespace {

struct Fault {
  bool armed = false;
  int err = 0;
  std::string path;
  sluice::test::PathMatch match = sluice::test::PathMatch::Contains;
  uint64_t remaining = 0; // matching calls to let through first
};

constexpr int kKinds = 3;
std::mutex mutex;
Fault faults[kKinds];
std::atomic<int> armedCount{0};
std::atomic<uint64_t> fired{0};

std::string pathOfFd(int fd) {
  char link[64], target[PATH_MAX];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

/// The errno to fail with, or 0 to let the call through.
int check(sluice::test::Syscall kind, const std::string &path) {
  std::lock_guard<std::mutex> lock(mutex);
  Fault &f = faults[static_cast<int>(kind)];
  const bool matches = f.match == sluice::test::PathMatch::Exactly
                           ? path == f.path
                           : path.find(f.path) != std::string::npos;
  if (!f.armed || !matches)
    return 0;
  if (f.remaining) {
    --f.remaining;
    return 0;
  }
  f.armed = false;
  --armedCount;
  ++fired;
  return f.err;
}

int checkFd(sluice::test::Syscall kind, int fd) {
  if (armedCount.load() == 0)
    return 0;
  return check(kind, pathOfFd(fd));
}

} // namespace

void sluice::test::failSyscall(Syscall call, int err, const std::string &path,
                               uint64_t nth, PathMatch match) {
  std::lock_guard<std::mutex> lock(mutex);
  Fault &f = faults[static_cast<int>(call)];
  if (!f.armed)
    ++armedCount;
  f = Fault{true, err, path, match, nth};
}

void sluice::test::clearSyscallFaults() {
  std::lock_guard<std::mutex> lock(mutex);
  for (Fault &f : faults)
    f = Fault{};
  armedCount = 0;
}

uint64_t sluice::test::syscallFaultsFired() { return fired.load(); }

extern "C" int __wrap_fsync(int fd) {
  if (int err = checkFd(sluice::test::Syscall::Fsync, fd)) {
    errno = err;
    return -1;
  }
  return __real_fsync(fd);
}

extern "C" int __wrap_fdatasync(int fd) {
  if (int err = checkFd(sluice::test::Syscall::Fsync, fd)) {
    errno = err;
    return -1;
  }
  return __real_fdatasync(fd);
}

extern "C" int __wrap_close(int fd) {
  if (int err = checkFd(sluice::test::Syscall::Close, fd)) {
    __real_close(fd);
    errno = err;
    return -1;
  }
  return __real_close(fd);
}

extern "C" int __wrap_rename(const char *from, const char *to) {
  if (armedCount.load() != 0)
    if (int err = check(sluice::test::Syscall::Rename, to ? to : "")) {
      errno = err;
      return -1;
    }
  return __real_rename(from, to);
}
