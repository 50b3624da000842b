//===- StaleTemporaries.h - Temporaries of killed processes -----*- C++ -*-===//
//
// The runtime writes big files through hidden temporaries whose names carry
// the writing process's id: AtomicFile's ".<name>.tmp-<pid>-<n>" and the
// tier manager's ".<tensor>.<generation>.swap.tmp-<pid>". A process that is
// killed leaves its temporaries behind (hundreds of MB for walks or swap
// files); nothing else would ever remove them. removeStaleTemporaries()
// deletes, in one directory, the regular files whose name the caller's
// pattern recognises as one of ours and whose process is gone: not this
// process, and kill(pid, 0) fails with ESRCH (a process of another user,
// EPERM, is alive). Files of live processes, and every other name, stay.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_STALETEMPORARIES_H
#define SLUICE_RUNTIME_SRC_STALETEMPORARIES_H

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace sluice::rt {

/// Reads a decimal process id (1 .. INT32_MAX, no sign or leading zero).
bool parsePid(std::string_view digits, pid_t &pid);

/// The process id in `name` if it is an AtomicFile temporary of the file
/// `base` (".<base>.tmp-<pid>-<n>"), else 0.
pid_t atomicTemporaryOwner(std::string_view name, std::string_view base);

/// Deletes the stale temporaries in `dir` (see the file comment); `ownerOf`
/// gives the process id of a name that follows our pattern, 0 otherwise.
/// Returns how many were deleted. Errors (an unreadable directory, a file
/// another process removed first) are ignored: this is housekeeping.
uint64_t
removeStaleTemporaries(const std::string &dir,
                       const std::function<pid_t(std::string_view)> &ownerOf);

/// True when no process `pid` exists.
bool processIsGone(pid_t pid);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_STALETEMPORARIES_H
