//===- WalkLimits.h - Ranges of walk schedule and job options --*- C++ -*-===//
//
// The largest values the walk options may take: Sema reports a larger one at
// the option's token, the walk dialect's verifiers refuse it in IR, and the
// run narrows to the runtime's 32-bit fields only after both. WalkAbi.cpp
// binds these to the runtime's SLUICE_WALK_MAX_* by static_assert. Header
// only, so that Sema uses it without linking the dialect.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_IR_WALKLIMITS_H
#define SLUICE_DIALECTS_WALK_IR_WALKLIMITS_H

#include <cstdint>

namespace sluice::walk {

/// `walks_per_vertex` of a walk job (the runtime's uint32_t field).
constexpr int64_t kMaxWalksPerVertex = 4294967295;
/// `threads` of a walk job or schedule (SLUICE_WALK_MAX_THREADS).
constexpr int64_t kMaxWalkThreads = 1024;
/// `walkers_per_thread` of a walk schedule
/// (SLUICE_WALK_MAX_WALKERS_PER_THREAD).
constexpr int64_t kMaxWalkersPerThread = 65536;
/// A walk's `length` and sluicec's --max-length, in vertices (uint32_t).
constexpr int64_t kMaxWalkLength = 4294967295;

} // namespace sluice::walk

#endif // SLUICE_DIALECTS_WALK_IR_WALKLIMITS_H
