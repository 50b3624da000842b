//===- Version.h - Sluice's version, for tools with and without LLVM -----===//
//
// Header only and free of LLVM, so that the LLVM-free tools (the walk
// benchmarks over libsluicert alone) print the same version as the
// compiler's tools (ToolVersion.h, which adds the LLVM/MLIR version).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_COMMON_VERSION_H
#define SLUICE_DIALECTS_COMMON_VERSION_H

/// Sluice's version (bumped with each release of the language or the tools).
#define SLUICE_VERSION_STRING "0.5.0"

#endif // SLUICE_DIALECTS_COMMON_VERSION_H
