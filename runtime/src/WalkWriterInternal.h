//===- WalkWriterInternal.h - What the walk engine asks a writer -*- C++ -*-===//
//
// Internal (not exported): the walk engine lays out its batches with the
// writer's row width, which the C API does not expose.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_WALKWRITERINTERNAL_H
#define SLUICE_RUNTIME_SRC_WALKWRITERINTERNAL_H

#include "sluice/walk_output.h"

namespace sluice::rt {

/// The walk_length the writer was opened with (0 for NULL).
uint32_t walkWriterLength(const sluice_walk_writer_t *writer);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_WALKWRITERINTERNAL_H
