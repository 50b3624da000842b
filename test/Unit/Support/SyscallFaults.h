//===- SyscallFaults.h - Failing fsync, close, rename -----------*- C++ -*-===//
//
// The I/O engine injects faults into its own requests
// (sluice_io_engine_inject_fault); the calls around them (fsync of a file
// or a directory, close, rename) are plain system calls. A test binary
// linked with sluice_use_syscall_faults() (test/Unit/CMakeLists.txt) has
// those calls wrapped (ld --wrap), in the runtime's objects too: each one
// goes through to the system unless a fault armed here matches it, and then
// it fails with the armed errno instead (a close still closes the
// descriptor, as close(2) does on error).
//
// A fault matches the `nth` (0-based) call of its kind, counted from when it
// is armed, whose path contains (or is) the fault's path (the path of a
// descriptor is read from /proc/self/fd; for rename, the destination). One
// fault per kind is armed at a time; it disarms after it fired.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_SUPPORT_SYSCALLFAULTS_H
#define SLUICE_TEST_UNIT_SUPPORT_SYSCALLFAULTS_H

#include <cstdint>
#include <string>

namespace sluice::test {

enum class Syscall { Fsync, Close, Rename };

/// How a fault's path is compared with the call's.
enum class PathMatch { Contains, Exactly };

/// Arms a fault: the `nth` call of `call` on a path containing (or equal
/// to) `path` fails with `err`.
void failSyscall(Syscall call, int err, const std::string &path,
                 uint64_t nth = 0, PathMatch match = PathMatch::Contains);

/// Disarms every fault.
void clearSyscallFaults();

/// How many armed faults have fired since the program started.
uint64_t syscallFaultsFired();

/// Disarms every fault when it goes out of scope (a failed ASSERT cannot
/// leave one armed for the next test).
struct SyscallFaultScope {
  SyscallFaultScope() = default;
  SyscallFaultScope(const SyscallFaultScope &) = delete;
  SyscallFaultScope &operator=(const SyscallFaultScope &) = delete;
  ~SyscallFaultScope() { clearSyscallFaults(); }
};

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_SUPPORT_SYSCALLFAULTS_H
